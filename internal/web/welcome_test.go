package web

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/checklist"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/clients"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
)

// welcomeBackend is a fakeBackend that can also connect clients and try searches, as the tray's.
type welcomeBackend struct {
	*fakeBackend
	home  string
	tried []string
	try   func(query string) (record.Report, error)
}

func (w *welcomeBackend) Clients() []clients.Client {
	return clients.All(clients.Platform{GOOS: "linux", Home: w.home, XDGConfigHome: filepath.Join(w.home, ".config")},
		clients.Server{URL: "http://127.0.0.1:3000/mcp", StdioCommand: "/opt/gemini-search-mcp"})
}

func (w *welcomeBackend) TrySearch(_ context.Context, query string) (record.Report, error) {
	w.tried = append(w.tried, query)
	return w.try(query)
}

func setupWelcome(t *testing.T) (*welcomeBackend, *httptest.Server, *Handler) {
	t.Helper()
	b, _, _ := setup(t)
	wb := &welcomeBackend{fakeBackend: b, home: t.TempDir()}
	wb.checklist = func(context.Context, bool) []checklist.Check { return sampleChecks }
	h := New(wb, Forms{Settings: wb, Welcome: wb}, "secret-token", slog.New(slog.DiscardHandler))
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

	// Try: the report, rendered, with its sources; then a failure with its fix.
	b.try = func(q string) (record.Report, error) {
		return record.Report{Summary: record.Summary{Tool: "search", Topic: q, Started: time.Now(), Duration: 3 * time.Second,
			Backend: "cli"}, Markdown: "# MCP\n\nIt connects <b>tools</b> [1].", Sources: []record.Source{{URL: "https://modelcontextprotocol.io", Title: "MCP"}}}, nil
	}
	code, _, body = postWelcome(t, srv, url.Values{"csrf": {h.csrf}, "action": {"try"}, "query": {" what is MCP? "}})
	for _, want := range []string{"It works", "<h1>MCP</h1>", `<a href="https://modelcontextprotocol.io">MCP</a>`, "took 3s", `value="what is MCP?"`} {
		if code != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("tried search (%d) lacks %q", code, want)
		}
	}
	if strings.Contains(body, "<b>tools</b>") {
		t.Error("HTML inside the report was rendered")
	}
	b.try = func(string) (record.Report, error) {
		return record.Report{}, &SearchError{Code: "AUTH_ERROR", Message: "not signed in", Details: "Run `gemini` once and sign in."}
	}
	_, _, body = postWelcome(t, srv, url.Values{"csrf": {h.csrf}, "action": {"try"}, "query": {"again"}})
	if !strings.Contains(body, "AUTH_ERROR") || !strings.Contains(body, "Run `gemini` once and sign in.") || strings.Contains(body, "It works") {
		t.Errorf("a failed search does not show its code and fix:\n%s", body)
	}
	if len(b.tried) != 2 || b.tried[0] != "what is MCP?" {
		t.Errorf("searches tried: %q", b.tried)
	}
	if _, _, body := postWelcome(t, srv, url.Values{"csrf": {h.csrf}, "action": {"try"}, "query": {"  "}}); !strings.Contains(body, "enter a question") {
		t.Error("an empty question is not refused")
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
