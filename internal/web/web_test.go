package web

import (
	"bufio"
	"context"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/appstate"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/broadcast"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/checklist"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/httpserver"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

// The keys in the .env file that setup writes.
const (
	firecrawlKey = "fc-0123456789abcdefWXYZ"
	geminiKey    = "AIza-gemini-5432109876-QRST"
)

// dotenv is the .env file that setup writes.
const dotenv = "# mine\nFIRECRAWL_API_KEY=" + firecrawlKey + "\nGEMINI_API_KEY=" + geminiKey + "\nOTHER=1\n"

// noKeys fails t when body holds a saved key, or a piece of one longer than the masked last four.
func noKeys(t *testing.T, body string) {
	t.Helper()
	for _, k := range []string{firecrawlKey, geminiKey, "0123456789", "5432109876"} {
		if strings.Contains(body, k) {
			t.Errorf("the page shows a saved key (%q)", k)
		}
	}
}

type fakeBackend struct {
	env      map[string]string // the process environment
	cfg      config.Config
	snap     activity.Snapshot
	library  *library.Library
	usage    *record.UsageMeter // the usage meter State gives
	saved    []byte
	refuse   error // why SaveDotenv refuses a file whose values are all valid
	applyErr error // why applying the saved file fails

	checklist func(ctx context.Context, offline bool) []checklist.Check // nil: no checks
	mu        sync.Mutex                                                // guards runs, snap and elsewhere
	runs      []bool                                                    // each Checklist call's offline
	elsewhere []record.Job                                              // research running in other servers
	changed   broadcast.Signal
}

// setActivity has the backend report snap from now on, as a change.
func (f *fakeBackend) setActivity(snap activity.Snapshot) {
	f.mu.Lock()
	f.snap = snap
	f.mu.Unlock()
	f.changed.Notify()
}

func (f *fakeBackend) Checklist(ctx context.Context, offline bool) []checklist.Check {
	f.mu.Lock()
	f.runs = append(f.runs, offline)
	f.mu.Unlock()
	if f.checklist == nil {
		return nil
	}
	return f.checklist(ctx, offline)
}

// checklistRuns returns the offline argument of each Checklist call so far.
func (f *fakeBackend) checklistRuns() []bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.runs)
}

func (f *fakeBackend) Config() config.Config { return f.cfg }
func (f *fakeBackend) Activity() activity.Snapshot {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.snap
}
func (f *fakeBackend) Changed() <-chan struct{}  { return f.changed.Changed() }
func (f *fakeBackend) Library() *library.Library { return f.library }
func (f *fakeBackend) Version() string           { return "1.2.3-test" }
func (f *fakeBackend) Status() httpserver.Status {
	return httpserver.Status{State: httpserver.Running, Addr: "127.0.0.1:3000"}
}
func (f *fakeBackend) Glance() appstate.State {
	return appstate.State{Version: f.Version(), Config: f.Config(), Server: f.Status()}
}
func (f *fakeBackend) State() appstate.State {
	return appstate.State{Version: f.Version(), Config: f.Config(), Server: f.Status(), Activity: f.Activity(),
		Recent: f.library.List(appstate.RecentMax), Kept: f.library.Len(), Usage: f.usage}
}
func (f *fakeBackend) Report(id string) (record.Report, error) { return f.library.Get(id) }
func (f *fakeBackend) Browse(query string, offset, limit int) ([]record.Summary, int, error) {
	return f.library.Browse(query, offset, limit)
}
func (f *fakeBackend) ResearchElsewhere() []record.Job {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.elsewhere)
}

func (f *fakeBackend) SaveDotenv(data []byte) (string, error) {
	_, invalid := config.LoadWithDotenv(config.Env{Lookup: f.lookup}, data)
	if old, _, err := config.ReadDotenv(config.EnvPath(f.cfg.Dir)); invalid != nil &&
		(err != nil || !config.HeldAsWritten(old, data, invalid)) {
		return "", &RefusedError{Err: invalid}
	}
	if f.refuse != nil {
		return "", &RefusedError{Err: f.refuse}
	}
	f.saved = data
	if err := config.WriteDotenv(config.EnvPath(f.cfg.Dir), data); err != nil {
		return "", err
	}
	if invalid != nil { // as the controller does: values the file held, kept as written, and nothing applied
		return "", &NotAppliedError{Err: invalid}
	}
	if f.applyErr != nil {
		return "", &NotAppliedError{Err: f.applyErr}
	}
	return "", nil
}

