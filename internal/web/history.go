package web

import (
	"cmp"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
)

// historyPage is /history, the research library for people: the research running now at the top (kept current by
// /history/events), then the reports kept, newest first, a page at a time, searched by the words of their topic and
// text. Each report links to its page (/report?id=...).
type historyPage struct{ h *Handler }

// historyPageSize is how many reports a page of /history lists.
const historyPageSize = 25

type historyView struct {
	Script  liveScript
	Server  string
	Done    string // what the last form did
	Error   string // why the last form did nothing
	Query   string
	Page    int // from 1
	Pages   int
	Total   int // the reports kept, or those the query finds
	Reports []historyRow
	Newer   string // the link to the page before; "" on the first
	Older   string // the link to the page after; "" on the last
	Live    historyLive
	Usage   *record.UsageMeter // what the research used today and this month; nil without a library
}

// historyRow is one report as /history lists it.
type historyRow struct {
	record.Summary
	Date string // when its research started, local time
}

// historyLive is the live part of /history: the research running now.
type historyLive struct {
	CSRF    string
	Cancel  bool // this server's research can be cancelled here
	Running []researchRow
}

// researchRow is one research running now.
type researchRow struct {
	ID        string // its research id; "" for a call that runs as no job (an MCP task)
	Tool      string
	Topic     string
	Stage     string
	Elapsed   string
	Elsewhere bool // another server process sharing the library runs it
}

// live is the research running now: this server's, oldest first, then that of the other servers sharing the
// library, newest first.
func (pg *historyPage) live() historyLive {
	now := pg.h.now()
	l := historyLive{CSRF: pg.h.csrf, Cancel: pg.h.research != nil}
	seen := map[string]bool{}
	for _, run := range pg.h.app.State().Activity.Running {
		l.Running = append(l.Running, researchRow{ID: run.Research, Tool: run.Tool, Topic: run.Query, Stage: run.Stage,
			Elapsed: run.Elapsed(now)})
		seen[run.Research] = true
	}
	for _, j := range pg.h.app.ResearchElsewhere() {
		if seen[j.ID] {
			continue
		}
		l.Running = append(l.Running, researchRow{ID: j.ID, Tool: j.Tool, Topic: j.Topic,
			Stage: cmp.Or(j.Stage, "running"), Elapsed: activity.Run{Started: j.Started}.Elapsed(now), Elsewhere: true})
	}
	return l
}

// view is the page of reports numbered page (from 1; past the last: the last) that query finds.
func (pg *historyPage) view(query string, page int) (historyView, error) {
	st := pg.h.app.State()
	p := historyView{Server: serverLine(st), Query: query, Live: pg.live(), Usage: st.Usage}
	found, total, err := pg.h.app.Browse(query, (page-1)*historyPageSize, historyPageSize)
	if err != nil {
		return p, err
	}
	p.Total, p.Pages = total, max(1, (total+historyPageSize-1)/historyPageSize)
	if page > p.Pages { // a link to a page that is no more (reports were deleted): its last one
		page = p.Pages
		if found, total, err = pg.h.app.Browse(query, (page-1)*historyPageSize, historyPageSize); err != nil {
			return p, err
		}
		p.Total = total
	}
	p.Page = page
	for _, s := range found {
		p.Reports = append(p.Reports, historyRow{Summary: s, Date: s.Started.Local().Format("2006-01-02 15:04")})
	}
	if page > 1 {
		p.Newer = historyLink(query, page-1)
	}
	if page < p.Pages {
		p.Older = historyLink(query, page+1)
	}
	return p, nil
}

// historyLink is the address of page number page of the reports that query finds.
func historyLink(query string, page int) string {
	q := url.Values{}
	if query != "" {
		q.Set("q", query)
	}
	if page > 1 {
		q.Set("page", strconv.Itoa(page))
	}
	if len(q) == 0 {
		return "/history"
	}
	return "/history?" + q.Encode()
}

// get shows the page ?page= (from 1) of the reports that ?q= finds (every one without it).
func (pg *historyPage) get(w http.ResponseWriter, r *http.Request) {
	page, err := strconv.Atoi(r.URL.Query().Get("page"))
	if err != nil || page < 1 {
		page = 1
	}
	p, err := pg.view(strings.TrimSpace(r.URL.Query().Get("q")), page)
	p.Done = r.URL.Query().Get("done")
	pg.show(w, p, err, http.StatusOK)
}

// show renders p, with the error of reading the library in its banner.
func (pg *historyPage) show(w http.ResponseWriter, p historyView, err error, code int) {
	if err != nil {
		pg.h.log.Error("browse the research library", "err", err)
		p.Error, code = "The research library cannot be read: "+err.Error(), http.StatusInternalServerError
	}
	p.Script = liveScript{Nonce: withScripts(w), Events: "/history/events", Target: "live"}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	pg.h.render(w, "history.html", p)
}

// events streams the live part of /history, the research running now: after each change, and every second while
// research runs (its elapsed time moves).
func (pg *historyPage) events(w http.ResponseWriter, r *http.Request) {
	pg.h.stream(w, r, func() frame {
		l := pg.live()
		return frame{template: "history-live", data: l, ticking: len(l.Running) > 0}
	})
}

// post does what a form of the page asks: cancel research this server runs.
func (pg *historyPage) post(w http.ResponseWriter, r *http.Request) {
	if r.PostForm.Get("action") != "cancel" {
		http.Error(w, "Unknown form", http.StatusBadRequest)
		return
	}
	id := r.PostForm.Get("research")
	if !record.ValidJobID(id) {
		pg.h.notFound(w, "research", "this is not a research id")
		return
	}
	err := pg.h.research.Cancel(r.Context(), id)
	if err == nil {
		pg.h.log.Info("research cancelled from the research library page", "research_id", id)
		http.Redirect(w, r, "/history?"+url.Values{"done": {"Cancelled the research " + id + "."}}.Encode()+"#running",
			http.StatusSeeOther)
		return
	}
	p, readErr := pg.view("", 1)
	p.Error = "The research " + id + " was not cancelled: " + err.Error()
	var failed *SearchError
	if errors.As(err, &failed) {
		p.Error = "The research " + id + " was not cancelled: " + failed.Message + ". " + failed.Details
	}
	pg.show(w, p, readErr, http.StatusUnprocessableEntity)
}
