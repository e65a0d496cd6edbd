package app

import (
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/appstate"
)

// State is the App's state now, as the views read it: the menu, and the pages that show the activity or the
// library.
func (a *App) State() appstate.State {
	st := a.Glance()
	st.Activity = a.activity.Snapshot()
	st.Recent, st.Kept = a.library.List(appstate.RecentMax), a.library.Len()
	st.Usage = a.usage(time.Now())
	return st
}

// Glance is State without what takes more than a glance to gather (the activity's lists, the library, which is
// read from disk and opened by its first reader, and the usage kept there): what ping and /healthz start from, and
// what the pages read for their own checks.
func (a *App) Glance() appstate.State {
	c := a.configured.Load()
	running, queued := a.queue.Active()
	st := appstate.State{
		Version:  a.version,
		Config:   c.cfg,
		Backend:  c.backends.State(),
		SignedIn: c.backends.Login != "",
		Setup:    *c.problems.Load(),
		Running:  running,
		Queued:   queued,
	}
	if c.backends.CLIErr == nil {
		st.CLI = c.backends.CLI.String()
	}
	if h := a.http.Load(); h != nil {
		st.Server = h.Status()
	}
	st.Server.Backend = st.Backend.String()
	return st
}

// Changed is closed at the next change of State.
func (a *App) Changed() <-chan struct{} { return a.changes.Changed() }
