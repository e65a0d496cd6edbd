package web

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/checklist"
)

// setupPage is /setup, doctor's checklist for the configuration in force, with a button that sends the real queries.
type setupPage struct{ h *Handler }

// checklistTimeout bounds a run of the checklist on top of the request: doctor gives each backend's query 30 s,
// and the queries run at once, after the Gemini CLI's version check (15 s at most).
const checklistTimeout = time.Minute

type setupView struct {
	Server  string
	CSRF    string
	Queried bool // the backends were sent a query
	Checks  []checkView
	Broken  bool // a check failed that is not a hint: searches will fail
}

// checkView is one line of the checklist, marked as doctor prints it (Check.Mark).
type checkView struct {
	checklist.Check
	Class string // ok, hint or bad
	Lines []detailLine
}

// detailLine is one line of a check's detail.
type detailLine struct {
	Text string
	Fix  bool // "fix: …", what to do about it
	Said bool // indented: a line the backend printed
}

// viewChecks are checks as the pages show them, and whether one of them is broken (not a mere hint).
func viewChecks(checks []checklist.Check) (views []checkView, broken bool) {
	for _, c := range checks {
		v := viewCheck(c)
		broken = broken || c.Broken()
		views = append(views, v)
	}
	return views, broken
}

func viewCheck(c checklist.Check) checkView {
	v := checkView{Check: c, Class: "ok"}
	switch {
	case c.Broken():
		v.Class = "bad"
	case !c.OK:
		v.Class = "hint"
	}
	for line := range strings.Lines(c.Detail) {
		line = strings.TrimRight(line, "\r\n")
		v.Lines = append(v.Lines, detailLine{Text: line, Fix: strings.HasPrefix(line, "fix: "),
			Said: strings.HasPrefix(line, " ")})
	}
	return v
}

// check runs the checklist, offline or with a query to each backend in use, and shows it.
func (pg *setupPage) check(w http.ResponseWriter, r *http.Request, offline bool) {
	ctx, cancel := context.WithTimeout(r.Context(), checklistTimeout)
	defer cancel()
	p := setupView{Server: serverLine(pg.h.app.Glance()), CSRF: pg.h.csrf, Queried: !offline}
	p.Checks, p.Broken = viewChecks(pg.h.app.Checklist(ctx, offline))
	if !offline {
		pg.h.log.Info("checked the setup with a query to each backend", "broken", p.Broken)
	}
	pg.h.render(w, "setup.html", p)
}
