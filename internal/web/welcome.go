package web

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/clients"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
)

// The first-run page, /welcome: the tray opens it once, at its first start, and from its menu. It walks through
// what a new user needs, each step on one page: a backend (the Gemini CLI, or an API key), Firecrawl (optional),
// connecting an MCP client, and a search tried for real: a research job, whose progress the page follows live
// (/welcome/events), with Cancel, and whose report or error it shows when it ends.

// welcomePage serves /welcome. It saves keys as /settings does (Settings), connects MCP clients and starts a
// test search (Welcome), and follows that search live, with Cancel (Research, and /welcome/events).
type welcomePage struct {
	h *Handler
	s Settings
	w Welcome
	r Research
}

// defaultTryQuery is the search the page offers to try.
const defaultTryQuery = "What is the Model Context Protocol, in three sentences?"

// welcomeKeys are the keys the page saves, in its order: the backend's, then Firecrawl's.
var welcomeKeys = []string{"GEMINI_API_KEY", "FIRECRAWL_API_KEY"}

type welcomeView struct {
	Server  string
	CSRF    string
	Checks  []checkView
	Broken  bool              // a check failed that is not a hint: searches will fail
	Saved   map[string]string // each key of welcomeKeys the .env file holds, masked (••••abcd)
	Clients []welcomeClient
	Token   linkToken
	Done    string // what the last form did: "Saved." or "Connected Cursor…"
	Error   string // why the last form did nothing
	Query   string
	Try     *tryView // the test search, once started (or refused)
	Script  *liveScript
}

// tryView is the test search as the page shows it: running, with its stage, elapsed time and Cancel; or ended, with
// its report or why it failed and the fix.
type tryView struct {
	Progress
	CSRF    string
	Elapsed string
	Tried   *reportView // its report, when it answered
}

// linkToken says whether the server asks for MCP_AUTH_TOKEN (Set), and whether the install links carry it
// (InLinks): only once the person asked for it, since a link is a URL, kept in a browser's history.
type linkToken struct{ Set, InLinks bool }

type welcomeClient struct {
	Name, Path, State string // State is why the file cannot be read, for one that cannot
	Action            string // "Connect", or "Update" for an entry that points at an old address; "" otherwise
	Connected         bool
	HasEntry          bool   // connected, or to an old address: Disconnect removes the entry
	Link              string // the one-click install link, for Cursor, VS Code and LM Studio
}

// view is what the page shows now.
func (pg *welcomePage) view(ctx context.Context) welcomeView {
	p := welcomeView{Server: serverLine(pg.h.app.Glance()), CSRF: pg.h.csrf, Query: defaultTryQuery, Saved: map[string]string{}}
	p.Checks, p.Broken = viewChecks(pg.h.app.Checklist(ctx, true))
	if _, saved, err := pg.h.readDotenv(); err == nil {
		for _, name := range welcomeKeys {
			p.Saved[name] = config.Secret(saved[name]).Last4()
		}
	}
	p.Clients, p.Token.Set = pg.clients(false)
	return p
}

// clients are the MCP clients as the page lists them: state, Connect or Disconnect, and install links, which carry
// the bearer token when withToken; tokenSet says the server asks for one.
func (pg *welcomePage) clients(withToken bool) (list []welcomeClient, tokenSet bool) {
	for _, c := range pg.w.Clients() {
		status := c.Status()
		wc := welcomeClient{Name: c.Name, Path: c.Path, State: status.String(),
			HasEntry: status.State == clients.Connected || status.State == clients.Outdated}
		switch status.State {
		case clients.NotConnected:
			wc.Action = "Connect"
		case clients.Outdated:
			wc.Action = "Update"
		case clients.Connected:
			wc.Connected = true
		}
		if link, err := c.InstallLink(withToken); err == nil {
			wc.Link = link
		}
		tokenSet = tokenSet || c.NeedsToken()
		list = append(list, wc)
	}
	return list, tokenSet
}