func (f *fakeBackend) lookup(name string) (string, bool) {
	v, ok := f.env[name]
	return v, ok
}

func setup(t *testing.T) (*fakeBackend, *httptest.Server, *Handler) {
	t.Helper()
	return setupWith(t, dotenv, map[string]string{"GEMINI_MODEL": "env-model"})
}

// setupWith serves the pages for an app whose .env file holds file and whose process environment is env.
func setupWith(t *testing.T, file string, env map[string]string) (*fakeBackend, *httptest.Server, *Handler) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	b := &fakeBackend{env: map[string]string{config.DirVar: dir}}
	for k, v := range env {
		b.env[k] = v
	}
	cfg, err := config.Load(config.Env{Lookup: b.lookup})
	if err != nil {
		t.Fatal(err)
	}
	b.cfg = cfg
	h := New(b, Forms{Settings: b}, "secret-token", slog.New(slog.DiscardHandler))
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return b, srv, h
}

var noRedirect = &http.Client{Transport: testkit.Client.Transport, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func do(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func get(t *testing.T, u string, cookie bool) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	if cookie {
		req.AddCookie(&http.Cookie{Name: cookieName, Value: derive("secret-token", "cookie")})
	}
	return do(t, req)
}

func post(t *testing.T, srv *httptest.Server, origin string, form url.Values) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/settings", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	req.AddCookie(&http.Cookie{Name: cookieName, Value: derive("secret-token", "cookie")})
	return do(t, req)
}

