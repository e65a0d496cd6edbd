package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/clients"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
)

// The first-run page, /welcome: the tray opens it once, at its first start, and from its menu. It walks through
// what a new user needs, each step on one page: a backend (the Gemini CLI, or an API key), Firecrawl (optional),
// connecting an MCP client, and a search tried for real.

// welcomePage serves /welcome. It saves keys as /settings does (Settings), and connects MCP clients
// and tries a search (Welcome).
type welcomePage struct {
	h *Handler
	s Settings
	w Welcome
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
	Done    string // what the last form did: "Saved." or "Connected Cursor…"
	Error   string // why the last form did nothing
	Query   string
	Tried   *reportView  // the search tried, when it answered
	Failed  *SearchError // the search tried, when it failed
}

type welcomeClient struct {
	Name, Path, State string // State is why the file cannot be read, for one that cannot
	Action            string // "Connect", or "Update" for an entry that points at an old address; "" otherwise
	Connected         bool
}

// view is what the page shows now.
func (pg *welcomePage) view(ctx context.Context) welcomeView {
	p := welcomeView{Server: pg.h.app.State().Server.Line(), CSRF: pg.h.csrf, Query: defaultTryQuery, Saved: map[string]string{}}
	p.Checks, p.Broken = viewChecks(pg.h.app.Checklist(ctx, true))
	if _, saved, err := pg.h.readDotenv(); err == nil {
		for _, name := range welcomeKeys {
			p.Saved[name] = config.Secret(saved[name]).Last4()
		}
	}
	for _, c := range pg.w.Clients() {
		status := c.Status()
		wc := welcomeClient{Name: c.Name, Path: c.Path, State: status.String()}
		switch status.State {
		case clients.NotConnected:
			wc.Action = "Connect"
		case clients.Outdated:
			wc.Action = "Update"
		case clients.Connected:
			wc.Connected = true
		}
		p.Clients = append(p.Clients, wc)
	}
	return p
}

func (pg *welcomePage) get(w http.ResponseWriter, r *http.Request) {
	p := pg.view(r.Context())
	p.Done = r.URL.Query().Get("done")
	pg.h.render(w, "welcome.html", p)
}

// post does what one of the page's forms asks: save keys, connect a client, or try a search.
func (pg *welcomePage) post(w http.ResponseWriter, r *http.Request) {
	switch r.PostForm.Get("action") {
	case "keys":
		done, err := pg.saveKeys(r)
		pg.done(w, r, "#backend", done, err)
	case "connect":
		done, err := pg.connectClient(r.PostForm.Get("client"))
		pg.done(w, r, "#clients", done, err)
	case "try":
		pg.trySearch(w, r)
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
	pg.h.log.Info("keys saved from the first-run page", "file", config.EnvPath(pg.h.app.State().Config.Dir))
	return "Saved and applied.", nil
}

// connectClient adds this server to the client named name.
func (pg *welcomePage) connectClient(name string) (string, error) {
	for _, c := range pg.w.Clients() {
		if c.Name != name {
			continue
		}
		backup, err := c.Connect(pg.h.now())
		if err != nil {
			return "", err
		}
		pg.h.log.Info("connect to "+c.Name, "file", c.Path, "backup", backup)
		return "Connected " + c.Name + ": restart it to load the server.", nil
	}
	return "", errors.New("no MCP client is called " + name)
}

// trySearch runs the query of the form and shows its report, or why it failed, at the page's last step.
func (pg *welcomePage) trySearch(w http.ResponseWriter, r *http.Request) {
	query := strings.TrimSpace(r.PostForm.Get("query"))
	if query == "" {
		pg.done(w, r, "", "", errors.New("enter a question to search for"))
		return
	}
	rep, err := pg.w.TrySearch(r.Context(), query)
	p := pg.view(r.Context())
	p.Query = query
	var failed *SearchError
	switch {
	case errors.As(err, &failed):
		p.Failed = failed
	case err != nil:
		p.Failed = &SearchError{Code: backend.CodeInternal, Message: err.Error()}
	default:
		page, err := viewReport(rep)
		if err != nil {
			p.Failed = &SearchError{Code: backend.CodeInternal, Message: "the report could not be shown: " + err.Error()}
			break
		}
		p.Tried = &page
	}
	pg.h.render(w, "welcome.html", p)
}
