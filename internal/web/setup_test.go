package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/checklist"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/doctor"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/mockgemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

// postSetup submits the setup page's form ("Run the real queries").
func postSetup(t *testing.T, srv *httptest.Server, origin string, form url.Values) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/setup", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	req.AddCookie(&http.Cookie{Name: cookieName, Value: derive("secret-token", "cookie")})
	return do(t, req)
}

// sampleChecks is a checklist with a check of each kind; the broken one's detail holds HTML, a line the backend printed
// and the fix.
var sampleChecks = []checklist.Check{
	{Name: "Config dir", OK: true, Detail: "/home/me/.config/gemini-search-mcp (writable)"},
	{Name: "Firecrawl", Hint: true, Detail: "off: set FIRECRAWL_API_KEY"},
	{Name: "Gemini <CLI>", Detail: "gemini did not answer (AUTH_ERROR): <script>alert(1)</script>\n" +
		"  Please sign in & try again\nfix: run `gemini` once & sign in"},
}

func TestSetupPage(t *testing.T) {
	t.Parallel()
	b, srv, h := setup(t)
	b.checklist = func(_ context.Context, offline bool) []checklist.Check {
		if offline {
			return sampleChecks
		}
		return append(slices.Clone(sampleChecks[:2]), checklist.Check{Name: "Gemini CLI", OK: true, Detail: "gemini answered in 1.2s"})
	}

	resp, err := noRedirect.Get(h.URL(srv.URL, "/setup"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/setup" {
		t.Errorf("token link: %d to %q, want 303 to /setup", resp.StatusCode, resp.Header.Get("Location"))
	}

	code, body := get(t, srv.URL+"/setup", true)
	if code != http.StatusOK {
		t.Fatalf("GET /setup: %d, want 200\n%s", code, body)
	}
	if got := b.checklistRuns(); !slices.Equal(got, []bool{true}) {
		t.Errorf("Checklist calls (offline) %v, want one offline run", got)
	}
	for _, want := range []string{
		`<span class="mark ok" title="ok">✓</span><strong>Config dir</strong>`,
		`<p>/home/me/.config/gemini-search-mcp (writable)</p>`,
		`<span class="mark hint" title="hint">!</span><strong>Firecrawl</strong>`,
		`<li class="check bad" id="check-gemini-cli"><span class="mark bad" title="bad">✗</span><strong>Gemini &lt;CLI&gt;</strong>`,
		`<p>gemini did not answer (AUTH_ERROR): &lt;script&gt;alert(1)&lt;/script&gt;</p>`,
		`<p class="said">  Please sign in &amp; try again</p>`,
		"<p class=\"fix\">fix: run `gemini` once &amp; sign in</p>",
		`id="offline"`,
		`<p class="banner bad" id="verdict">Something below is broken`,
		`<input type="hidden" name="csrf" value="` + h.csrf + `">`,
		"Running on http://127.0.0.1:3000/mcp",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(body, "<script>") {
		t.Error("the page holds a detail's HTML unescaped")
	}

	refused := []struct {
		name   string
		origin string
		form   url.Values
		want   string
	}{
		{"no origin", "", url.Values{"csrf": {h.csrf}}, "no Origin"},
		{"cross-origin", "https://evil.example", url.Values{"csrf": {h.csrf}}, "another site"},
		{"no csrf", srv.URL, url.Values{}, "CSRF"},
	}
	for _, tt := range refused {
		if code, body := postSetup(t, srv, tt.origin, tt.form); code != http.StatusForbidden || !strings.Contains(body, tt.want) {
			t.Errorf("%s: %d, want 403 saying %q:\n%s", tt.name, code, tt.want, body)
		}
	}
	if got := b.checklistRuns(); len(got) != 1 {
		t.Fatalf("Checklist calls (offline) %v: a refused form ran the checks", got)
	}

	code, body = postSetup(t, srv, srv.URL, url.Values{"csrf": {h.csrf}})
	if code != http.StatusOK {
		t.Fatalf("POST /setup: %d, want 200\n%s", code, body)
	}
	if got := b.checklistRuns(); !slices.Equal(got, []bool{true, false}) {
		t.Errorf("Checklist calls (offline) %v, want the form's run with the queries", got)
	}
	for _, want := range []string{`id="queried"`, `<p class="banner ok" id="verdict">Nothing is broken.</p>`,
		"gemini answered in 1.2s", "Run the real queries again"} {
		if !strings.Contains(body, want) {
			t.Errorf("the page after the queries lacks %q:\n%s", want, body)
		}
	}
}

func TestSetupPageMethods(t *testing.T) {
	t.Parallel()
	b, srv, _ := setup(t)
	for _, method := range []string{http.MethodPut, http.MethodDelete} {
		req, _ := http.NewRequest(method, srv.URL+"/setup", nil)
		req.AddCookie(&http.Cookie{Name: cookieName, Value: derive("secret-token", "cookie")})
		if code, _ := do(t, req); code != http.StatusMethodNotAllowed {
			t.Errorf("%s /setup: %d, want 405", method, code)
		}
	}
	if code, _ := get(t, srv.URL+"/setup?token=wrong", false); code != http.StatusForbidden {
		t.Errorf("/setup with a wrong token: %d, want 403", code)
	}
	if got := b.checklistRuns(); len(got) != 0 {
		t.Errorf("Checklist calls (offline) %v, want none", got)
	}
}

// TestSetupPageBounded: the checks run under the request's context, with a deadline of their own.
func TestSetupPageBounded(t *testing.T) {
	t.Parallel()
	b, srv, h := setup(t)
	deadlines := make(chan time.Duration, 1)
	ended := make(chan error, 1)
	b.checklist = func(ctx context.Context, offline bool) []checklist.Check {
		if d, ok := ctx.Deadline(); ok {
			deadlines <- time.Until(d)
		} else {
			deadlines <- -1
		}
		select { // a query that hangs, until the request goes away
		case <-ctx.Done():
			ended <- ctx.Err()
		case <-time.After(testkit.WaitLimit):
			ended <- nil
		}
		return nil
	}
	form := url.Values{"csrf": {h.csrf}}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/setup", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", srv.URL)
	req.AddCookie(&http.Cookie{Name: cookieName, Value: derive("secret-token", "cookie")})
	if resp, err := testkit.Client.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("the request did not time out: %s", resp.Status)
	}
	if d := <-deadlines; d <= 0 || d > checklistTimeout {
		t.Errorf("the checks had %v left, want a deadline within %v", d, checklistTimeout)
	}
	select {
	case err := <-ended:
		if err == nil {
			t.Error("the checks went on after the browser left")
		}
	case <-time.After(testkit.WaitLimit):
		t.Error("the checks went on after the browser left")
	}
	if got := b.checklistRuns(); !slices.Equal(got, []bool{false}) {
		t.Errorf("Checklist calls (offline) %v, want one run with the queries", got)
	}
}