func TestAccess(t *testing.T) {
	t.Parallel()
	_, srv, h := setup(t)
	for _, page := range []string{"/settings", "/status", "/setup"} {
		if code, _ := get(t, srv.URL+page, false); code != http.StatusForbidden {
			t.Errorf("%s without cookie: %d, want 403", page, code)
		}
		if code, _ := get(t, srv.URL+page+"?token=wrong", false); code != http.StatusForbidden {
			t.Errorf("%s with a wrong token: %d, want 403", page, code)
		}
		if code, _ := get(t, srv.URL+page, true); code != http.StatusOK {
			t.Errorf("%s with cookie: %d, want 200", page, code)
		}
	}
	resp, err := noRedirect.Get(h.URL(srv.URL, "/settings"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/settings" {
		t.Errorf("token link: %d to %q, want 303 to /settings", resp.StatusCode, resp.Header.Get("Location"))
	}
	c := resp.Cookies()
	if len(c) != 1 || c[0].Value != derive("secret-token", "cookie") || !c[0].HttpOnly || c[0].SameSite != http.SameSiteStrictMode {
		t.Errorf("cookie %+v, want one derived from the token, HttpOnly, SameSite=Strict", c)
	}
	if strings.Contains(c[0].Value, "secret-token") || c[0].Value == hex.EncodeToString([]byte("secret-token")) {
		t.Errorf("the cookie %q holds the launch token", c[0].Value)
	}
	// The launch token itself, sent as the cookie, is no session: only the derived value is.
	if code, _ := do(t, cookieRequest(t, srv.URL+"/status")); code != http.StatusOK {
		t.Errorf("derived cookie: %d, want 200", code)
	}
	tokenAsCookie, _ := http.NewRequest(http.MethodGet, srv.URL+"/status", nil)
	tokenAsCookie.AddCookie(&http.Cookie{Name: cookieName, Value: "secret-token"})
	if code, _ := do(t, tokenAsCookie); code != http.StatusForbidden {
		t.Errorf("the token as the cookie: %d, want 403", code)
	}

	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/settings", nil)
	req.Host = "evil.example:3000"
	req.AddCookie(&http.Cookie{Name: cookieName, Value: derive("secret-token", "cookie")})
	if code, _ := do(t, req); code != http.StatusForbidden {
		t.Errorf("foreign Host: %d, want 403", code)
	}
}

func TestSettingsPage(t *testing.T) {
	t.Parallel()
	_, srv, _ := setup(t)
	code, body := get(t, srv.URL+"/settings", true)
	if code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	noKeys(t, body)
	for _, want := range []string{
		`id="FIRECRAWL_API_KEY" name="FIRECRAWL_API_KEY" placeholder="••••WXYZ (saved)"`,
		`id="GEMINI_API_KEY" name="GEMINI_API_KEY" placeholder="••••QRST (saved)"`,
		`name="clear_FIRECRAWL_API_KEY"`,
		`name="clear_GEMINI_API_KEY"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if !strings.Contains(body, `id="overridden-GEMINI_MODEL"`) || !strings.Contains(body, "env-model") {
		t.Error("the page does not say GEMINI_MODEL is overridden by the environment")
	}
}

func TestSettingsPageFlagOverride(t *testing.T) {
	t.Parallel()
	b, srv, _ := setup(t)
	b.cfg.Port = 4100
	b.cfg.SetByFlag("MCP_SERVER_PORT", "--port", "4100")
	_, body := get(t, srv.URL+"/settings", true)
	want := `<p class="note" id="overridden-MCP_SERVER_PORT">Set by --port on the command line (MCP_SERVER_PORT = 4100)`
	if !strings.Contains(body, want) {
		t.Errorf("the page lacks %q:\n%s", want, body)
	}
	if !strings.Contains(body, "Overridden by the process environment (GEMINI_MODEL = env-model)") {
		t.Error("the environment's override of GEMINI_MODEL is no longer shown as such")
	}
}

func TestSave(t *testing.T) {
	t.Parallel()
	b, srv, h := setup(t)
	valid := url.Values{"csrf": {h.csrf}, "FIRECRAWL_API_KEY": {""}, "GEMINI_API_KEY": {""}, "GEMINI_MODEL": {"gemini-2.5-pro"},
		"MCP_SERVER_PORT": {"3100"}, "GEMINI_SEARCH_TIMEOUT": {""}, "GEMINI_MAX_CONCURRENT": {"4"}}

	tests := []struct {
		name     string
		origin   string
		form     url.Values
		wantCode int
		wantBody string
	}{
		{"no origin", "", valid, http.StatusForbidden, "no Origin"},
		{"cross-origin", "https://evil.example", valid, http.StatusForbidden, "another site"},
		{"bad csrf", srv.URL, url.Values{"csrf": {"nope"}, "GEMINI_MODEL": {"x"}}, http.StatusForbidden, "CSRF"},
		{"invalid values", srv.URL, url.Values{"csrf": {h.csrf}, "MCP_SERVER_PORT": {"99999"}, "GEMINI_MAX_CONCURRENT": {"lots"},
			"FIRECRAWL_API_KEY": {"has space"}, "GEMINI_API_KEY": {"also spaced"}}, http.StatusUnprocessableEntity, `id="error-MCP_SERVER_PORT"`},
	}
	for _, tt := range tests {
		code, body := post(t, srv, tt.origin, tt.form)
		if code != tt.wantCode || !strings.Contains(body, tt.wantBody) {
			t.Errorf("%s: %d, want %d with %q; body:\n%s", tt.name, code, tt.wantCode, tt.wantBody, body)
		}
		if b.saved != nil {
			t.Fatalf("%s: saved %q, want nothing saved", tt.name, b.saved)
		}
		if strings.Contains(body, "has space") || strings.Contains(body, "also spaced") {
			t.Errorf("%s: a rejected key is echoed back", tt.name)
		}
		noKeys(t, body)
	}

	code, _ := post(t, srv, srv.URL, valid)
	if code != http.StatusSeeOther {
		t.Fatalf("valid save: %d, want 303", code)
	}
	want := "# mine\nFIRECRAWL_API_KEY=" + firecrawlKey + "\nGEMINI_API_KEY=" + geminiKey +
		"\nOTHER=1\nGEMINI_MODEL=gemini-2.5-pro\nMCP_SERVER_PORT=3100\nGEMINI_MAX_CONCURRENT=4\n"
	if string(b.saved) != want {
		t.Errorf("saved %q, want %q", b.saved, want)
	}
}

// TestSaveKeys: a saved key stays unless a new one is typed in its field or its own Remove box is ticked.
func TestSaveKeys(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                      string
		form                      url.Values
		wantFirecrawl, wantGemini string // the keys in the saved .env file, "" for none
	}{
		{"both left empty", url.Values{"FIRECRAWL_API_KEY": {""}, "GEMINI_API_KEY": {""}}, firecrawlKey, geminiKey},
		{"fields not sent", url.Values{}, firecrawlKey, geminiKey},
		{"new Firecrawl key", url.Values{"FIRECRAWL_API_KEY": {"fc-new-key-1234"}}, "fc-new-key-1234", geminiKey},
		{"new Gemini key", url.Values{"GEMINI_API_KEY": {"AIza-new-key-5678"}}, firecrawlKey, "AIza-new-key-5678"},
		{"Firecrawl key removed", url.Values{"clear_FIRECRAWL_API_KEY": {"on"}}, "", geminiKey},
		{"Gemini key removed", url.Values{"clear_GEMINI_API_KEY": {"on"}}, firecrawlKey, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, srv, h := setup(t)
			form := url.Values{"csrf": {h.csrf}, "GEMINI_MODEL": {"gemini-2.5-pro"}}
			for k, v := range tt.form {
				form[k] = v
			}
			if code, body := post(t, srv, srv.URL, form); code != http.StatusSeeOther {
				t.Fatalf("got %d, want 303; body:\n%s", code, body)
			}
			_, saved, err := config.ReadDotenv(config.EnvPath(b.cfg.Dir))
			if err != nil {
				t.Fatal(err)
			}
			if got := saved["FIRECRAWL_API_KEY"]; got != tt.wantFirecrawl {
				t.Errorf("FIRECRAWL_API_KEY: got %q, want %q", got, tt.wantFirecrawl)
			}
			if got := saved["GEMINI_API_KEY"]; got != tt.wantGemini {
				t.Errorf("GEMINI_API_KEY: got %q, want %q", got, tt.wantGemini)
			}
		})
	}
}

func TestInvalidSaveShowsTheSavedKey(t *testing.T) {
	t.Parallel()
	_, srv, h := setup(t)
	tests := []struct {
		name   string
		field  string // the key field typed into
		typed  string
		masked string // the field's placeholder: the saved key, masked
	}{
		{"new Firecrawl key typed", "FIRECRAWL_API_KEY", "fc-typed-not-saved-abcd", "••••WXYZ (saved)"},
		{"Firecrawl key left blank", "FIRECRAWL_API_KEY", "", "••••WXYZ (saved)"},
		{"new Gemini key typed", "GEMINI_API_KEY", "AIza-typed-not-saved-efgh", "••••QRST (saved)"},
		{"Gemini key left blank", "GEMINI_API_KEY", "", "••••QRST (saved)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := post(t, srv, srv.URL, url.Values{"csrf": {h.csrf}, tt.field: {tt.typed}, "MCP_SERVER_PORT": {"99999"}})
			if code != http.StatusUnprocessableEntity {
				t.Fatalf("got %d, want 422", code)
			}
			for _, want := range []string{`name="` + tt.field + `" placeholder="` + tt.masked + `"`, `name="clear_` + tt.field + `"`} {
				if !strings.Contains(body, want) {
					t.Errorf("the page lacks %q", want)
				}
			}
			noKeys(t, body)
			if strings.Contains(body, `placeholder="not set"`) {
				t.Error("the page says a saved key is not set")
			}
			if tt.typed != "" && (strings.Contains(body, tt.typed) || strings.Contains(body, config.Secret(tt.typed).Last4())) {
				t.Error("the page shows the key typed into the refused form")
			}
		})
	}
}

func TestSettingsPageWithoutKeys(t *testing.T) {
	t.Parallel()
	_, srv, _ := setupWith(t, "", nil)
	_, body := get(t, srv.URL+"/settings", true)
	for _, name := range []string{"FIRECRAWL_API_KEY", "GEMINI_API_KEY"} {
		if want := `name="` + name + `" placeholder="not set"`; !strings.Contains(body, want) {
			t.Errorf("the page lacks %q", want)
		}
		if strings.Contains(body, "clear_"+name) {
			t.Errorf("the page offers to remove a %s that is not saved", name)
		}
	}
}

// TestSecretOverridden: a key set in the process environment shows masked in the note that says so.
func TestSecretOverridden(t *testing.T) {
	t.Parallel()
	const envKey = "AIza-from-env-1111222233-LMNO"
	_, srv, _ := setupWith(t, dotenv, map[string]string{"GEMINI_API_KEY": envKey})
	_, body := get(t, srv.URL+"/settings", true)
	if want := "Overridden by the process environment (GEMINI_API_KEY = ••••LMNO)"; !strings.Contains(body, want) {
		t.Errorf("the page lacks %q", want)
	}
	noKeys(t, body)
	if strings.Contains(body, envKey) || strings.Contains(body, "1111222233") {
		t.Error("the page shows the environment's key")
	}
}

// selectOptions returns the options of the select field name in body, and the selected ones.
func selectOptions(t *testing.T, body, name string) (options, selected []string) {
	t.Helper()
	m := regexp.MustCompile(`(?s)<select id="` + name + `" name="` + name + `"[^>]*>(.*?)</select>`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("the page has no <select> for %s:\n%s", name, body)
	}
	for _, o := range regexp.MustCompile(`<option value="([^"]*)"( selected)?>`).FindAllStringSubmatch(m[1], -1) {
		options = append(options, o[1])
		if o[2] != "" {
			selected = append(selected, o[1])
		}
	}
	return options, selected
}