// get shows the page, and the test search ?try= when there is one: followed live while it runs.
func (pg *welcomePage) get(w http.ResponseWriter, r *http.Request) {
	p := pg.view(r.Context())
	p.Done = r.URL.Query().Get("done")
	if p.Token.Set && r.URL.Query().Get("bearer") == "1" { // asked for on the page: "put my token in the links"
		p.Clients, _ = pg.clients(true)
		p.Token.InLinks = true
	}
	if id := r.URL.Query().Get("try"); id != "" {
		t, err := pg.try(id)
		if errors.Is(err, record.ErrNotFound) {
			pg.h.notFound(w, "research", "the test search "+id+" is not known (it ended too long ago, or the server "+
				"started again since)")
			return
		}
		if err != nil {
			t = &tryView{Progress: Progress{ID: id, State: record.JobFailed, Failed: searchError(err)}}
		}
		p.Try, p.Query = t, cmp.Or(t.Topic, p.Query)
		if t.Running() {
			p.Script = &liveScript{Nonce: withScripts(w), Events: "/welcome/events?" + url.Values{"try": {id}}.Encode(),
				Target: "try-live"}
		}
	}
	pg.h.render(w, "welcome.html", p)
}

// post does what one of the page's forms asks: save keys, connect a client, or try a search.
func (pg *welcomePage) post(w http.ResponseWriter, r *http.Request) {
	switch r.PostForm.Get("action") {
	case "keys":
		done, err := pg.saveKeys(r)
		pg.done(w, r, "#backend", done, err)
	case "connect", "disconnect":
		done, err := pg.changeClient(r.PostForm.Get("action"), r.PostForm.Get("client"))
		pg.done(w, r, "#clients", done, err)
	case "try":
		pg.trySearch(w, r)
	case "cancel":
		pg.cancelSearch(w, r)
	default:
		http.Error(w, "Unknown form", http.StatusBadRequest)
	}
}

// done shows the page again after a form that changed something: at the anchor of its step with what it did
// (a redirect, so a reload does not send the form again), or with why it did nothing.
func (pg *welcomePage) done(w http.ResponseWriter, r *http.Request, anchor, done string, err error) {
	if err == nil {
		http.Redirect(w, r, "/welcome?"+url.Values{"done": {done}}.Encode()+anchor, http.StatusSeeOther)
		return
	}
	p := pg.view(r.Context())
	p.Error = err.Error()
	w.WriteHeader(http.StatusUnprocessableEntity)
	pg.h.render(w, "welcome.html", p)
}

// saveKeys saves the keys entered on the page into the .env file and applies them; an empty field keeps the saved
// key.
func (pg *welcomePage) saveKeys(r *http.Request) (string, error) {
	old, _, err := pg.h.readDotenv()
	if err != nil && old == nil {
		return "", err
	}
	var changes []config.Assignment
	for _, name := range welcomeKeys {
		if value := strings.TrimSpace(r.PostForm.Get(name)); value != "" {
			changes = append(changes, config.Assignment{Name: name, Value: value})
		}
	}
	if len(changes) == 0 {
		return "", errors.New("nothing was saved: enter a key first")
	}
	if _, err := pg.s.SaveDotenv(config.UpdateDotenv(old, changes)); err != nil {
		var notApplied *NotAppliedError
		if errors.As(err, &notApplied) {
			return "", err
		}
		return "", errors.New("nothing was saved: " + err.Error())
	}
	pg.h.log.Info("keys saved from the first-run page", "file", config.EnvPath(pg.h.app.Glance().Config.Dir))
	return "Saved and applied.", nil
}

// changeClient adds this server to the client named name (action "connect"), or removes it ("disconnect").
func (pg *welcomePage) changeClient(action, name string) (string, error) {
	for _, c := range pg.w.Clients() {
		if c.Name != name {
			continue
		}
		change, done := c.Connect, "Connected "+c.Name+": restart it to load the server."
		if action == "disconnect" {
			change, done = c.Disconnect, "Removed this server from "+c.Name+"."
		}
		backup, err := change(pg.h.now())
		if err != nil {
			return "", err
		}
		pg.h.log.Info(action+" "+c.Name, "file", c.Path, "backup", backup)
		return done, nil
	}
	return "", errors.New("no MCP client is called " + name)
}

