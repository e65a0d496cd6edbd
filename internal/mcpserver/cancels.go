package mcpserver

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"strings"
)

// A client that gives up waiting for a call says so with notifications/cancelled: the official TypeScript SDK (and
// the clients on it: Claude Desktop, the MCP Inspector, mcp-remote) sends one when its request timeout fires, with
// the reason "McpError: MCP error -32001: Request timed out". A client that merely timed out must not cancel the
// research its call started (it comes back for it with research_result), while one that cancels the call must. So
// a cancel whose reason says the client timed out is not passed on: the call answers at the end of its wait, to a
// client that no longer listens, and its research runs on.

// timedOut reports whether msg is a cancel that says the client timed out.
func (msg rpcMessage) timedOut() bool {
	if msg.Method != "notifications/cancelled" {
		return false
	}
	reason := strings.ToLower(msg.Params.Reason)
	return strings.Contains(reason, "timed out") || strings.Contains(reason, "timeout") ||
		strings.Contains(reason, "-32001")
}

// ignoreTimeouts answers a cancel that says the client timed out as any notification is answered (202 Accepted),
// without passing it on.
func ignoreTimeouts(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if msg, _ := message(r); r.URL.Path == "/mcp" && msg.timedOut() {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// withoutTimeouts is in, the messages of a stdio client one per line, without the cancels that say the client
// timed out. stop ends it: the line it reads then is its last.
func withoutTimeouts(in io.Reader) (filtered io.Reader, stop func()) {
	pr, pw := io.Pipe()
	go func() {
		lines := bufio.NewReader(in)
		for {
			line, err := lines.ReadBytes('\n')
			if len(line) > 0 && !(bytes.Contains(line, []byte("notifications/cancelled")) && peek(line).timedOut()) {
				if _, werr := pw.Write(line); werr != nil {
					return // stopped: nothing reads it any more
				}
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return pr, func() { pr.Close() }
}
