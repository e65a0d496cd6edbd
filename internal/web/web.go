// Package web serves the pages next to /mcp: /settings (the tray's only), where people edit the API keys, the
// backend and the other common settings (saved to the config dir's .env); /status, the live view of running
// searches, recent errors and recent research (kept current by server-sent events from /status/events) for people
// without a tray, and on the headless HTTP server; /history, the research library (its reports, searched and paged,
// and the research running now, kept current the same way); /report?id=..., a report of the library rendered from
// its Markdown, with Copy Markdown, Download .md (/report/markdown?id=...), Re-run and Delete; /setup, doctor's
// checklist for the configuration in force, with a button that sends the real queries; and /welcome (the tray's
// only), the first-run page: a backend, Firecrawl, a client, a test search followed live.
//
// Every page needs the per-launch token: the tray's menu, or the link in the log, opens /settings?token=..., which
// sets an HttpOnly, SameSite=Strict cookie and redirects to the bare URL; without the cookie every page answers
// 403. A POST also needs the form's CSRF token and an Origin of this very server. The pages work without
// JavaScript; their few scripts (live updates, copying, confirming) run under a per-page CSP nonce.
package web

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/appstate"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/checklist"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/clients"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/loopback"
)

//go:embed pages/*.html
var pagesFS embed.FS

// pages are the templates; each Handler binds "version" to its app's.
var pages = template.Must(template.New("").Funcs(template.FuncMap{
	"clock":   func(t time.Time) string { return t.Local().Format("15:04:05") },
	"stamp":   func(t time.Time) string { return t.Local().Format("2006-01-02 15:04:05") },
	"version": func() string { return "" },
}).ParseFS(pagesFS, "pages/*.html"))

// App is what the pages read from the running app: one snapshot of its state and a signal of its next change, the
// reports its library keeps, the research running in other servers that share the library, and its setup checks.
type App interface {
	State() appstate.State
	Glance() appstate.State                  // State without the activity's lists, the library and the usage
	Changed() <-chan struct{}                // closed at the next change of State
	Report(id string) (record.Report, error) // a report of the library; record.ErrNotFound for one it does not keep
	// Browse is one page of the library's reports, newest first: those that hold every word of query (every one
	// for a query without words), past the first offset, at most limit, each with a one-line excerpt; and total,
	// how many there are in all.
	Browse(query string, offset, limit int) (page []record.Summary, total int, err error)
	// ResearchElsewhere is the research running in the other server processes that share the library (a Claude
	// Desktop stdio server beside the tray, say), newest first: this server can only show it.
	ResearchElsewhere() []record.Job
	// Checklist runs doctor's checks on the configuration in force; offline sends no query to the backends, and
	// ctx bounds the queries.
	Checklist(ctx context.Context, offline bool) []checklist.Check
}

// Settings is what /settings does: it saves the .env file. Pages without Settings serve /status, /history, /report
// and /setup alone, as the headless server's do.
type Settings interface {
	// SaveDotenv checks data as the app's .env file, given its process environment and command-line flags too,
	// then writes it and applies it. moved is the new base URL (http://host:port) when the server is about to move
	// there, else "". An error means nothing was written: a *RefusedError when the app would not run with data
	// (each bad value a *config.InvalidError in an errors.Join), another error when writing failed. The one
	// exception is a *NotAppliedError: the file was written but the app could not apply it.
	SaveDotenv(data []byte) (moved string, err error)
}

// Welcome is what /welcome, the first-run page, does besides saving keys (Settings) and following research
// (Research): it connects MCP clients and starts a test search.
type Welcome interface {
	Clients() []clients.Client // the MCP clients' entries for this server
	// TrySearch starts query as a research job of the search tool, as a client's call would (among the running
	// searches, into the library), never answered from the cache, and returns the job's id at once. A search
	// refused at its start is a *SearchError.
	TrySearch(query string) (researchID string, err error)
}