// TestSetupPageShowsNoKey runs doctor itself on an app whose Gemini API key the API rejects: the page names the key
// by its variable and last four characters, never more, before and after the query.
func TestSetupPageShowsNoKey(t *testing.T) {
	t.Parallel()
	mock := mockgemini.New()
	mock.Handle(mockgemini.KindChat, mockgemini.Always(mockgemini.InvalidKey()))
	api := httptest.NewServer(mock)
	t.Cleanup(func() {
		mock.Close()
		api.Close()
	})
	b, srv, h := setupWith(t, dotenv, map[string]string{"GEMINI_BACKEND": "api", "GOOGLE_GEMINI_BASE_URL": api.URL})
	home := t.TempDir()
	b.checklist = func(ctx context.Context, offline bool) []checklist.Check {
		return doctor.Run(ctx, b.cfg, doctor.Options{Env: config.Env{Lookup: b.lookup, Home: home, GOOS: "linux"}, Offline: offline})
	}

	code, body := get(t, srv.URL+"/setup", true)
	if code != http.StatusOK {
		t.Fatalf("GET /setup: %d\n%s", code, body)
	}
	noKeys(t, body)
	for _, want := range []string{"<strong>Auth</strong>", "GEMINI_API_KEY ••••QRST", "not queried (--offline)"} {
		if !strings.Contains(body, want) {
			t.Errorf("the offline checklist lacks %q:\n%s", want, body)
		}
	}
	if n := len(mock.Requests()); n != 0 {
		t.Errorf("the offline checklist sent %d requests to the API", n)
	}

	code, body = postSetup(t, srv, srv.URL, url.Values{"csrf": {h.csrf}})
	if code != http.StatusOK {
		t.Fatalf("POST /setup: %d\n%s", code, body)
	}
	noKeys(t, body)
	for _, want := range []string{"the key in GEMINI_API_KEY (••••QRST) was rejected", `<p class="fix">fix: Check the key in GEMINI_API_KEY`,
		`<span class="mark bad" title="bad">✗</span><strong>Gemini API</strong>`} {
		if !strings.Contains(body, want) {
			t.Errorf("the checklist after the query lacks %q:\n%s", want, body)
		}
	}
	if n := len(mock.Requests()); n == 0 {
		t.Error("the API got no query")
	}
}
