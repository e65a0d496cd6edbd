package web

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/checklist"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/clients"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

// welcomeBackend is a fakeBackend that can also connect clients and start test searches, as the tray's: they run
// as jobs of its fakeResearch, unless refuse says why they cannot start.
type welcomeBackend struct {
	*fakeBackend
	home     string
	research *fakeResearch
	mu       sync.Mutex
	tried    []string
	refuse   error
	token    string // MCP_AUTH_TOKEN of the clients' entries
}

func (w *welcomeBackend) Clients() []clients.Client {
	w.mu.Lock()
	token := w.token
	w.mu.Unlock()
	return clients.All(clients.Platform{GOOS: "linux", Home: w.home, XDGConfigHome: filepath.Join(w.home, ".config")},
		clients.Server{URL: "http://127.0.0.1:3000/mcp", StdioCommand: "/opt/gemini-search-mcp", AuthToken: token})
}

func (w *welcomeBackend) TrySearch(query string) (string, error) {
	w.mu.Lock()
	w.tried = append(w.tried, query)
	refuse := w.refuse
	w.mu.Unlock()
	if refuse != nil {
		return "", refuse
	}
	return w.research.start("search", query), nil
}

func setupWelcome(t *testing.T) (*welcomeBackend, *httptest.Server, *Handler) {
	t.Helper()
	b, _, _ := setup(t)
	wb := &welcomeBackend{fakeBackend: b, home: t.TempDir(), research: newFakeResearch(b)}
	wb.checklist = func(context.Context, bool) []checklist.Check { return sampleChecks }
	h := New(wb, Forms{Settings: wb, Welcome: wb, Research: wb.research}, "secret-token", slog.New(slog.DiscardHandler))
	h.now = func() time.Time { return testNow }
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return wb, srv, h
}

func postWelcome(t *testing.T, srv *httptest.Server, form url.Values) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/welcome", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", srv.URL)
	req.AddCookie(&http.Cookie{Name: cookieName, Value: derive("secret-token", "cookie")})
	res, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body strings.Builder
	_, _ = io.Copy(&body, res.Body)
	return res.StatusCode, res.Header.Get("Location"), body.String()
}

// TestWelcomePage: the first-run page shows the checklist and each client's state, saves only the keys entered
// (never showing one), connects a client, and tries a real search, showing its report or its error with the fix.
func TestWelcomePage(t *testing.T) {
	t.Parallel()
	b, srv, h := setupWelcome(t)

	code, body := get(t, srv.URL+"/welcome", true)
	for _, want := range []string{"Getting started", "Gemini &lt;CLI&gt;", "fix: run `gemini` once &amp; sign in",
		"Something below is broken", "Cursor", "Claude Desktop", "VS Code", "Claude Code", "not connected", "Saved: <span class=\"mono\">••••WXYZ</span>"} {
		if code != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("GET /welcome (%d) lacks %q", code, want)
		}
	}
	if code, _ := get(t, srv.URL+"/welcome", false); code != http.StatusForbidden {
		t.Errorf("without the cookie: %d, want 403", code)
	}

	// Keys: only those entered are saved, the other settings stay, and the page shows them masked.
	code, loc, _ := postWelcome(t, srv, url.Values{"csrf": {h.csrf}, "action": {"keys"}, "GEMINI_API_KEY": {" AIzaWelcome1234 "}})
	if code != http.StatusSeeOther || !strings.HasPrefix(loc, "/welcome?done=") || !strings.HasSuffix(loc, "#backend") {
		t.Fatalf("save keys: %d to %q, want 303 to /welcome?done=…#backend", code, loc)
	}
	saved := string(b.saved)
	if saved != "# mine\nFIRECRAWL_API_KEY="+firecrawlKey+"\nGEMINI_API_KEY=AIzaWelcome1234\nOTHER=1\n" {
		t.Errorf("saved .env %q: want the Gemini key replaced and everything else kept", saved)
	}
	_, body = get(t, srv.URL+loc, true)
	if !strings.Contains(body, "Saved and applied.") || !strings.Contains(body, "••••1234") || strings.Contains(body, "AIzaWelcome1234") {
		t.Errorf("after saving, the page does not say so, or shows the key:\n%s", body)
	}
	if code, _, body := postWelcome(t, srv, url.Values{"csrf": {h.csrf}, "action": {"keys"}}); code != http.StatusUnprocessableEntity ||
		!strings.Contains(body, "enter a key first") {
		t.Errorf("empty keys form: %d, want 422 saying to enter a key", code)
	}
	if code, _, _ := postWelcome(t, srv, url.Values{"csrf": {"stale"}, "action": {"keys"}, "GEMINI_API_KEY": {"x"}}); code != http.StatusForbidden {
		t.Errorf("stale CSRF token: %d, want 403", code)
	}

	// Connect: the client's file gets the entry.
	code, loc, _ = postWelcome(t, srv, url.Values{"csrf": {h.csrf}, "action": {"connect"}, "client": {"Cursor"}})
	if code != http.StatusSeeOther || !strings.HasSuffix(loc, "#clients") {
		t.Fatalf("connect: %d to %q", code, loc)
	}
	data, err := os.ReadFile(filepath.Join(b.home, ".cursor", "mcp.json"))
	var file struct {
		MCPServers map[string]struct{ URL string } `json:"mcpServers"`
	}
	if err != nil || json.Unmarshal(data, &file) != nil || file.MCPServers["gemini-search"].URL != "http://127.0.0.1:3000/mcp" {
		t.Errorf("Cursor's file after Connect: %s (%v)", data, err)
	}
	if _, body := get(t, srv.URL+loc, true); !strings.Contains(body, "Connected Cursor: restart it") || !strings.Contains(body, "<td>connected</td>") {
		t.Errorf("after Connect, the page does not say so:\n%s", body)
	}

}