// Research is what the pages do with research: follow a research job, cancel it, research a kept report again, and
// delete one. Pages without it show the library and the running research, and do none of that.
type Research interface {
	// Follow is the research job id now: running, at its stage, or ended, with its report or why it failed.
	// record.ErrNotFound for an id the app does not know, or no longer.
	Follow(id string) (Progress, error)
	// Cancel cancels the research job id, which this server runs, and returns once it has ended (or ctx has). A
	// job it cannot cancel is a *SearchError.
	Cancel(ctx context.Context, id string) error
	// Rerun starts the research of the kept report id again, as a research job, and returns the job's id at once.
	// record.ErrNotFound for a report not kept; a research that cannot start is a *SearchError.
	Rerun(id string) (researchID string, err error)
	// Delete removes the kept report id from the library; record.ErrNotFound for one it does not keep.
	Delete(id string) error
}

// Progress is a research job as the pages follow it.
type Progress struct {
	ID       string
	Tool     string
	Topic    string
	State    record.JobState
	Stage    string // what it does now, while it runs
	Started  time.Time
	Report   *record.Report // its report, once done
	ReportID string         // its report's id in the library, once done; "" when the library does not keep it
	Failed   *SearchError   // why it failed, or was cancelled or interrupted, and the fix
}

// Running reports whether the research still runs.
func (p Progress) Running() bool { return p.State == record.JobRunning }

// Forms are the pages, and the parts of pages, that change something; a nil one is not served (a 404).
type Forms struct {
	Settings Settings // /settings
	Welcome  Welcome  // /welcome, served only with Settings (its keys are saved as settings) and Research
	Research Research // Re-run and Delete on /report, Cancel on /history, and /welcome's test search
}

// SearchError is a search that failed, as the tools report it: its code, what went wrong, and the fix.
type SearchError struct {
	Code    backend.Code `json:"code"`
	Message string       `json:"message"`
	Details string       `json:"details"`
}

func (e *SearchError) Error() string { return string(e.Code) + ": " + e.Message }

// RefusedError is SaveDotenv's error when the app would not run with the proposed .env file.
type RefusedError struct{ Err error }

func (e *RefusedError) Error() string { return e.Err.Error() }
func (e *RefusedError) Unwrap() error { return e.Err }

// NotAppliedError is SaveDotenv's error when the .env file was written but the app could not apply it.
type NotAppliedError struct{ Err error }

func (e *NotAppliedError) Error() string { return "saved, but not applied: " + e.Err.Error() }
func (e *NotAppliedError) Unwrap() error { return e.Err }

// Handler serves /settings, /welcome, /status, /history, /report and /setup. It holds what the pages share (the
// launch token, the session cookie, the guard every request passes, the templates, the stream of their live parts)
// and routes each request to its page: one type per page, each in its file (settings.go, welcome.go, status.go,
// history.go, report.go, setup.go).
type Handler struct {
	app      App
	research Research // nil: the pages change nothing in the library
	pages    *template.Template
	token    string
	cookie   string // the session cookie's value: derived from the token, so that a leaked cookie is not the token
	csrf     string
	log      *slog.Logger
	now      func() time.Time

	settings *settingsPage // nil: no settings page
	welcome  *welcomePage  // nil: no first-run page
	status   *statusPage
	history  *historyPage
	report   *reportPage
	setup    *setupPage
}

// pagePolicy is every page's Content-Security-Policy: no script, no request elsewhere. A page with scripts of its
// own allows them by a nonce (withScripts).
const pagePolicy = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'"

// withScripts sets the Content-Security-Policy of a page that has scripts of its own: those that carry the nonce it
// returns run, and may read this server's event streams.
func withScripts(w http.ResponseWriter) (nonce string) {
	nonce = NewToken()[:32]
	w.Header().Set("Content-Security-Policy", pagePolicy+"; script-src 'nonce-"+nonce+"'; connect-src 'self'")
	return nonce
}