func TestBackendSelect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		file     string
		env      map[string]string
		want     string // the option selected
		wantNote string
	}{
		{"not in the file: the default", "", nil, "auto", ""},
		{"set in the file", "GEMINI_BACKEND=cli\n", nil, "cli", ""},
		{"in capitals", "GEMINI_BACKEND=API\n", nil, "api", ""},
		{"overridden", "GEMINI_BACKEND=cli\n", map[string]string{"GEMINI_BACKEND": "api"}, "cli",
			`id="overridden-GEMINI_BACKEND">Overridden by the process environment (GEMINI_BACKEND = api)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, srv, _ := setupWith(t, tt.file, tt.env)
			_, body := get(t, srv.URL+"/settings", true)
			options, selected := selectOptions(t, body, "GEMINI_BACKEND")
			if want := []string{"auto", "cli", "api"}; !slices.Equal(options, want) {
				t.Errorf("options %q, want %q", options, want)
			}
			if !slices.Equal(selected, []string{tt.want}) {
				t.Errorf("selected %q, want %q", selected, tt.want)
			}
			if tt.wantNote != "" && !strings.Contains(body, tt.wantNote) {
				t.Errorf("the page lacks %q", tt.wantNote)
			}
		})
	}
}

func TestSaveBackend(t *testing.T) {
	t.Parallel()
	b, srv, h := setup(t)
	// A crafted POST: the select offers no such value.
	code, body := post(t, srv, srv.URL, url.Values{"csrf": {h.csrf}, "GEMINI_BACKEND": {"vertex"}})
	if code != http.StatusUnprocessableEntity {
		t.Fatalf("vertex: got %d, want 422; body:\n%s", code, body)
	}
	if b.saved != nil {
		t.Errorf("vertex: saved %q, want nothing saved", b.saved)
	}
	for _, want := range []string{`<select id="GEMINI_BACKEND" name="GEMINI_BACKEND" class="invalid">`,
		`<p class="error" id="error-GEMINI_BACKEND">must be auto, cli or api</p>`} {
		if !strings.Contains(body, want) {
			t.Errorf("vertex: the page lacks %q", want)
		}
	}
	options, selected := selectOptions(t, body, "GEMINI_BACKEND")
	if want := []string{"auto", "cli", "api", "vertex"}; !slices.Equal(options, want) || !slices.Equal(selected, []string{"vertex"}) {
		t.Errorf("vertex: options %q with %q selected, want %q with the refused vertex selected", options, selected, want)
	}

	if code, body := post(t, srv, srv.URL, url.Values{"csrf": {h.csrf}, "GEMINI_BACKEND": {"api"}}); code != http.StatusSeeOther {
		t.Fatalf("api: got %d, want 303; body:\n%s", code, body)
	}
	if !strings.Contains(string(b.saved), "\nGEMINI_BACKEND=api\n") {
		t.Errorf("saved %q, want GEMINI_BACKEND=api", b.saved)
	}
	_, body = get(t, srv.URL+"/settings", true)
	if _, selected := selectOptions(t, body, "GEMINI_BACKEND"); !slices.Equal(selected, []string{"api"}) {
		t.Errorf("after saving api, %q selected", selected)
	}
}

func TestSaveRefusedByTheApp(t *testing.T) {
	t.Parallel()
	b, srv, h := setup(t)
	b.refuse = errors.New("refusing to serve on a non-loopback host without a token")
	code, body := post(t, srv, srv.URL, url.Values{"csrf": {h.csrf}, "GEMINI_MODEL": {"gemini-2.5-pro"}})
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "Nothing was saved: refusing to serve") {
		t.Errorf("got %d, want 422 saying why nothing was saved; body:\n%s", code, body)
	}
	if b.saved != nil {
		t.Errorf("saved %q, want nothing saved", b.saved)
	}
}

func TestSaveNotApplied(t *testing.T) {
	t.Parallel()
	b, srv, h := setup(t)
	b.applyErr = errors.New("prepare the workspace: not a directory")
	code, body := post(t, srv, srv.URL, url.Values{"csrf": {h.csrf}, "GEMINI_MODEL": {"gemini-2.5-pro"}})
	if code != http.StatusOK || !strings.Contains(body, "Saved, but not applied: prepare the workspace: not a directory") {
		t.Errorf("got %d, want 200 saying the settings were saved but not applied; body:\n%s", code, body)
	}
	if strings.Contains(body, "applied.") || strings.Contains(body, "Saved and applied") {
		t.Errorf("the page says the settings were applied:\n%s", body)
	}
	if !strings.Contains(body, `value="gemini-2.5-pro"`) {
		t.Errorf("the page does not show the saved model:\n%s", body)
	}
}

func TestStatusPage(t *testing.T) {
	t.Parallel()
	b, srv, h := setup(t)
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	h.now = func() time.Time { return now }
	b.snap = activity.Snapshot{
		Running: []activity.Run{{Tool: "search", Query: "rust <2024> edition", Stage: "searching", Started: now.Add(-83 * time.Second)}},
		Failures: []activity.Failure{{Time: now, Tool: "search", Query: "go_1.26", Code: "QUOTA_ERROR", Message: "quota used up",
			Details: "Wait for the quota to reset.\nstderr: 429"}},
	}
	b.usage = &record.UsageMeter{Today: []record.UsageTotal{{Backend: "api", Model: "gemini-3-flash", Calls: 2, TotalTokens: 4321}},
		Month: []record.UsageTotal{{Backend: "api", Model: "gemini-3-flash", Calls: 9, TotalTokens: 98765, Searches: 17}}}
	_, body := get(t, srv.URL+"/status", true)
	for _, want := range []string{"Running searches (1)", "rust &lt;2024&gt; edition", "01:23", "searching", "Last errors (1)", "QUOTA_ERROR",
		"quota used up", "go_1.26", "Wait for the quota to reset.\nstderr: 429", "<footer>gemini-search-mcp 1.2.3-test</footer>",
		`<table id="usage">`, "<td>today</td><td>api</td>", ">4321<", "<td>this month</td>", ">98765<", ">17<"} {
		if !strings.Contains(body, want) {
			t.Errorf("status page lacks %q", want)
		}
	}
}

// TestStatusPageTellsWarningsFromErrors: a call that succeeded with a warning (Firecrawl did not start) is listed
// after the last errors as the tray lists it: "warning" where a failure has its code, with the number of calls it was
// about when more than one, in a row of its own class, and counted apart, not as an error.
func TestStatusPageTellsWarningsFromErrors(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	warning := activity.Failure{Time: now, Tool: "search", Query: "föhn", Code: "FIRECRAWL_UNAVAILABLE", Warning: true,
		Message: "Researched without Firecrawl, which was unavailable: MCP error -32000: Connection closed",
		Details: "Start the command of mcpServers.firecrawl by hand to see why.", Count: 1}
	repeated := warning
	repeated.Count = 7
	failure := activity.Failure{Time: now, Tool: "search", Query: "go_1.26", Code: "QUOTA_ERROR", Message: "quota used up", Count: 1}
	clock := now.Local().Format("15:04:05")
	warningRow := `<tr class="warning" title="FIRECRAWL_UNAVAILABLE: the call succeeded"><td class="mono">` + clock +
		`</td><td>search</td><td>föhn</td><td class="mono">warning</td><td>Researched without Firecrawl, which was ` +
		`unavailable: MCP error -32000: Connection closed</td><td class="pre">Start the command of mcpServers.firecrawl by ` +
		`hand to see why.</td></tr>`
	errorRow := `<tr><td class="mono">` + clock +
		`</td><td>search</td><td>go_1.26</td><td class="mono">QUOTA_ERROR</td><td>quota used up</td>`
	tests := []struct {
		name string
		snap activity.Snapshot
		want []string // in this order
	}{
		{"a warning alone", activity.Snapshot{Warnings: []activity.Failure{warning}},
			[]string{"Last errors (0) and warnings (1)", warningRow}},
		{"an error, then a warning", activity.Snapshot{Failures: []activity.Failure{failure}, Warnings: []activity.Failure{warning}},
			[]string{"Last errors (1) and warnings (1)", errorRow, warningRow}},
		{"a warning of many calls", activity.Snapshot{Warnings: []activity.Failure{repeated}},
			[]string{"Last errors (0) and warnings (1)", `<td class="mono">warning (7 calls)</td>`}},
		{"an error alone", activity.Snapshot{Failures: []activity.Failure{failure}}, []string{"Last errors (1)</h2>", "QUOTA_ERROR"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, srv, _ := setup(t)
			b.snap = tt.snap
			_, body := get(t, srv.URL+"/status", true)
			rest := body
			for _, want := range tt.want {
				_, after, ok := strings.Cut(rest, want)
				if !ok {
					t.Errorf("status page lacks %q, or has it before %q:\n%s", want, tt.want, body)
					break
				}
				rest = after
			}
			if strings.Contains(body, "FIRECRAWL_UNAVAILABLE</td>") {
				t.Errorf("the warning's code is shown as a failure's:\n%s", body)
			}
		})
	}
}

// TestStatusEvents: /status keeps itself current without a reload. Its one script is allowed by its nonce alone,
// and /status/events sends the live part of the page at once and again after a change, behind the same cookie.
func TestStatusEvents(t *testing.T) {
	t.Parallel()
	b, srv, _ := setup(t)
	res, err := testkit.Client.Do(cookieRequest(t, srv.URL+"/status"))
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	nonce := regexp.MustCompile(`<script nonce="([0-9a-f]{32})">`).FindSubmatch(page)
	if nonce == nil || !strings.Contains(res.Header.Get("Content-Security-Policy"), "script-src 'nonce-"+string(nonce[1])+"'") {
		t.Fatalf("the page's script and its CSP (%q) do not share a nonce:\n%s", res.Header.Get("Content-Security-Policy"), page)
	}
	if strings.Contains(string(page), `http-equiv="refresh"`) {
		t.Error("the page still reloads itself")
	}
	if code, _ := get(t, srv.URL+"/status/events", false); code != http.StatusForbidden {
		t.Errorf("/status/events without the cookie: %d, want 403", code)
	}

	res, err = testkit.Client.Do(cookieRequest(t, srv.URL+"/status/events"))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q, want text/event-stream", ct)
	}
	next := eventsOf(t, res)
	if first := next(); !strings.Contains(first, "Running searches (0)") || !strings.Contains(first, `id="server"`) {
		t.Errorf("first event %q, want the live part of the page", first)
	}
	b.setActivity(activity.Snapshot{Running: []activity.Run{{Tool: "deep_search", Query: "rust <2024>", Started: time.Now()}}})
	if second := next(); !strings.Contains(second, "Running searches (1)") || !strings.Contains(second, "rust &lt;2024&gt;") {
		t.Errorf("event after the change %q, want the running search, escaped", second)
	}
	// A lone CR would end the event's line early: it reaches the page as a character reference.
	b.setActivity(activity.Snapshot{Failures: []activity.Failure{{Tool: "search", Code: "CLI_ERROR", Details: "10%\r100%"}}})
	if third := next(); !strings.Contains(third, "10%&#13;100%") || strings.Contains(third, "\r") {
		t.Errorf("event with a CR %q", third)
	}
}

// eventsOf reads the server-sent events of res: each call returns the data of the next one, its lines joined as
// EventSource joins them, or "" once the stream has ended.
func eventsOf(t *testing.T, res *http.Response) func() string {
	events := bufio.NewReader(res.Body)
	return func() string {
		t.Helper()
		var data []string
		for {
			line, err := events.ReadString('\n')
			if err == io.EOF && line == "" && data == nil {
				return ""
			}
			if err != nil {
				t.Fatalf("read event: %v", err)
			}
			if line == "\n" {
				return strings.Join(data, "\n")
			}
			text, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "data: ")
			if !ok {
				t.Fatalf("not a data line: %q", line)
			}
			data = append(data, text)
		}
	}
}

func cookieRequest(t *testing.T, u string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.AddCookie(&http.Cookie{Name: cookieName, Value: derive("secret-token", "cookie")})
	return req
}

// statusOnly is an App without Settings, as the headless server's.
type statusOnly struct{ b *fakeBackend }

func (s statusOnly) State() appstate.State                   { return s.b.State() }
func (s statusOnly) Glance() appstate.State                  { return s.b.Glance() }
func (s statusOnly) Changed() <-chan struct{}                { return s.b.Changed() }
func (s statusOnly) Report(id string) (record.Report, error) { return s.b.Report(id) }
func (s statusOnly) Browse(query string, offset, limit int) ([]record.Summary, int, error) {
	return s.b.Browse(query, offset, limit)
}
func (s statusOnly) ResearchElsewhere() []record.Job { return s.b.ResearchElsewhere() }
func (s statusOnly) Checklist(ctx context.Context, offline bool) []checklist.Check {
	return s.b.Checklist(ctx, offline)
}

// TestReadOnlyPages: pages whose backend cannot save settings serve /status alone, behind the same token.
func TestReadOnlyPages(t *testing.T) {
	t.Parallel()
	b, _, _ := setup(t)
	srv := httptest.NewServer(New(statusOnly{b}, Forms{}, "secret-token", slog.New(slog.DiscardHandler)))
	t.Cleanup(srv.Close)
	if code, _ := get(t, srv.URL+"/status", false); code != http.StatusForbidden {
		t.Errorf("/status without the cookie: %d, want 403", code)
	}
	if code, body := get(t, srv.URL+"/status", true); code != http.StatusOK || !strings.Contains(body, "Running on http://127.0.0.1:3000/mcp") {
		t.Errorf("/status: %d, want 200 with the status line:\n%s", code, body)
	}
	if code, body := get(t, srv.URL+"/setup", true); code != http.StatusOK || !strings.Contains(body, `id="checks"`) {
		t.Errorf("/setup: %d, want 200 with the checklist:\n%s", code, body)
	}
	if code, _ := get(t, srv.URL+"/settings", true); code != http.StatusNotFound {
		t.Errorf("GET /settings: %d, want 404", code)
	}
	if code, _ := post(t, srv, srv.URL, url.Values{"GEMINI_MODEL": {"m"}}); code != http.StatusNotFound && code != http.StatusForbidden {
		t.Errorf("POST /settings: %d, want it refused", code)
	}
}
