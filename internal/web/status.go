package web

import (
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
)

// statusPage is /status, the live view of running searches, recent errors and recent research, and
// /status/events, the stream that keeps it current.
type statusPage struct{ h *Handler }

type statusView struct {
	Nonce    string // of the page's one script
	Server   string
	Running  []runView
	Failures []activity.Failure // the failures, newest first, then the warnings, newest first
	Errors   int                // the failures
	Warnings int                // the warnings: calls that succeeded with something to know, not failures
	Recent   []recentView
	Kept     int // reports in the history, of which Recent shows the newest
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

// view is what /status shows now.
func (pg *statusPage) view() statusView {
	st := pg.h.app.State()
	snap := st.Activity
	p := statusView{Server: st.Server.Line(), Failures: slices.Concat(snap.Failures, snap.Warnings),
		Errors: len(snap.Failures), Warnings: len(snap.Warnings), Kept: st.Kept}
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
	p.Nonce = NewToken()[:32]
	w.Header().Set("Content-Security-Policy", pagePolicy+"; script-src 'nonce-"+p.Nonce+"'; connect-src 'self'")
	pg.h.render(w, "status.html", p)
}

// eventsGap is the least time between two events of /status/events, so that a burst of changes (a search's
// progress) is sent as one.
const eventsGap = 250 * time.Millisecond

// events streams the live part of /status as server-sent events: at once, then after each change of what it
// shows, and every second while searches run (their elapsed times move), until the client leaves or the server
// stops.
func (pg *statusPage) events(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming is not supported here", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	var part strings.Builder
	for {
		changed := pg.h.app.Changed()
		p := pg.view()
		part.Reset()
		if err := pg.h.pages.ExecuteTemplate(&part, "status-live", p); err != nil {
			pg.h.log.Error("render page", "page", "status-live", "err", err)
			return
		}
		// An event's data is one "data:" line per line. A lone CR (a CLI's progress output in an error's details) ends
		// a line of an event stream too, and html/template leaves it as it is: it becomes the character reference.
		fragment := strings.ReplaceAll(part.String(), "\r", "&#13;")
		for line := range strings.Lines(fragment) {
			if _, err := io.WriteString(w, "data: "+strings.TrimRight(line, "\r\n")+"\n"); err != nil {
				return
			}
		}
		if _, err := io.WriteString(w, "\n"); err != nil {
			return
		}
		flusher.Flush()
		var tick <-chan time.Time
		if len(p.Running) > 0 {
			tick = time.After(time.Second)
		}
		select {
		case <-r.Context().Done():
			return
		case <-time.After(eventsGap):
		}
		select {
		case <-r.Context().Done():
			return
		case <-changed:
		case <-tick:
		}
	}
}