// cookieName is the session cookie.
const cookieName = "gemini_search_session"

// derive is a value for one use (purpose) derived from token, which it does not reveal.
func derive(token, purpose string) string {
	mac := hmac.New(sha256.New, []byte(token))
	mac.Write([]byte(purpose))
	return hex.EncodeToString(mac.Sum(nil))
}

// NewToken returns a random token for one launch.
func NewToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}

// New returns the pages of a, and the forms that change it, guarded by token.
func New(a App, forms Forms, token string, logger *slog.Logger) *Handler {
	h := &Handler{app: a, research: forms.Research, token: token, cookie: derive(token, "cookie"),
		csrf: derive(token, "csrf"), log: logger, now: time.Now}
	h.status, h.history, h.report, h.setup = &statusPage{h: h}, &historyPage{h: h}, &reportPage{h: h}, &setupPage{h: h}
	if forms.Settings != nil {
		h.settings = &settingsPage{h: h, s: forms.Settings}
		if forms.Welcome != nil && forms.Research != nil { // its keys are saved as settings, its search followed
			h.welcome = &welcomePage{h: h, s: forms.Settings, w: forms.Welcome, r: forms.Research}
		}
	}
	version := a.Glance().Version // the library opens when a page shows it, not before
	h.pages = template.Must(pages.Clone()).Funcs(template.FuncMap{"version": func() string { return version }})
	return h
}

// Mount serves the pages on mux: /status, /history, /report, /setup, and /settings and /welcome (a 404 when the
// backend has no settings).
func (h *Handler) Mount(mux *http.ServeMux) {
	for _, path := range []string{"/settings", "/welcome", "/welcome/events", "/status", "/status/events", "/history",
		"/history/events", "/report", "/report/markdown", "/setup"} {
		mux.Handle(path, h)
	}
}

// URL returns the address that opens page ("/settings", "/status", "/history", "/setup" or "/welcome") on base
// (http://host:port) with the token.
func (h *Handler) URL(base, page string) string {
	return base + page + "?token=" + h.token
}