// TestWelcomeClients: the page lists every client with its state, Connect and Disconnect, and one-click install
// links for Cursor, VS Code and LM Studio; with a token set, the links carry it only once the person asks.
func TestWelcomeClients(t *testing.T) {
	t.Parallel()
	b, srv, h := setupWelcome(t)
	_, body := get(t, srv.URL+"/welcome", true)
	if rows := strings.Count(body, "<tr><td>"); rows < 12 {
		t.Errorf("%d clients listed, want at least 12", rows)
	}
	for _, want := range []string{"Codex", "Goose", "Continue", "Zed", "LM Studio", "Gemini CLI", `href="https://cursor.com/install-mcp?`,
		`href="https://vscode.dev/redirect/mcp/install?`, `href="https://lmstudio.ai/install-mcp?`} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(body, `id="link-token"`) || strings.Contains(body, "Disconnect") {
		t.Error("without a token or a connected client, the page offers the token in links, or Disconnect")
	}

	// Connect, then Disconnect: the entry goes, the file stays.
	postWelcome(t, srv, url.Values{"csrf": {h.csrf}, "action": {"connect"}, "client": {"Codex"}})
	codex := filepath.Join(b.home, ".codex", "config.toml")
	if data, err := os.ReadFile(codex); err != nil || !strings.Contains(string(data), "[mcp_servers.gemini-search]") {
		t.Fatalf("Codex's file after Connect: %s (%v)", data, err)
	}
	if _, body := get(t, srv.URL+"/welcome", true); !strings.Contains(body, `name="action" value="disconnect"><input type="hidden" name="client" value="Codex">`) {
		t.Errorf("no Disconnect for the connected Codex:\n%s", body)
	}
	code, loc, _ := postWelcome(t, srv, url.Values{"csrf": {h.csrf}, "action": {"disconnect"}, "client": {"Codex"}})
	if data, _ := os.ReadFile(codex); code != http.StatusSeeOther || strings.Contains(string(data), "gemini-search") {
		t.Errorf("disconnect: %d, file:\n%s", code, data)
	}
	if _, body := get(t, srv.URL+loc, true); !strings.Contains(body, "Removed this server from Codex.") {
		t.Errorf("after Disconnect, the page does not say so:\n%s", body)
	}

	// A token: the links leave it out until asked.
	b.mu.Lock()
	b.token = "tok-0123456789abcdef"
	b.mu.Unlock()
	linkConfig := func(body string) map[string]any {
		t.Helper()
		m := regexp.MustCompile(`href="(https://cursor.com/install-mcp\?[^"]+)"`).FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("no Cursor link in\n%s", body)
		}
		u, err := url.Parse(html.UnescapeString(m[1]))
		if err != nil {
			t.Fatal(err)
		}
		raw, err := base64.StdEncoding.DecodeString(u.Query().Get("config"))
		var v map[string]any
		if err != nil || json.Unmarshal(raw, &v) != nil {
			t.Fatalf("Cursor link %s: %v", u, err)
		}
		return v
	}
	_, body = get(t, srv.URL+"/welcome", true)
	if !strings.Contains(body, `id="link-token"`) || strings.Contains(body, "tok-0123456789abcdef") || linkConfig(body)["headers"] != nil {
		t.Errorf("with a token, the page must offer it for the links and leave it out of them:\n%s", body)
	}
	_, body = get(t, srv.URL+"/welcome?bearer=1", true)
	headers, _ := linkConfig(body)["headers"].(map[string]any)
	if headers["Authorization"] != "Bearer tok-0123456789abcdef" || !strings.Contains(body, `value="1" checked`) {
		t.Errorf("asked for the token in the links: %v", linkConfig(body))
	}
}

