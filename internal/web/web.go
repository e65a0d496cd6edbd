// Package web serves the pages next to /mcp: /settings (the tray's only), where people edit the API keys, the
// backend and the other common settings (saved to the config dir's .env); /status, the live view of running
// searches, recent errors and recent research (kept current by server-sent events from /status/events) for people
// without a tray, and on the headless HTTP server;
// /report?id=..., a report of the history rendered from its Markdown; /setup, doctor's checklist for the
// configuration in force, with a button that sends the real queries; and /welcome (the tray's only), the first-run
// page: a backend, Firecrawl, a client, a test search.
//
// Every page needs the per-launch token: the tray's menu, or the link in the log, opens /settings?token=..., which
// sets an HttpOnly, SameSite=Strict cookie and redirects to the bare URL; without the cookie every page answers
// 403. A POST also needs the form's CSRF token and an Origin of this very server.
package web

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"errors"
	"html/template"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/appstate"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/checklist"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/clients"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/history"
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
// reports its history keeps, and its setup checks.
type App interface {
	State() appstate.State
	Changed() <-chan struct{}                 // closed at the next change of State
	Report(id string) (history.Report, error) // a report of the history; history.ErrNotFound for one it does not keep
	// Checklist runs doctor's checks on the configuration in force; offline sends no query to the backends, and
	// ctx bounds the queries.
	Checklist(ctx context.Context, offline bool) []checklist.Check
}

// Settings is what /settings does: it saves the .env file. Pages without Settings serve /status, /report and /setup
// alone, read-only, as the headless server's do.
type Settings interface {
	// SaveDotenv checks data as the app's .env file, given its process environment and command-line flags too,
	// then writes it and applies it. moved is the new base URL (http://host:port) when the server is about to move
	// there, else "". An error means nothing was written: a *RefusedError when the app would not run with data
	// (each bad value a *config.InvalidError in an errors.Join), another error when writing failed. The one
	// exception is a *NotAppliedError: the file was written but the app could not apply it.
	SaveDotenv(data []byte) (moved string, err error)
}

// Welcome is what /welcome, the first-run page, does besides saving keys (Settings): it connects MCP clients and
// tries a search.
type Welcome interface {
	Clients() []clients.Client // the MCP clients' entries for this server
	// TrySearch runs query through the search tool as a client's call would (among the running searches, into the
	// history), never answered from the cache. A failed search is a *SearchError.
	TrySearch(ctx context.Context, query string) (history.Report, error)
}

// Forms are the pages that change something; a nil one is not served (a 404).
type Forms struct {
	Settings Settings // /settings
	Welcome  Welcome  // /welcome, served only with Settings: its keys are saved as settings
}

// SearchError is a search that failed, as the tools report it: its code, what went wrong, and the fix.
type SearchError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Details string `json:"details"`
}

func (e *SearchError) Error() string { return e.Code + ": " + e.Message }

// RefusedError is SaveDotenv's error when the app would not run with the proposed .env file.
type RefusedError struct{ Err error }

func (e *RefusedError) Error() string { return e.Err.Error() }
func (e *RefusedError) Unwrap() error { return e.Err }

// NotAppliedError is SaveDotenv's error when the .env file was written but the app could not apply it.
type NotAppliedError struct{ Err error }

func (e *NotAppliedError) Error() string { return "saved, but not applied: " + e.Err.Error() }
func (e *NotAppliedError) Unwrap() error { return e.Err }

// Handler serves /settings, /welcome, /status, /report and /setup.
type Handler struct {
	app    App
	pages  *template.Template
	s      Settings // nil: no settings page
	w      Welcome  // nil: no first-run page
	token  string
	cookie string // the session cookie's value: derived from the token, so that a leaked cookie is not the token
	csrf   string
	log    *slog.Logger
	now    func() time.Time
}

// pagePolicy is every page's Content-Security-Policy: no script, no request elsewhere. /status adds its one script.
const pagePolicy = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'"

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
	if forms.Settings == nil {
		forms.Welcome = nil // its keys are saved as settings
	}
	h := &Handler{app: a, s: forms.Settings, w: forms.Welcome, token: token, cookie: derive(token, "cookie"),
		csrf: derive(token, "csrf"), log: logger, now: time.Now}
	version := a.State().Version
	h.pages = template.Must(pages.Clone()).Funcs(template.FuncMap{"version": func() string { return version }})
	return h
}