// ReportURL returns the address that opens the report id of the library on base (http://host:port) with the token.
func (h *Handler) ReportURL(base, id string) string {
	return base + "/report?" + url.Values{"id": {id}, "token": {h.token}}.Encode()
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Content-Security-Policy", pagePolicy)
	w.Header().Set("Referrer-Policy", "same-origin")               // not no-referrer: Chromium would then send "Origin: null" with the form
	if !loopback.AllowedHost(r.Host, h.app.Glance().Config.Host) { // a DNS-rebinding page names a host of its own
		http.Error(w, "Forbidden: unknown host", http.StatusForbidden)
		return
	}
	if tok := r.URL.Query().Get("token"); tok != "" && r.Method == http.MethodGet {
		if !equal(tok, h.token) {
			h.forbidden(w, "the link's token is not this launch's (it changes each time the server starts)")
			return
		}
		http.SetCookie(w, &http.Cookie{Name: cookieName, Value: h.cookie, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		q := r.URL.Query()
		q.Del("token")
		target := r.URL.Path
		if len(q) > 0 {
			target += "?" + q.Encode()
		}
		http.Redirect(w, r, target, http.StatusSeeOther)
		return
	}
	if c, err := r.Cookie(cookieName); err != nil || !equal(c.Value, h.cookie) {
		h.forbidden(w, "open this page from the tray menu, or with the link in the log")
		return
	}
	switch {
	case r.URL.Path == "/settings" && h.settings == nil, strings.HasPrefix(r.URL.Path, "/welcome") && h.welcome == nil,
		r.Method == http.MethodPost && (r.URL.Path == "/history" || r.URL.Path == "/report") && h.research == nil:
		http.NotFound(w, r)
	case r.URL.Path == "/settings" && r.Method == http.MethodGet:
		h.settings.get(w, r)
	case r.URL.Path == "/settings" && r.Method == http.MethodPost:
		if !h.refusedPost(w, r, "a settings change") {
			h.settings.post(w, r)
		}
	case r.URL.Path == "/welcome" && r.Method == http.MethodGet:
		h.welcome.get(w, r)
	case r.URL.Path == "/welcome" && r.Method == http.MethodPost:
		if !h.refusedPost(w, r, "a first-run page form") {
			h.welcome.post(w, r)
		}
	case r.URL.Path == "/welcome/events" && r.Method == http.MethodGet:
		h.welcome.events(w, r)
	case r.URL.Path == "/status" && r.Method == http.MethodGet:
		h.status.get(w)
	case r.URL.Path == "/status/events" && r.Method == http.MethodGet:
		h.status.events(w, r)
	case r.URL.Path == "/history" && r.Method == http.MethodGet:
		h.history.get(w, r)
	case r.URL.Path == "/history" && r.Method == http.MethodPost:
		if !h.refusedPost(w, r, "a research library form") {
			h.history.post(w, r)
		}
	case r.URL.Path == "/history/events" && r.Method == http.MethodGet:
		h.history.events(w, r)
	case r.URL.Path == "/report" && r.Method == http.MethodGet:
		h.report.get(w, r)
	case r.URL.Path == "/report" && r.Method == http.MethodPost:
		if !h.refusedPost(w, r, "a report's action") {
			h.report.post(w, r)
		}
	case r.URL.Path == "/report/markdown" && r.Method == http.MethodGet:
		h.report.download(w, r)
	case r.URL.Path == "/setup" && r.Method == http.MethodGet:
		h.setup.check(w, r, true)
	case r.URL.Path == "/setup" && r.Method == http.MethodPost: // sends the queries: a form of this page only
		if !h.refusedPost(w, r, "a setup check") {
			h.setup.check(w, r, false)
		}
	default:
		http.Error(w, "Method not allowed", http.StatusMethodNotAllowed)
	}
}

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// refusedPost reports whether the POST r, a form of what ("a settings change"), was refused: it then has logged why
// and answered 403.
func (h *Handler) refusedPost(w http.ResponseWriter, r *http.Request, what string) bool {
	reason := h.checkPost(r)
	if reason == "" {
		return false
	}
	h.log.Warn("refused "+what, "reason", reason, "origin", r.Header.Get("Origin"))
	h.forbidden(w, reason)
	return true
}

// checkPost returns why a POST is refused, or "".
func (h *Handler) checkPost(r *http.Request) string {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return "the request has no Origin header"
	}
	if !loopback.SameOrigin(origin, r.Host) {
		return "the request comes from another site (" + origin + ")"
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		return "the request comes from another site (Sec-Fetch-Site: " + site + ")"
	}
	r.Body = http.MaxBytesReader(nil, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		return "the form could not be read"
	}
	if !equal(r.PostForm.Get("csrf"), h.csrf) {
		return "the form's CSRF token is missing or stale; reload the page"
	}
	return ""
}

func (h *Handler) forbidden(w http.ResponseWriter, reason string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusForbidden)
	h.render(w, "forbidden.html", map[string]string{"Reason": reason})
}

// notFound answers 404 with the page that says there is no such what ("report", "research") and why.
func (h *Handler) notFound(w http.ResponseWriter, what, reason string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusNotFound)
	h.render(w, "notfound.html", map[string]string{"What": what, "Reason": reason})
}

func (h *Handler) render(w http.ResponseWriter, name string, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := h.pages.ExecuteTemplate(w, name, data); err != nil {
		h.log.Error("render page", "page", name, "err", err)
	}
}

// readDotenv returns the .env file's contents and variables; a missing file is empty.
func (h *Handler) readDotenv() ([]byte, map[string]string, error) {
	return config.ReadDotenv(config.EnvPath(h.app.Glance().Config.Dir))
}
