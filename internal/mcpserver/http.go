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

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/loopback"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/restapi"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools"
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
	// SessionEnded is told the id of each session that ended: its client deleted it, it was idle for sessionIdle,
	// or it made room for a new one. Its calls in progress have nobody to answer any more. nil: nobody is told.
	SessionEnded func(id string)
	// Working reports whether a session has a call in progress that its requests do not show: the run of a task
	// call, which goes on after its tools/call has answered. Such a session is neither forgotten for being idle
	// nor ended to make room. nil: none has.
	Working func(id string) bool
	// Answering is told of each request that calls a tool (tools/call, or the HTTP API) as it begins, and the func
	// it returns once it has answered, so that a server about to stop can wait for the answers. nil: nobody is.
	Answering func() (answered func())
	// Sweeper runs the sweeps that forget idle sessions and drop the events of answered calls' streams; nil: idle
	// sessions are forgotten only when a new one needs room, and events only make room for newer ones.
	Sweeper tools.Sweeper
	// API is the HTTP JSON API, served under /api/ behind the same checks; nil: none.
	API http.Handler
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
	live := newSessions(o.SessionEnded, o.Working)
	events := newEventLog(maxEventBytes)
	mcpHandler := server.NewStreamableHTTPServer(s, server.WithStreamableHTTPLogger(o.Logger), server.WithSessionIdManager(live),
		server.WithEventStore(events))
	live.end = deleter(mcpHandler)
	if o.Sweeper != nil {
		o.Sweeper.Add(live.sweep) // first: the events of the sessions it forgets go with them
		o.Sweeper.Add(events.sweep)
	}
	mux.Handle("/mcp", mcpHandler)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		var body any = map[string]string{"status": "ok"}
		if o.Health != nil {
			body = o.Health()
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(body)
	})
	if o.API != nil {
		mux.Handle("/api/", o.API)
	}
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
		var msg rpcMessage
		if r.Body != nil && r.Body != http.NoBody {
			// Read the body here, not lazily downstream, so an oversized request gets a clear 413 instead of a
			// JSON-RPC parse error from half a message.
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				refuse(w, http.StatusRequestEntityTooLarge, tools.CodeInvalidArgument,
					fmt.Sprintf("Request body too large: the limit is %d bytes", maxBodyBytes))
				return
			}
			if err != nil {
				refuse(w, http.StatusBadRequest, tools.CodeInvalidArgument, "Bad request: could not read the body")
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			if r.URL.Path == "/mcp" && bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")) {
				refuseBatch(w)
				return
			}
			msg = peek(body)
			if o.Answering != nil && (msg.Method == "tools/call" || strings.HasPrefix(r.URL.Path, "/api/")) {
				defer o.Answering()()
			}
			if r.URL.Path == "/mcp" && msg.Method == "tools/call" && r.Header.Get(server.HeaderKeySessionID) != "" {
				// A broken connection does not cancel a call (the spec: only notifications/cancelled does). A call
				// that streams (it sends progress) keeps its answer in the event log, for the client to resume the
				// stream and read it; any call's report reaches the client that calls again, which joins the run
				// or finds it in the cache. The end of its session, the server's stop and the call's own time
				// limit still end it.
				r = r.WithContext(context.WithoutCancel(r.Context()))
			}
			if r.URL.Path == "/mcp" && msg.Method == string(mcp.MethodInitialize) {
				if !live.room() {
					o.Logger.Warn("refused a new MCP session: every session has a request in progress", "max", maxSessions)
					refuse(w, http.StatusServiceUnavailable, codeUnavailable, fmt.Sprintf("Service unavailable: all "+
						"%d MCP sessions, the most this server keeps, have a request in progress (a call or a "+
						"listening stream); try again when one ends", maxSessions))
					return
				}
				defer func() { live.initialized(w.Header().Get(server.HeaderKeySessionID)) }()
			}
		}
		if r.URL.Path == "/mcp" {
			id := r.Header.Get(server.HeaderKeySessionID)
			// Every request but initialize names a live session, as the spec asks of servers with sessions: a
			// missing id gets 400, an unknown one 404. mcp-go checks the session of a POST only, answering 404 for a
			// missing one too; a GET would open a stream for any id, or mint one nobody can use, and a DELETE of an
			// unknown id would answer 200. Requests of protocol 2026-07-28 have no sessions.
			if r.Method == http.MethodGet || r.Method == http.MethodDelete ||
				r.Method == http.MethodPost && msg.Method != string(mcp.MethodInitialize) && !msg.modern() {
				switch _, err := live.Validate(id); {
				case id == "":
					refuse(w, http.StatusBadRequest, tools.CodeInvalidArgument, "Bad request: send the Mcp-Session-Id header "+
						"that initialize gave")
					return
				case err != nil:
					refuse(w, http.StatusNotFound, tools.CodeInvalidArgument, "Not found: this session is unknown or has "+
						"ended; initialize a new one")
					return
				}
			}
			if id != "" {
				defer live.begin(id)()
			}
		}
		next.ServeHTTP(w, r)
	})
}

// Codes of the requests the HTTP side refuses before any tool runs, in the API's JSON errors.
const (
	codeUnauthorized = "UNAUTHORIZED" // no valid MCP_AUTH_TOKEN
	codeForbidden    = "FORBIDDEN"    // a foreign Origin or Host
	codeUnavailable  = "UNAVAILABLE"  // every session busy
)

// refusal is how r is refused: in JSON as the tools' errors for the API, in plain text elsewhere.
func refusal(r *http.Request) func(w http.ResponseWriter, status int, code, message string) {
	if strings.HasPrefix(r.URL.Path, "/api/") {
		return restapi.WriteError
	}
	return func(w http.ResponseWriter, status int, _, message string) { http.Error(w, message, status) }
}

// refuseBatch answers a JSON-RPC batch with a JSON-RPC error that says why: MCP took batches out in its
// 2025-06-18 revision, and mcp-go reads an array as a malformed message.
func refuseBatch(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{
		"code": mcp.INVALID_REQUEST, "message": "JSON-RPC batches are not supported (MCP removed them in 2025-06-18): send one message per request"}})
}

// rpcMessage is what the guard reads of a JSON-RPC message; the zero value for a body that is none.
type rpcMessage struct {
	Method string `json:"method"`
	Params struct {
		Meta struct {
			ProtocolVersion string `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
	} `json:"params"`
}

// modern reports whether msg is a request of protocol 2026-07-28 or later, which names its version in its _meta
// (mcp-go's rule for a request's era) and belongs to no session.
func (msg rpcMessage) modern() bool {
	return mcp.IsModernProtocol(msg.Params.Meta.ProtocolVersion)
}

func peek(body []byte) rpcMessage {
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
