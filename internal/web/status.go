package web

import (
	"net/http"
	"slices"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/appstate"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/checklist"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/httpserver"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
)

// statusPage is /status, the live view of running searches, recent errors and recent research, and
// /status/events, the stream that keeps it current.
type statusPage struct{ h *Handler }

type statusView struct {
	Script   liveScript
	Server   string
	Running  []runView
	Failures []activity.Failure // the failures, newest first, then the warnings, newest first
	Errors   int                // the failures
	Warnings int                // the warnings: calls that succeeded with something to know, not failures
	Recent   []recentView
	Kept     int                // reports in the history, of which Recent shows the newest
	Usage    *record.UsageMeter // what the research used today and this month; nil without a library
}

// recentView is one report of the history as /status lists it.
type recentView struct {
	record.Summary
	When string
}

type runView struct {
	activity.Run
	Elapsed string
}

// serverLine is the server's state as the pages show it: where it serves, and the backend that serves the next
// search, or, when the check of the backend in force is broken (checklist.CannotServe), that none can, as the
// tray's status line says.
func serverLine(st appstate.State) string {
	api := st.Backend.Active == backend.API
	if st.Server.State == httpserver.Running && checklist.CannotServe(st.Setup, api) {
		name := map[bool]string{false: "Gemini CLI", true: "Gemini API"}[api]
		st.Server.Backend = "no backend can serve: the " + name + " cannot start (see Check setup)"
	}
	return st.Server.Line()
}

// view is what /status shows now.
func (pg *statusPage) view() statusView {
	st := pg.h.app.State()
	snap := st.Activity
	p := statusView{Server: serverLine(st), Failures: slices.Concat(snap.Failures, snap.Warnings),
		Errors: len(snap.Failures), Warnings: len(snap.Warnings), Kept: st.Kept, Usage: st.Usage}
	for _, run := range snap.Running {
		p.Running = append(p.Running, runView{Run: run, Elapsed: run.Elapsed(pg.h.now())})
	}
	for _, s := range st.Recent { // as many as the state holds (appstate.RecentMax)
		p.Recent = append(p.Recent, recentView{Summary: s, When: s.When(pg.h.now())})
	}
	return p
}

func (pg *statusPage) get(w http.ResponseWriter) {
	p := pg.view()
	p.Script = liveScript{Nonce: withScripts(w), Events: "/status/events", Target: "live"}
	pg.h.render(w, "status.html", p)
}

// events streams the live part of /status: after each change of what it shows, and every second while searches
// run (their elapsed times move).
func (pg *statusPage) events(w http.ResponseWriter, r *http.Request) {
	pg.h.stream(w, r, func() frame {
		p := pg.view()
		return frame{template: "status-live", data: p, ticking: len(p.Running) > 0}
	})
}