// Mount serves the pages on mux: /status, /report, /setup, and /settings and /welcome (a 404 when the backend has
// no settings).
func (h *Handler) Mount(mux *http.ServeMux) {
	mux.Handle("/settings", h)
	mux.Handle("/welcome", h)
	mux.Handle("/status", h)
	mux.Handle("/status/events", h)
	mux.Handle("/report", h)
	mux.Handle("/setup", h)
}

// URL returns the address that opens page ("/settings", "/status", "/setup" or "/welcome") on base
// (http://host:port) with the token.
func (h *Handler) URL(base, page string) string {
	return base + page + "?token=" + h.token
}

// ReportURL returns the address that opens the report id of the history on base (http://host:port) with the token.
func (h *Handler) ReportURL(base, id string) string {
	return base + "/report?" + url.Values{"id": {id}, "token": {h.token}}.Encode()
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Content-Security-Policy", pagePolicy)
	w.Header().Set("Referrer-Policy", "same-origin")              // not no-referrer: Chromium would then send "Origin: null" with the form
	if !loopback.AllowedHost(r.Host, h.app.State().Config.Host) { // a DNS-rebinding page names a host of its own
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
	case r.URL.Path == "/settings" && h.s == nil, r.URL.Path == "/welcome" && h.w == nil:
		http.NotFound(w, r)
	case r.URL.Path == "/settings" && r.Method == http.MethodGet:
		h.getSettings(w, r)
	case r.URL.Path == "/settings" && r.Method == http.MethodPost:
		if !h.refusedPost(w, r, "a settings change") {
			h.postSettings(w, r)
		}
	case r.URL.Path == "/welcome" && r.Method == http.MethodGet:
		h.getWelcome(w, r)
	case r.URL.Path == "/welcome" && r.Method == http.MethodPost:
		if !h.refusedPost(w, r, "a first-run page form") {
			h.postWelcome(w, r)
		}
	case r.URL.Path == "/status" && r.Method == http.MethodGet:
		h.getStatus(w)
	case r.URL.Path == "/status/events" && r.Method == http.MethodGet:
		h.statusEvents(w, r)
	case r.URL.Path == "/report" && r.Method == http.MethodGet:
		h.getReport(w, r)
	case r.URL.Path == "/setup" && r.Method == http.MethodGet:
		h.checkSetup(w, r, true)
	case r.URL.Path == "/setup" && r.Method == http.MethodPost: // sends the queries: a form of this page only
		if !h.refusedPost(w, r, "a setup check") {
			h.checkSetup(w, r, false)
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

func (h *Handler) render(w http.ResponseWriter, name string, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := h.pages.ExecuteTemplate(w, name, data); err != nil {
		h.log.Error("render page", "page", name, "err", err)
	}
}

type statusPage struct {
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
	history.Summary
	When string
}

type runView struct {
	activity.Run
	Elapsed string
}

// statusNow is what /status shows now.
func (h *Handler) statusNow() statusPage {
	st := h.app.State()
	snap := st.Activity
	p := statusPage{Server: st.Server.Line(), Failures: slices.Concat(snap.Failures, snap.Warnings),
		Errors: len(snap.Failures), Warnings: len(snap.Warnings), Kept: st.Kept}
	for _, run := range snap.Running {
		p.Running = append(p.Running, runView{Run: run, Elapsed: run.Elapsed(h.now())})
	}
	for _, s := range st.Recent { // as many as the state holds (appstate.RecentMax)
		p.Recent = append(p.Recent, recentView{Summary: s, When: s.When(h.now())})
	}
	return p
}

func (h *Handler) getStatus(w http.ResponseWriter) {
	p := h.statusNow()
	p.Nonce = NewToken()[:32]
	w.Header().Set("Content-Security-Policy", pagePolicy+"; script-src 'nonce-"+p.Nonce+"'; connect-src 'self'")
	h.render(w, "status.html", p)
}

// eventsGap is the least time between two events of /status/events, so that a burst of changes (a search's
// progress) is sent as one.
const eventsGap = 250 * time.Millisecond

// statusEvents streams the live part of /status as server-sent events: at once, then after each change of what it
// shows, and every second while searches run (their elapsed times move), until the client leaves or the server
// stops.
func (h *Handler) statusEvents(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming is not supported here", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	var part strings.Builder
	for {
		changed := h.app.Changed()
		p := h.statusNow()
		part.Reset()
		if err := h.pages.ExecuteTemplate(&part, "status-live", p); err != nil {
			h.log.Error("render page", "page", "status-live", "err", err)
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

// checklistTimeout bounds a run of the checklist on top of the request: doctor gives each backend's query 30 s,
// and the queries run at once, after the Gemini CLI's version check (15 s at most).
const checklistTimeout = time.Minute

type setupPage struct {
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

// checkSetup runs the checklist, offline or with a query to each backend in use, and shows it.
func (h *Handler) checkSetup(w http.ResponseWriter, r *http.Request, offline bool) {
	ctx, cancel := context.WithTimeout(r.Context(), checklistTimeout)
	defer cancel()
	p := setupPage{Server: h.app.State().Server.Line(), CSRF: h.csrf, Queried: !offline}
	p.Checks, p.Broken = viewChecks(h.app.Checklist(ctx, offline))
	if !offline {
		h.log.Info("checked the setup with a query to each backend", "broken", p.Broken)
	}
	h.render(w, "setup.html", p)
}

// field is one setting on the page.
//
// A secret's value never reaches the page: the field shows the saved one masked (SavedMasked), an empty
// submission keeps it, and the Clear checkbox removes it.
type field struct {
	config.VarDoc
	Value       string // from the .env file, or a refused form's; never a secret's
	SavedMasked string // a secret's value in the .env file as ••••abcd; "" when the file has none
	Error       string
	Overridden  bool   // set in the process environment or by a flag, which win over .env
	Flag        string // the command-line flag that set it ("--port"), when Overridden by one
	Effective   string // the value in force when Overridden (masked for secrets)
}

// Clear is the name of a secret's "Remove the saved key" checkbox.
func (f field) Clear() string { return clearName(f.Name) }

func clearName(name string) string { return "clear_" + name }

// option is one choice of a select field.
type option struct {
	Value    string
	Selected bool
}

// Choices are a select field's options with the one in force selected: the field's value, else its default. A
// value that is none of them (a hand-edited file's, a refused form's) is offered too, selected, so the page shows
// what it holds instead of quietly saving another value.
func (f field) Choices() []option {
	current := cmp.Or(f.Value, f.Default)
	var opts []option
	found := false
	for _, o := range f.Options {
		selected := strings.EqualFold(o, current) // config accepts any case
		found = found || selected
		opts = append(opts, option{Value: o, Selected: selected})
	}
	if !found && current != "" {
		opts = append(opts, option{Value: current, Selected: true})
	}
	return opts
}

type settingsPage struct {
	Fields     []field
	CSRF       string
	Saved      bool
	NotApplied string // why the saved settings could not be applied
	Moved      string // the new address after a port change
	Error      string
	Server     string
	DotenvPath string
}

// pageVars are the variables the page shows: those with a label, in config's order.
func pageVars() []config.VarDoc {
	var vars []config.VarDoc
	for _, v := range config.EnvVars() {
		if v.Label != "" {
			vars = append(vars, v)
		}
	}
	return vars
}

// readDotenv returns the .env file's contents and variables; a missing file is empty.
func (h *Handler) readDotenv() ([]byte, map[string]string, error) {
	return config.ReadDotenv(config.EnvPath(h.app.State().Config.Dir))
}

// page shows the settings with values in the fields (the .env file's, or a rejected form's) and the secrets
// saved in the .env file, saved, masked (the page never shows a key it did not save).
func (h *Handler) page(values map[string]string, saved map[string]string) settingsPage {
	st := h.app.State()
	cfg := st.Config
	p := settingsPage{CSRF: h.csrf, Server: st.Server.Line(), DotenvPath: config.EnvPath(cfg.Dir)}
	for _, v := range pageVars() {
		f := field{VarDoc: v, Value: values[v.Name], Overridden: cfg.Overridden[v.Name], Flag: cfg.SetBy[v.Name]}
		if f.Overridden {
			f.Effective = cfg.Shown(v.Name)
		}
		if v.Secret {
			f.Value, f.SavedMasked = "", config.Secret(saved[v.Name]).Last4()
		}
		p.Fields = append(p.Fields, f)
	}
	return p
}

func (h *Handler) getSettings(w http.ResponseWriter, r *http.Request) {
	_, values, err := h.readDotenv()
	p := h.page(values, values)
	p.Saved = r.URL.Query().Get("saved") == "1"
	if err != nil {
		p.Error = err.Error()
	}
	h.render(w, "settings.html", p)
}

func (h *Handler) postSettings(w http.ResponseWriter, r *http.Request) {
	old, saved, err := h.readDotenv()
	if err != nil && old == nil { // unreadable; a malformed file is refused with its line by SaveDotenv
		p := h.page(map[string]string{}, map[string]string{})
		p.Error = err.Error()
		w.WriteHeader(http.StatusInternalServerError)
		h.render(w, "settings.html", p)
		return
	}
	submitted := map[string]string{}
	var changes []config.Assignment
	for _, v := range pageVars() {
		value := strings.TrimSpace(r.PostForm.Get(v.Name))
		submitted[v.Name] = value
		if v.Secret {
			switch {
			case r.PostForm.Get(clearName(v.Name)) == "on":
				value = ""
			case value == "":
				continue // keep the saved key: the page never shows it
			}
		}
		changes = append(changes, config.Assignment{Name: v.Name, Value: value})
	}
	data := config.UpdateDotenv(old, changes)

	moved, err := h.s.SaveDotenv(data)
	var (
		refused    *RefusedError
		notApplied *NotAppliedError
	)
	switch {
	case errors.As(err, &refused):
		p := h.page(submitted, saved)
		h.markRefused(&p, refused.Err)
		w.WriteHeader(http.StatusUnprocessableEntity)
		h.render(w, "settings.html", p)
	case errors.As(err, &notApplied):
		h.log.Error("settings saved but not applied", "file", config.EnvPath(h.app.State().Config.Dir), "err", notApplied.Err)
		_, values, _ := h.readDotenv()
		p := h.page(values, values)
		p.NotApplied = notApplied.Err.Error()
		h.render(w, "settings.html", p)
	case err != nil:
		h.log.Error("save settings", "err", err)
		p := h.page(submitted, saved)
		p.Error = "Nothing was saved: " + err.Error()
		w.WriteHeader(http.StatusInternalServerError)
		h.render(w, "settings.html", p)
	case moved != "":
		h.log.Info("settings saved", "file", config.EnvPath(h.app.State().Config.Dir))
		_, values, _ := h.readDotenv()
		p := h.page(values, values)
		p.Saved, p.Moved = true, moved+"/settings"
		h.render(w, "settings.html", p)
	default:
		h.log.Info("settings saved", "file", config.EnvPath(h.app.State().Config.Dir))
		http.Redirect(w, r, "/settings?saved=1", http.StatusSeeOther)
	}
}

// markRefused shows why the app refused the form: each bad value at its field, anything else in the banner.
func (h *Handler) markRefused(p *settingsPage, err error) {
	byName := map[string]*field{}
	for i := range p.Fields {
		byName[p.Fields[i].Name] = &p.Fields[i]
	}
	var other []string
	for _, e := range unjoin(err) {
		var inv *config.InvalidError
		if errors.As(e, &inv) && byName[inv.Var] != nil {
			byName[inv.Var].Error = inv.Reason
			continue
		}
		other = append(other, e.Error())
	}
	p.Error = "Nothing was saved: fix the values marked below."
	if len(other) > 0 {
		p.Error = "Nothing was saved: " + strings.Join(other, "; ")
	}
	for i := range p.Fields {
		if f := &p.Fields[i]; f.Secret && f.Error != "" {
			f.Error += " (enter the key again)"
		}
	}
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