// trySearch starts the query of the form as a research job, then shows the page that follows it (a redirect, so
// that a reload does not start another).
func (pg *welcomePage) trySearch(w http.ResponseWriter, r *http.Request) {
	query := strings.TrimSpace(r.PostForm.Get("query"))
	if query == "" {
		pg.done(w, r, "", "", errors.New("enter a question to search for"))
		return
	}
	id, err := pg.w.TrySearch(query)
	if err != nil { // refused before it started: shown where its outcome would be
		p := pg.view(r.Context())
		p.Query = query
		p.Try = &tryView{Progress: Progress{Tool: "search", Topic: query, State: record.JobFailed, Failed: searchError(err)}}
		w.WriteHeader(http.StatusUnprocessableEntity)
		pg.h.render(w, "welcome.html", p)
		return
	}
	pg.h.log.Info("test search started from the first-run page", "research_id", id)
	http.Redirect(w, r, tryLink(id), http.StatusSeeOther)
}

// tryLink is the address of the page that follows the test search id.
func tryLink(id string) string { return "/welcome?" + url.Values{"try": {id}}.Encode() + "#try" }

// searchError is err as the pages show a failed search: a *SearchError as it is, anything else as an internal error.
func searchError(err error) *SearchError {
	var failed *SearchError
	if errors.As(err, &failed) {
		return failed
	}
	return &SearchError{Code: backend.CodeInternal, Message: err.Error()}
}

// cancelSearch cancels the test search of the form, then shows how it ended.
func (pg *welcomePage) cancelSearch(w http.ResponseWriter, r *http.Request) {
	id := r.PostForm.Get("research")
	if !record.ValidJobID(id) {
		pg.h.notFound(w, "research", "this is not a research id")
		return
	}
	if err := pg.r.Cancel(r.Context(), id); err != nil {
		pg.done(w, r, "", "", fmt.Errorf("the test search was not cancelled: %s", searchError(err).Message))
		return
	}
	pg.h.log.Info("test search cancelled from the first-run page", "research_id", id)
	http.Redirect(w, r, tryLink(id), http.StatusSeeOther)
}

// try is the test search id as the page shows it; record.ErrNotFound for one the app does not know.
func (pg *welcomePage) try(id string) (*tryView, error) {
	if !record.ValidJobID(id) {
		return nil, record.ErrNotFound
	}
	progress, err := pg.r.Follow(id)
	if err != nil {
		return nil, err
	}
	t := &tryView{Progress: progress, CSRF: pg.h.csrf}
	switch {
	case progress.Running():
		t.Elapsed = activity.Run{Started: progress.Started}.Elapsed(pg.h.now())
	case progress.Report != nil:
		page, err := viewReport(*progress.Report)
		if err != nil {
			t.State, t.Failed = record.JobFailed, &SearchError{Code: backend.CodeInternal,
				Message: "the report could not be shown: " + err.Error()}
			break
		}
		t.Tried = &page
	case progress.Failed == nil: // ended without a report or an error: the library keeps neither
		t.Failed = &SearchError{Code: backend.CodeInternal, Message: "the search ended, but its report is not kept"}
	}
	return t, nil
}

// events streams the test search ?try= as the page shows it: after each change, every second while it runs (its
// elapsed time moves), and once more when it ends.
func (pg *welcomePage) events(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("try")
	if _, err := pg.try(id); err != nil {
		http.NotFound(w, r)
		return
	}
	pg.h.stream(w, r, func() frame {
		t, err := pg.try(id)
		if err != nil { // forgotten meanwhile: the page keeps what it showed
			t = &tryView{Progress: Progress{ID: id, State: record.JobFailed,
				Failed: &SearchError{Code: backend.CodeResearchNotFound, Message: "the search is no longer known"}}}
		}
		return frame{template: "welcome-try", data: t, ticking: t.Running(), last: !t.Running()}
	})
}
