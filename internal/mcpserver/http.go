package mcpserver

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"

	"github.com/mark3labs/mcp-go/server"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/loopback"
)

// maxBodyBytes bounds an HTTP request body.
const maxBodyBytes = 1 << 20

// HTTPOptions configures the HTTP handler.
type HTTPOptions struct {
	// AuthToken returns the token every request must send as "Authorization: Bearer <token>", read per request so
	// that a new one applies at once; "" (or a nil func) lets requests in without one.
	AuthToken func() string
	Health    func() any // the body of GET /healthz, encoded as JSON
	Logger    *slog.Logger
	// SessionEnded is told the id of each session that ended: its client deleted it, or it was idle for
	// sessionIdle. Its calls in progress have nobody to answer any more. nil: nobody is told.
	SessionEnded func(id string)
}

// HTTPHandler serves MCP over Streamable HTTP at /mcp, the HTTP JSON API under /api/ and a health check at
// /healthz. mcp-go's Host check against DNS rebinding stays on; this adds, for every route, the Host check too, an
// Origin check, a body-size limit and the optional bearer token.
func HTTPHandler(s *server.MCPServer, o HTTPOptions) http.Handler {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.AuthToken == nil {
		o.AuthToken = func() string { return "" }
	}
	mux := http.NewServeMux()
	live := newSessions(o.SessionEnded)
	mcpHandler := server.NewStreamableHTTPServer(s, server.WithStreamableHTTPLogger(o.Logger), server.WithSessionIdManager(live))
	live.end = deleter(mcpHandler)
	mux.Handle("/mcp", mcpHandler)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		var body any = map[string]string{"status": "ok"}
		if o.Health != nil {
			body = o.Health()
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(body)
	})
	mountAPI(mux, s)
	return guard(mux, o, live)
}

func guard(next http.Handler, o HTTPOptions, live *sessions) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// mcp-go checks the Host of /mcp requests only; /healthz (and anything added later) needs it too, or a page
		// rebound to 127.0.0.1 could read it.
		refuse := refusal(r)
		if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && loopback.Rebound(local.String(), r.Host) {
			refuse(w, http.StatusForbidden, codeForbidden, fmt.Sprintf("Forbidden: invalid Host header %q", r.Host))
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" && !loopback.AllowedOrigin(origin, r.Host) {
			o.Logger.Warn("rejected request from a foreign origin", "origin", origin, "path", r.URL.Path)
			refuse(w, http.StatusForbidden, codeForbidden, fmt.Sprintf("Forbidden: origin %q may not use this server", origin))
			return
		}
		if token := o.AuthToken(); token != "" && !validBearer(r.Header.Get("Authorization"), token) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="gemini-search-mcp"`)
			refuse(w, http.StatusUnauthorized, codeUnauthorized, "Unauthorized: send Authorization: Bearer <MCP_AUTH_TOKEN>")
			return
		}
		if r.Body != nil && r.Body != http.NoBody {
			// Read the body here, not lazily downstream, so an oversized request gets a clear 413 instead of a
			// JSON-RPC parse error from half a message.
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				refuse(w, http.StatusRequestEntityTooLarge, codeInvalidArgument,
					fmt.Sprintf("Request body too large: the limit is %d bytes", maxBodyBytes))
				return
			}
			if err != nil {
				refuse(w, http.StatusBadRequest, codeInvalidArgument, "Bad request: could not read the body")
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			if isTaskCall(body) {
				r = r.WithContext(withTaskSlot(r.Context()))
			}
			if r.URL.Path == "/mcp" && isInitialize(body) && !live.room() {
				o.Logger.Warn("refused a new MCP session: too many", "max", maxSessions)
				refuse(w, http.StatusServiceUnavailable, codeUnavailable, fmt.Sprintf("Service unavailable: %d MCP "+
					"sessions are open, the most this server keeps; close clients you no longer use (an idle session "+
					"ends after %v)", maxSessions, sessionIdle))
				return
			}
		}
		if id := r.Header.Get(server.HeaderKeySessionID); id != "" && r.URL.Path == "/mcp" {
			defer live.begin(id)()
		}
		next.ServeHTTP(w, r)
	})
}

// Codes of the requests the HTTP side refuses before any tool runs, in the API's JSON errors.
const (
	codeUnauthorized = "UNAUTHORIZED" // no valid MCP_AUTH_TOKEN
	codeForbidden    = "FORBIDDEN"    // a foreign Origin or Host
	codeUnavailable  = "UNAVAILABLE"  // too many sessions
)

// refusal is how r is refused: in JSON as the tools' errors for the API, in plain text elsewhere.
func refusal(r *http.Request) func(w http.ResponseWriter, status int, code, message string) {
	if strings.HasPrefix(r.URL.Path, "/api/") {
		return apiError
	}
	return func(w http.ResponseWriter, status int, _, message string) { http.Error(w, message, status) }
}

// isInitialize reports whether body is an initialize request, which begins a session.
func isInitialize(body []byte) bool {
	var msg struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(body, &msg) == nil && msg.Method == "initialize"
}

// isTaskCall reports whether body is a tools/call that asks to run as an MCP task.
func isTaskCall(body []byte) bool {
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Task json.RawMessage `json:"task"`
		} `json:"params"`
	}
	return json.Unmarshal(body, &msg) == nil && msg.Method == "tools/call" && len(msg.Params.Task) > 0 &&
		string(msg.Params.Task) != "null"
}

// validBearer reports whether header, an Authorization header, sends token as a bearer token. The scheme's name is
// case-insensitive (RFC 9110): "bearer" and "BEARER" are Bearer too.
func validBearer(header, token string) bool {
	scheme, got, ok := strings.Cut(strings.TrimSpace(header), " ")
	return ok && strings.EqualFold(scheme, "Bearer") &&
		subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(token)) == 1
}
