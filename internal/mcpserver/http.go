package mcpserver

import (
	"log/slog"
	"net/http"

	"github.com/mark3labs/mcp-go/server"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/httpjson"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools"
)

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
// /healthz, every route behind the guard: the rules chained at its end, each a middleware of guard.go. mcp-go's own
// Host check against DNS rebinding stays on too.
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
		httpjson.Write(w, http.StatusOK, body)
	})
	if o.API != nil {
		mux.Handle("/api/", o.API)
	}
	g := guard{log: o.Logger, authToken: o.AuthToken, answering: o.Answering, live: live}
	// Every rule of the guard, in the order a request meets them; the first to refuse it answers.
	return chain(mux,
		refuseRebinding,       // Host, on every route: no DNS rebinding
		g.refuseForeignOrigin, // Origin: loopback pages only
		g.requireBearer,       // the token, when one is set
		limitBody,             // maxBodyBytes, read once (413 beyond), its message peeked for the rules below
		refuseBatches,         // no JSON-RPC batches
		ignoreTimeouts,        // a client that timed out cancels nothing (cancels.go)
		g.countAnswering,      // tool calls counted until answered
		keepCalls,             // a broken connection does not cancel a call
		g.capSessions,         // initialize: maxSessions at most
		g.requireSession,      // every other request names a live session (none in 2026-07-28)
		g.markBusy,            // a session with a request in progress stays
	)
}
