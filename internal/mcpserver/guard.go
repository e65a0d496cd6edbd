package mcpserver

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/httpjson"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/loopback"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools"
)

// maxBodyBytes bounds an HTTP request body.
const maxBodyBytes = 1 << 20

// middleware is one rule of the HTTP guard: it refuses a request, or hands it on to next.
type middleware func(next http.Handler) http.Handler

// chain wraps h in mws, the first outermost, so that a request meets them in the order listed.
func chain(h http.Handler, mws ...middleware) http.Handler {
	for i := len(mws) - 1; i >= 0; i-- {
		h = mws[i](h)
	}
	return h
}

// guard holds what the rules of the HTTP guard need besides the request: the log, the token, the answering count
// and the sessions.
type guard struct {
	log       *slog.Logger
	authToken func() string
	answering func() (answered func()) // nil: nobody counts
	live      *sessions
}

// refuseRebinding checks the Host of every route against DNS rebinding: mcp-go checks /mcp only, and a page rebound
// to 127.0.0.1 could read /healthz (and anything added later).
func refuseRebinding(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && loopback.Rebound(local.String(), r.Host) {
			refuse(w, r, http.StatusForbidden, backend.CodeForbidden, fmt.Sprintf("Forbidden: invalid Host header %q", r.Host))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// refuseForeignOrigin lets in browsers' requests from loopback pages only, so that no web site can drive the server.
func (g guard) refuseForeignOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" && !loopback.AllowedOrigin(origin, r.Host) {
			g.log.Warn("rejected request from a foreign origin", "origin", origin, "path", r.URL.Path)
			refuse(w, r, http.StatusForbidden, backend.CodeForbidden, fmt.Sprintf("Forbidden: origin %q may not use this server", origin))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// requireBearer asks for the token, when one is set, so that only the clients it was given to get in.
func (g guard) requireBearer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token := g.authToken(); token != "" && !validBearer(r.Header.Get("Authorization"), token) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="gemini-search-mcp"`)
			refuse(w, r, http.StatusUnauthorized, backend.CodeUnauthorized, "Unauthorized: send Authorization: Bearer <MCP_AUTH_TOKEN>")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// limitBody reads a body whole, up to maxBodyBytes, here rather than lazily downstream, so that an oversized request
// gets a clear 413 instead of a JSON-RPC parse error from half a message; the rules after it read its message.
func limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			refuse(w, r, http.StatusRequestEntityTooLarge, backend.CodeInvalidArgument,
				fmt.Sprintf("Request body too large: the limit is %d bytes", maxBodyBytes))
			return
		}
		if err != nil {
			refuse(w, r, http.StatusBadRequest, backend.CodeInvalidArgument, "Bad request: could not read the body")
			return
		}
		r = r.WithContext(context.WithValue(r.Context(), messageKey{}, peek(body)))
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

// refuseBatches answers a JSON-RPC batch with a JSON-RPC error that says why: MCP took batches out in its
// 2025-06-18 revision, and mcp-go reads an array as a malformed message.
func refuseBatches(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if msg, _ := message(r); r.URL.Path == "/mcp" && msg.batch {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{
				"code": mcp.INVALID_REQUEST, "message": "JSON-RPC batches are not supported (MCP removed them in 2025-06-18): send one message per request"}})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// countAnswering tells HTTPOptions.Answering of each request that calls a tool until it has answered, so that a
// server about to stop can wait for the answers.
func (g guard) countAnswering(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if msg, body := message(r); g.answering != nil && body && (msg.Method == "tools/call" || strings.HasPrefix(r.URL.Path, "/api/")) {
			defer g.answering()()
		}
		next.ServeHTTP(w, r)
	})
}

// keepCalls lets a session's tools/call outlive its connection, so that a client that loses it can find the answer.
func keepCalls(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if msg, _ := message(r); r.URL.Path == "/mcp" && msg.Method == "tools/call" && r.Header.Get(server.HeaderKeySessionID) != "" {
			// A broken connection does not cancel a call (the spec: only notifications/cancelled does). A call
			// that streams (it sends progress) keeps its answer in the event log, for the client to resume the
			// stream and read it; any call's report reaches the client that calls again, which joins the run
			// or finds it in the cache. The end of its session, the server's stop and the call's own time
			// limit still end it.
			r = r.WithContext(context.WithoutCancel(r.Context()))
		}
		next.ServeHTTP(w, r)
	})
}

// capSessions refuses an initialize when maxSessions are live and busy, so that sessions cannot grow without bound,
// and ends the new session if room ended it while it was being initialized.
func (g guard) capSessions(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if msg, _ := message(r); r.URL.Path == "/mcp" && msg.Method == string(mcp.MethodInitialize) {
			if !g.live.room() {
				g.log.Warn("refused a new MCP session: every session has a request in progress", "max", maxSessions)
				refuse(w, r, http.StatusServiceUnavailable, backend.CodeUnavailable, fmt.Sprintf("Service unavailable: all "+
					"%d MCP sessions, the most this server keeps, have a request in progress (a call or a "+
					"listening stream); try again when one ends", maxSessions))
				return
			}
			defer func() { g.live.initialized(w.Header().Get(server.HeaderKeySessionID)) }()
		}
		next.ServeHTTP(w, r)
	})
}

// requireSession refuses an MCP request that names no live session, as the spec asks of servers with sessions.
func (g guard) requireSession(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Every request but initialize names a live session: a missing id gets 400, an unknown one 404. mcp-go
		// checks the session of a POST only, answering 404 for a missing one too; a GET would open a stream for any
		// id, or mint one nobody can use, and a DELETE of an unknown id would answer 200. Requests of protocol
		// 2026-07-28 have no sessions.
		msg, _ := message(r)
		if r.URL.Path == "/mcp" && (r.Method == http.MethodGet || r.Method == http.MethodDelete ||
			r.Method == http.MethodPost && msg.Method != string(mcp.MethodInitialize) && !msg.modern()) {
			id := r.Header.Get(server.HeaderKeySessionID)
			switch _, err := g.live.Validate(id); {
			case id == "":
				refuse(w, r, http.StatusBadRequest, backend.CodeInvalidArgument, "Bad request: send the Mcp-Session-Id header "+
					"that initialize gave")
				return
			case err != nil:
				refuse(w, r, http.StatusNotFound, backend.CodeInvalidArgument, "Not found: this session is unknown or has "+
					"ended; initialize a new one")
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// markBusy marks a session's request in progress while it runs, so that neither idleness nor room ends the session.
func (g guard) markBusy(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id := r.Header.Get(server.HeaderKeySessionID); r.URL.Path == "/mcp" && id != "" {
			defer g.live.begin(id)()
		}
		next.ServeHTTP(w, r)
	})
}

// refuse answers r with status and message: in JSON as the tools' errors for the API, in plain text elsewhere.
func refuse(w http.ResponseWriter, r *http.Request, status int, code backend.Code, message string) {
	if strings.HasPrefix(r.URL.Path, "/api/") {
		httpjson.Write(w, status, tools.ErrorBody{Error: tools.Error{Code: code, Message: message}})
		return
	}
	http.Error(w, message, status)
}

// messageKey keys, in a request's context, the JSON-RPC message its body holds, which limitBody reads once.
type messageKey struct{}

// message returns the JSON-RPC message of r's body, read by limitBody, and whether r has a body.
func message(r *http.Request) (msg rpcMessage, body bool) {
	msg, body = r.Context().Value(messageKey{}).(rpcMessage)
	return msg, body
}

// rpcMessage is what the guard reads of a JSON-RPC message; the zero value for a body that is none.
type rpcMessage struct {
	Method string `json:"method"`
	Params struct {
		Meta struct {
			ProtocolVersion string `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
		Reason string `json:"reason"` // a cancel's
	} `json:"params"`
	batch bool // the body is a JSON array: a batch of messages, of which the guard reads none
}

// modern reports whether msg is a request of protocol 2026-07-28 or later, which names its version in its _meta
// (mcp-go's rule for a request's era) and belongs to no session.
func (msg rpcMessage) modern() bool {
	return mcp.IsModernProtocol(msg.Params.Meta.ProtocolVersion)
}

func peek(body []byte) rpcMessage {
	if bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")) {
		return rpcMessage{batch: true}
	}
	var msg rpcMessage
	if json.Unmarshal(body, &msg) != nil {
		return rpcMessage{}
	}
	return msg
}

// validBearer reports whether header, an Authorization header, sends token as a bearer token. The scheme's name is
// case-insensitive (RFC 9110): "bearer" and "BEARER" are Bearer too.
func validBearer(header, token string) bool {
	scheme, got, ok := strings.Cut(strings.TrimSpace(header), " ")
	return ok && strings.EqualFold(scheme, "Bearer") &&
		subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(token)) == 1
}
