package trayapp

import (
	"context"
	"errors"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/app"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/httpserver"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

// controllerOptions describe the process a test controller runs in.
type controllerOptions struct {
	env    map[string]string // the process environment (GEMINI_SEARCH_CONFIG_DIR is the test's own)
	dotenv string            // the .env file at the start ("": none)
	args   []string          // the command line (default: --port 0)
	data   string            // the user's data dir, where the research library is kept ("": no library)
}

// startController runs a controller as Main does, without the tray icon, on a fresh config dir, until the test ends.
func startController(t *testing.T, o controllerOptions) *controller {
	t.Helper()
	dir := t.TempDir()
	if o.dotenv != "" {
		if err := os.WriteFile(config.EnvPath(dir), []byte(o.dotenv), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	vars := map[string]string{config.DirVar: dir, "GEMINI_CLI_PATH": os.Args[0]}
	maps.Copy(vars, o.env)
	env := config.Env{Lookup: func(name string) (string, bool) { v, ok := vars[name]; return v, ok }, GOOS: "linux", Home: t.TempDir(),
		XDGDataHome: o.data}
	if o.args == nil {
		o.args = []string{"--port", "0"}
	}
	flags := app.NewFlags("test", "", io.Discard)
	if _, done := flags.Parse(o.args, "test", io.Discard); done {
		t.Fatalf("bad flags %q", o.args)
	}
	c, _, err := start(app.Source{Env: env, Flags: flags}, io.Discard, "test")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := c.run(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		c.shutdown()
	})
	return c
}

// settingsClient is a browser on c's settings page, served by a test server of its own.
type settingsClient struct {
	t    *testing.T
	base string
	c    *http.Client
}

func openSettings(t *testing.T, c *controller) *settingsClient {
	t.Helper()
	link, err := c.http.PageURL("/settings")
	if err != nil {
		t.Fatal(err)
	}
	jar, _ := cookiejar.New(nil)
	s := &settingsClient{t: t, base: "http://" + c.http.Status().Addr, c: &http.Client{Transport: testkit.Client.Transport, Jar: jar, Timeout: testkit.WaitLimit}}
	if code, page := s.do(http.MethodGet, link, nil); code != http.StatusOK {
		t.Fatalf("open the settings page: %d\n%s", code, page)
	}
	return s
}

func (s *settingsClient) do(method, u string, form url.Values) (int, string) {
	s.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, u, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", s.base)
	}
	resp, err := s.c.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	page, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(page)
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)

// save submits the settings form with values, as the Save button does, and returns the page it ends on.
func (s *settingsClient) save(values url.Values) (int, string) {
	s.t.Helper()
	_, page := s.do(http.MethodGet, s.base+"/settings", nil)
	m := csrfRE.FindStringSubmatch(page)
	if m == nil {
		s.t.Fatalf("no CSRF token in:\n%s", page)
	}
	form := url.Values{"csrf": {m[1]}}
	maps.Copy(form, values)
	return s.do(http.MethodPost, s.base+"/settings", form)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return string(data)
}

func TestSettingsPageRefusesWhatTheAppWouldRefuse(t *testing.T) {
	t.Parallel()
	c := startController(t, controllerOptions{})
	// Edited by hand while the tray runs: the app refuses it (no token for a host others can reach), so the
	// server keeps its old settings. Saving the page on top of it must not claim success.
	path := config.EnvPath(c.app.Config().Dir)
	const byHand = "MCP_SERVER_HOST=10.1.2.3\n"
	if err := os.WriteFile(path, []byte(byHand), 0o600); err != nil {
		t.Fatal(err)
	}
	code, page := openSettings(t, c).save(url.Values{"GEMINI_MODEL": {"gemini-2.5-pro"}})
	if code != http.StatusUnprocessableEntity || !strings.Contains(page, "Nothing was saved: refusing to serve on a non-loopback host without a token") {
		t.Errorf("got %d, want 422 saying why nothing was saved; page:\n%s", code, page)
	}
	if strings.Contains(page, "applied") {
		t.Errorf("the page says the settings were applied:\n%s", page)
	}
	if got := readFile(t, path); got != byHand {
		t.Errorf(".env holds %q, want it untouched (%q)", got, byHand)
	}
}

func TestSaveDotenvChecksTheWholeConfig(t *testing.T) {
	t.Parallel()
	const token = "MCP_AUTH_TOKEN=a-token-of-16-chars\n"
	tests := []struct {
		name    string
		host    controllerOptions
		data    string
		refused string // "" when the file must be written
	}{
		{"non-loopback host, no token anywhere", controllerOptions{}, "MCP_SERVER_HOST=10.1.2.3\n", "non-loopback host"},
		{"non-loopback host from the environment, token dropped from the file",
			controllerOptions{env: map[string]string{"MCP_SERVER_HOST": "10.1.2.3"}, dotenv: token}, "GEMINI_MODEL=m\n", "non-loopback host"},
		{"non-loopback host from --host, token dropped from the file",
			controllerOptions{args: []string{"--host", "10.1.2.3", "--port", "0"}, dotenv: token}, "GEMINI_MODEL=m\n", "non-loopback host"},
		{"invalid value that the environment overrides today",
			controllerOptions{env: map[string]string{"GEMINI_MAX_CONCURRENT": "4"}}, "GEMINI_MAX_CONCURRENT=99\n", "GEMINI_MAX_CONCURRENT"},
		{"non-loopback host, token from the environment",
			controllerOptions{env: map[string]string{"MCP_AUTH_TOKEN": "a-token-of-16-chars"}}, "MCP_SERVER_HOST=10.1.2.3\n", ""},
		{"non-loopback host and token in the file", controllerOptions{}, "MCP_SERVER_HOST=10.1.2.3\n" + token, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := startController(t, tt.host)
			path := config.EnvPath(c.app.Config().Dir)
			_, err := c.SaveDotenv([]byte(tt.data))
			got := readFile(t, path)
			if tt.refused == "" {
				if err != nil || got != tt.data {
					t.Errorf("got %v, .env %q; want it saved as %q", err, got, tt.data)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.refused) {
				t.Errorf("got %v, want it refused naming %q", err, tt.refused)
			}
			if got != tt.host.dotenv {
				t.Errorf(".env holds %q, want it untouched (%q)", got, tt.host.dotenv)
			}
		})
	}
}

func TestSettingsPageSaysWhenNotApplied(t *testing.T) {
	t.Parallel()
	c := startController(t, controllerOptions{})
	dir := c.app.Config().Dir
	// The workspace cannot be prepared: applying fails after the file was written.
	gemini := filepath.Join(dir, ".gemini")
	if err := os.RemoveAll(gemini); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gemini, []byte("in the way"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, page := openSettings(t, c).save(url.Values{"GEMINI_MODEL": {"gemini-2.5-pro"}})
	if code != http.StatusOK || !strings.Contains(page, "Saved, but not applied: ") {
		t.Errorf("got %d, want 200 saying the settings were saved but not applied; page:\n%s", code, page)
	}
	if strings.Contains(page, "Saved and applied") {
		t.Errorf("the page says the settings were applied:\n%s", page)
	}
	if got := readFile(t, config.EnvPath(dir)); !strings.Contains(got, "GEMINI_MODEL=gemini-2.5-pro\n") {
		t.Errorf(".env holds %q, want the model saved", got)
	}
	if c.app.Config().Model == "gemini-2.5-pro" {
		t.Error("the model is in force though applying failed")
	}
}

func TestSettingsPageShowsFlagOverrides(t *testing.T) {
	t.Parallel()
	c := startController(t, controllerOptions{dotenv: "MCP_SERVER_PORT=4567\n", args: []string{"--port", "0"}})
	s := openSettings(t, c)
	_, page := s.do(http.MethodGet, s.base+"/settings", nil)
	if !strings.Contains(page, `id="overridden-MCP_SERVER_PORT"`) || !strings.Contains(page, "Set by --port on the command line (MCP_SERVER_PORT = 0)") {
		t.Errorf("the page does not say --port overrides the port in .env:\n%s", page)
	}
}

// TestReportIsNotARun: a failed menu action goes to the last errors without showing as a running search, even
// for a moment (the next run is the registry's first).
func TestReportIsNotARun(t *testing.T) {
	t.Parallel()
	c := startController(t, controllerOptions{})
	c.Report("open the settings page", errors.New("xdg-open is not installed"))
	snap := c.app.State().Activity
	if len(snap.Failures) != 1 || snap.Failures[0].Code != "TRAY_ERROR" ||
		snap.Failures[0].Message != "open the settings page: xdg-open is not installed" {
		t.Errorf("failures %+v, want the TRAY_ERROR", snap.Failures)
	}
	_, run := c.app.Activity().Begin(context.Background(), "", "search", "q")
	defer run.End(nil)
	if running := c.app.State().Activity.Running; len(running) != 1 || running[0].ID != 1 {
		t.Errorf("the next run is %+v, want run 1: Report registered a run", running)
	}
}

func TestOpenHidingQuery(t *testing.T) {
	t.Parallel()
	const link = "http://127.0.0.1:3000/settings?token=0123456789abcdef"
	tests := []struct {
		name   string
		target string
		err    error
		want   string
	}{
		{"a page link", link, errors.New("open " + link + ": xdg-open is not installed"),
			"open http://127.0.0.1:3000/settings: xdg-open is not installed"},
		{"a page link, quoted", link, errors.New(`open "` + strings.ReplaceAll(link, "=", `\u003d`) + `": failed`),
			"could not open http://127.0.0.1:3000/settings"},
		{"a folder", "/home/me/.config/gemini-search-mcp", errors.New("open /home/me/.config/gemini-search-mcp: exit status 4"),
			"open /home/me/.config/gemini-search-mcp: exit status 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := openHidingQuery(func(string) error { return tt.err })(tt.target)
			if err == nil || err.Error() != tt.want {
				t.Errorf("got %v, want %q", err, tt.want)
			}
		})
	}
	if err := openHidingQuery(func(string) error { return nil })(link); err != nil {
		t.Errorf("a successful open: got %v", err)
	}
}

// TestNoRestartAfterShutdown: a restart asked for once shutdown began (by a settings save that moves the server,
// or by the watcher) must not bring the server, or the fallback pages, back up.
func TestNoRestartAfterShutdown(t *testing.T) {
	t.Parallel()
	c := startController(t, controllerOptions{})
	if st := c.http.Status(); st.State != httpserver.Running {
		t.Fatalf("server %v (%v), want running", st.State, st.Err)
	}
	c.shutdown()
	if err := c.http.Restart("", ""); err == nil {
		t.Error("Restart after shutdown succeeded")
	}
	if err := c.StartServer(); err == nil {
		t.Error("Start after shutdown succeeded")
	}
	if st := c.http.Status(); st.State == httpserver.Running {
		t.Errorf("the server runs again on %s after shutdown", st.Addr)
	}
	if u, err := c.http.PageURL("/settings"); err == nil {
		t.Errorf("the pages are served after shutdown, at %s", u)
	}
}

// TestFallbackPagesStopWhenTheServerRuns: while the port is busy the pages are served on a port of their own;
// once the server runs again it serves them, and that other port is closed.
func TestFallbackPagesStopWhenTheServerRuns(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	_, port, _ := net.SplitHostPort(busy.Addr().String())
	c := startController(t, controllerOptions{args: []string{"--port", port}})
	if st := c.http.Status(); st.State != httpserver.Failed {
		t.Fatalf("server %v, want failed on the busy port", st.State)
	}
	link, err := c.http.PageURL("/settings")
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(link)
	if u.Port() == port {
		t.Fatalf("the pages are said to be on the busy port: %s", u.Host)
	}
	answers := func() bool {
		conn, err := net.Dial("tcp", u.Host)
		if err == nil {
			conn.Close()
		}
		return err == nil
	}
	if !answers() {
		t.Fatalf("the fallback pages at %s do not answer", u.Host)
	}

	busy.Close() // the port is free again
	if err := c.StartServer(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(testkit.WaitLimit)
	for answers() {
		if time.Now().After(deadline) {
			t.Fatalf("the fallback pages at %s still answer while the server runs on %s", u.Host, c.http.Status().Addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if link, err := c.http.PageURL("/settings"); err != nil || !strings.HasPrefix(link, "http://"+c.http.Status().Addr+"/") {
		t.Errorf("settings link %s (%v), want one on the server's address %s", link, err, c.http.Status().Addr)
	}
}