// TestWelcomeTrySearch: the test search starts a research job and the page follows it: at once its research id,
// stage and elapsed time with Cancel, kept current by /welcome/events, then its report, rendered with its sources.
func TestWelcomeTrySearch(t *testing.T) {
	t.Parallel()
	b, srv, h := setupWelcome(t)
	code, loc, _ := postWelcome(t, srv, url.Values{"csrf": {h.csrf}, "action": {"try"}, "query": {" what is MCP? "}})
	m := regexp.MustCompile(`^/welcome\?try=([0-9a-f]{16})#try$`).FindStringSubmatch(loc)
	if code != http.StatusSeeOther || m == nil {
		t.Fatalf("try: %d to %q, want 303 to /welcome?try=ID#try", code, loc)
	}
	id := m[1]
	if b.tried[0] != "what is MCP?" {
		t.Errorf("searches tried: %q", b.tried)
	}

	res, err := testkit.Client.Do(cookieRequest(t, srv.URL+loc))
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	body := string(page)
	for _, want := range []string{`id="trying"`, "Searching…", `<span class="mono" id="elapsed">01:05</span>`,
		`<span id="stage">starting</span>`, `<span class="mono" id="research-id">` + id + `</span>`, `value="what is MCP?"`,
		`name="action" value="cancel"`, `name="research" value="` + id + `"`, `new EventSource("/welcome/events?try=` + id + `")`} {
		if !strings.Contains(body, want) {
			t.Errorf("the page of a running test search lacks %q", want)
		}
	}
	nonce := regexp.MustCompile(`<script nonce="([0-9a-f]{32})">`).FindStringSubmatch(body)
	if nonce == nil || !strings.Contains(res.Header.Get("Content-Security-Policy"), "script-src 'nonce-"+nonce[1]+"'") {
		t.Errorf("the page's script and its CSP (%q) do not share a nonce", res.Header.Get("Content-Security-Policy"))
	}

	res, err = testkit.Client.Do(cookieRequest(t, srv.URL+"/welcome/events?try="+id))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	next := eventsOf(t, res)
	if first := next(); !strings.Contains(first, "Searching…") || strings.Contains(first, "data-ended") {
		t.Errorf("first event %q, want the search running", first)
	}
	p, _ := b.research.job(id)
	p.Stage = "researching: reading 3 pages"
	b.research.set(p)
	ev := next()
	for ; strings.Contains(ev, "Searching…") && !strings.Contains(ev, "reading 3 pages"); ev = next() {
	}
	if !strings.Contains(ev, `<span id="stage">researching: reading 3 pages</span>`) {
		t.Errorf("event after the stage changed: %q", ev)
	}
	rep := record.Report{Summary: record.Summary{ID: "20261122T100000.000000-0a1b2c3d", Tool: "search", Topic: "what is MCP?",
		Started: time.Now(), Duration: 3 * time.Second, Backend: "cli"}, Markdown: "# MCP\n\nIt connects <b>tools</b> [1].",
		Sources: []record.Source{{URL: "https://modelcontextprotocol.io", Title: "MCP"}}}
	p.State, p.Report, p.ReportID = record.JobDone, &rep, rep.ID
	b.research.set(p)
	for ev = next(); !strings.Contains(ev, "data-ended"); ev = next() {
		if ev == "" {
			t.Fatal("the events ended before the search did")
		}
	}
	for _, want := range []string{"It works", `<a href="/report?id=` + rep.ID + `">its page</a>`, "<h1>MCP</h1>",
		`<a href="https://modelcontextprotocol.io">MCP</a>`, "took 3s"} {
		if !strings.Contains(ev, want) {
			t.Errorf("the last event lacks %q:\n%s", want, ev)
		}
	}
	if strings.Contains(ev, "<b>tools</b>") {
		t.Error("HTML inside the report was rendered")
	}
	if end := next(); end != "" {
		t.Errorf("the stream goes on after the search ended: %q", end)
	}
	_, body = get(t, srv.URL+loc, true)
	if !strings.Contains(body, "It works") || strings.Contains(body, "EventSource") {
		t.Errorf("the page of the ended search does not show its report alone:\n%s", body)
	}
}

// TestWelcomeTrySearchCancelAndFailures: Cancel ends the test search, with the CSRF token only; a search that fails
// shows its code and fix; one refused at its start says why; an unknown id is the not found page.
func TestWelcomeTrySearchCancelAndFailures(t *testing.T) {
	t.Parallel()
	b, srv, h := setupWelcome(t)
	_, loc, _ := postWelcome(t, srv, url.Values{"csrf": {h.csrf}, "action": {"try"}, "query": {"cancel me"}})
	id := strings.TrimSuffix(strings.TrimPrefix(loc, "/welcome?try="), "#try")
	if code, _, _ := postWelcome(t, srv, url.Values{"action": {"cancel"}, "research": {id}}); code != http.StatusForbidden {
		t.Errorf("Cancel without the CSRF token: %d, want 403", code)
	}
	code, back, _ := postWelcome(t, srv, url.Values{"csrf": {h.csrf}, "action": {"cancel"}, "research": {id}})
	if code != http.StatusSeeOther || back != loc {
		t.Fatalf("Cancel: %d to %q, want 303 to %q", code, back, loc)
	}
	if p, _ := b.research.job(id); p.State != record.JobCancelled || len(b.research.cancelled) != 1 {
		t.Errorf("the search is %s after Cancel", p.State)
	}
	if _, body := get(t, srv.URL+loc, true); !strings.Contains(body, "The search was cancelled.") || strings.Contains(body, "Searching…") {
		t.Errorf("the page after Cancel:\n%s", body)
	}

	_, loc, _ = postWelcome(t, srv, url.Values{"csrf": {h.csrf}, "action": {"try"}, "query": {"fail"}})
	id = strings.TrimSuffix(strings.TrimPrefix(loc, "/welcome?try="), "#try")
	p, _ := b.research.job(id)
	p.State, p.Failed = record.JobFailed, &SearchError{Code: "AUTH_ERROR", Message: "not signed in", Details: "Run `gemini` once and sign in."}
	b.research.set(p)
	if _, body := get(t, srv.URL+loc, true); !strings.Contains(body, "AUTH_ERROR") || !strings.Contains(body, "Run `gemini` once and sign in.") ||
		strings.Contains(body, "It works") {
		t.Errorf("a failed search does not show its code and fix:\n%s", body)
	}

	b.mu.Lock()
	b.refuse = &SearchError{Code: "UNAVAILABLE", Message: "100 research jobs are running", Details: "Wait for one."}
	b.mu.Unlock()
	code, _, body := postWelcome(t, srv, url.Values{"csrf": {h.csrf}, "action": {"try"}, "query": {"refused"}})
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "UNAVAILABLE") || !strings.Contains(body, "Wait for one.") {
		t.Errorf("a refused search: %d\n%s", code, body)
	}
	if _, _, body := postWelcome(t, srv, url.Values{"csrf": {h.csrf}, "action": {"try"}, "query": {"  "}}); !strings.Contains(body, "enter a question") {
		t.Error("an empty question is not refused")
	}
	for _, bad := range []string{"0123456789abcdef", "../x"} {
		if code, body := get(t, srv.URL+"/welcome?try="+bad, true); code != http.StatusNotFound || !strings.Contains(body, "No such research") {
			t.Errorf("/welcome?try=%s: %d, want the not found page", bad, code)
		}
		if code, _ := get(t, srv.URL+"/welcome/events?try="+bad, true); code != http.StatusNotFound {
			t.Errorf("/welcome/events?try=%s: %d, want 404", bad, code)
		}
	}
}

// The headless server's pages have no first-run page: it cannot save keys or connect clients.
func TestNoWelcomeWithoutSettings(t *testing.T) {
	t.Parallel()
	b, _, _ := setup(t)
	srv := httptest.NewServer(New(statusOnly{b}, Forms{}, "secret-token", slog.New(slog.DiscardHandler)))
	t.Cleanup(srv.Close)
	if code, _ := get(t, srv.URL+"/welcome", true); code != http.StatusNotFound {
		t.Errorf("/welcome: %d, want 404", code)
	}
}

// TestWelcomeUnreadableClientFile: a client's file that cannot be parsed is listed with why, not as "not
// connected", and Connect refuses it with the same words and leaves it alone.
func TestWelcomeUnreadableClientFile(t *testing.T) {
	t.Parallel()
	b, srv, h := setupWelcome(t)
	path := filepath.Join(b.home, ".cursor", "mcp.json")
	broken := "{\n  \"mcpServers\": {\n    \"mine\": ]\n  }\n}\n"
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(broken), 0o600); err != nil {
		t.Fatal(err)
	}
	const why = "cannot read ~/.cursor/mcp.json: line 3: invalid character &#39;]&#39; at start of value"
	if _, body := get(t, srv.URL+"/welcome", true); !strings.Contains(body, "<td>"+why+"</td>") {
		t.Errorf("the client list does not say why Cursor's file cannot be read:\n%s", body)
	}
	code, _, body := postWelcome(t, srv, url.Values{"csrf": {h.csrf}, "action": {"connect"}, "client": {"Cursor"}})
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, why) {
		t.Errorf("connect to an unreadable file: %d, want 422 saying %q", code, why)
	}
	if data, _ := os.ReadFile(path); string(data) != broken {
		t.Errorf("the file changed to %q", data)
	}
}
