//go:build unix

package main

// The settings and setup pages in a real browser: headless Chromium driven through chromedriver's WebDriver HTTP API.
// Skips when chromium or chromedriver is not installed (Debian: chromium, chromium-driver).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

// webDriver is a WebDriver session.
type webDriver struct {
	t       *testing.T
	base    string // http://127.0.0.1:PORT of chromedriver
	session string
}

func lookPath(names ...string) string {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

func startBrowser(t *testing.T) *webDriver {
	t.Helper()
	driver := lookPath("chromedriver")
	browser := lookPath("chromium", "chromium-browser", "google-chrome")
	if driver == "" || browser == "" {
		t.Skip("chromium and chromedriver are needed (apt-get install chromium chromium-driver)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(driver, fmt.Sprintf("--port=%d", port), "--allowed-ips=127.0.0.1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // chromedriver starts chromium: end them together
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	wd := &webDriver{t: t, base: fmt.Sprintf("http://127.0.0.1:%d", port)}
	deadline := time.Now().Add(testkit.WaitLimit)
	for {
		var st struct {
			Ready bool `json:"ready"`
		}
		if err := wd.call(http.MethodGet, "/status", nil, &st); err == nil && st.Ready {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("chromedriver did not become ready")
		}
		time.Sleep(100 * time.Millisecond)
	}
	caps := map[string]any{"capabilities": map[string]any{"alwaysMatch": map[string]any{
		"browserName": "chrome",
		"goog:chromeOptions": map[string]any{
			"binary": browser,
			"args": []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
				"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
				"--user-data-dir=" + t.TempDir()},
		},
	}}}
	var created struct {
		SessionID string `json:"sessionId"`
	}
	if err := wd.call(http.MethodPost, "/session", caps, &created); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	wd.session = "/session/" + created.SessionID
	t.Cleanup(func() { _ = wd.call(http.MethodDelete, wd.session, nil, nil) })
	return wd
}

// call sends one WebDriver command and decodes its "value".
func (wd *webDriver) call(method, path string, body, value any) error {
	var r io.Reader
	if body != nil {
		data, _ := json.Marshal(body)
		r = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, wd.base+path, r)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Transport: testkit.Client.Transport, Timeout: testkit.WaitLimit}).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, data)
	}
	if value == nil {
		return nil
	}
	var envelope struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(data, &envelope); err != nil {
		return err
	}
	return json.Unmarshal(envelope.Value, value)
}

func (wd *webDriver) must(err error) {
	wd.t.Helper()
	if err != nil {
		wd.t.Fatal(err)
	}
}

func (wd *webDriver) open(url string) {
	wd.t.Helper()
	wd.must(wd.call(http.MethodPost, wd.session+"/url", map[string]string{"url": url}, nil))
}

func (wd *webDriver) url() string {
	wd.t.Helper()
	var u string
	wd.must(wd.call(http.MethodGet, wd.session+"/url", nil, &u))
	return u
}

func (wd *webDriver) source() string {
	wd.t.Helper()
	var s string
	wd.must(wd.call(http.MethodGet, wd.session+"/source", nil, &s))
	return s
}

func (wd *webDriver) element(css string) string {
	wd.t.Helper()
	var el map[string]string
	wd.must(wd.call(http.MethodPost, wd.session+"/element", map[string]string{"using": "css selector", "value": css}, &el))
	for _, id := range el {
		return id
	}
	wd.t.Fatalf("no element %s", css)
	return ""
}

func (wd *webDriver) fill(css, text string) {
	wd.t.Helper()
	id := wd.element(css)
	wd.must(wd.call(http.MethodPost, wd.session+"/element/"+id+"/clear", map[string]any{}, nil))
	wd.must(wd.call(http.MethodPost, wd.session+"/element/"+id+"/value", map[string]string{"text": text}, nil))
}

func (wd *webDriver) click(css string) {
	wd.t.Helper()
	wd.must(wd.call(http.MethodPost, wd.session+"/element/"+wd.element(css)+"/click", map[string]any{}, nil))
}

// waitSource waits until the page source contains want.
func (wd *webDriver) waitSource(want string) string {
	wd.t.Helper()
	deadline := time.Now().Add(testkit.WaitLimit)
	for {
		s := wd.source()
		if strings.Contains(s, want) {
			return s
		}
		if time.Now().After(deadline) {
			wd.t.Fatalf("the page never showed %q; it shows:\n%s", want, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestSettingsPageInChromium(t *testing.T) {
	t.Parallel()
	wd := startBrowser(t)
	p := startTray(t, trayOptions{headless: true})
	base, token := p.pages(t)
	dotenv := filepath.Join(p.configDir, ".env")
	settings := filepath.Join(p.configDir, ".gemini", "settings.json")

	// No token: 403, in the browser and to a plain client.
	wd.open(base + "/settings")
	wd.waitSource("Forbidden")
	if resp, err := http.Get(base + "/settings"); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("GET /settings without the cookie: %v %v, want 403", resp.Status, err)
	}

	// With the token: the cookie is set and the token leaves the address bar.
	wd.open(base + "/settings?token=" + token)
	wd.waitSource("Firecrawl API key")
	if u := wd.url(); u != base+"/settings" {
		t.Errorf("address bar shows %s, want %s/settings", u, base)
	}

	const key = "fc-browser-secret-0123456789-9876"
	wd.fill("#FIRECRAWL_API_KEY", key)
	wd.fill("#GEMINI_MODEL", "gemini-2.5-pro")
	wd.click("#save")
	page := wd.waitSource("Saved and applied")
	if strings.Contains(page, key) || strings.Contains(page, "0123456789") {
		t.Error("the page shows the full Firecrawl key after saving")
	}
	if !strings.Contains(page, "••••9876") {
		t.Error("the page does not show the key's last four characters")
	}
	data, err := os.ReadFile(dotenv)
	if err != nil || !strings.Contains(string(data), "FIRECRAWL_API_KEY="+key+"\n") || !strings.Contains(string(data), "GEMINI_MODEL=gemini-2.5-pro\n") {
		t.Fatalf(".env holds %q (%v), want the key and the model", data, err)
	}
	if fi, err := os.Stat(dotenv); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf(".env mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	testkit.WaitFor(t, "settings.json regenerated with Firecrawl", func() bool { return hasFirecrawl(settings) })
	if strings.Contains(mustRead(t, settings), key) {
		t.Error("settings.json holds the key itself")
	}
	if strings.Contains(p.stderr.String(), key) {
		t.Error("the log holds the key")
	}

	// An invalid value: inline error, nothing saved.
	wd.fill("#GEMINI_MAX_CONCURRENT", "99")
	wd.click("#save")
	wd.waitSource(`id="error-GEMINI_MAX_CONCURRENT"`)
	if after := mustRead(t, dotenv); after != string(data) {
		t.Errorf(".env changed by an invalid save: %q", after)
	}

	// A cross-origin POST, even one that knows the CSRF token and is sent with the cookie (another port of
	// 127.0.0.1 is the same site, so SameSite does not stop it): 403 from the Origin check.
	wd.open(base + "/settings")
	csrf := regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`).FindStringSubmatch(wd.source())
	if csrf == nil {
		t.Fatal("no CSRF token in the form")
	}
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, `<!doctype html><form id="f" method="post" action="%s/settings">
<input name="csrf" value="%s"><input name="FIRECRAWL_API_KEY" value="fc-evil-key-000000">
</form><script>document.getElementById("f").submit()</script>`, base, csrf[1])
	}))
	defer evil.Close()
	wd.open(evil.URL)
	wd.waitSource("another site")
	if after := mustRead(t, dotenv); after != string(data) {
		t.Errorf(".env changed by a cross-origin POST: %q", after)
	}
}

// A bad value hand-edited into the .env file while the tray runs shows in its field as written, with its error, and
// survives a save of another field: the file stays as edited, the page says the value still has an error, and the
// other change waits in the form until the value is corrected.
func TestBadHandEditedValueSurvivesASaveInChromium(t *testing.T) {
	t.Parallel()
	wd := startBrowser(t)
	p := startTray(t, trayOptions{headless: true})
	base, token := p.pages(t)
	dotenv := filepath.Join(p.configDir, ".env")
	const edited = "# by hand\nGEMINI_SEARCH_TIMEOUT=abc\n"
	if err := os.WriteFile(dotenv, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	fieldValue := func(id string) any { return wd.execute(`return document.getElementById("` + id + `").value`) }

	wd.open(base + "/settings?token=" + token)
	wd.waitSource(`id="error-GEMINI_SEARCH_TIMEOUT"`)
	if got := fieldValue("GEMINI_SEARCH_TIMEOUT"); got != "abc" {
		t.Errorf("the timeout field shows %q, want the file's abc", got)
	}

	wd.fill("#GEMINI_MODEL", "gemini-2.5-pro")
	wd.click("#save")
	page := wd.waitSource("until the value marked below is corrected")
	if after := mustRead(t, dotenv); !strings.HasPrefix(after, edited) || !strings.Contains(after, "\nGEMINI_MODEL=gemini-2.5-pro\n") {
		t.Errorf(".env became %q, want the model saved and the bad line kept as edited", after)
	}
	if timeout, model := fieldValue("GEMINI_SEARCH_TIMEOUT"), fieldValue("GEMINI_MODEL"); timeout != "abc" ||
		model != "gemini-2.5-pro" || !strings.Contains(page, `id="error-GEMINI_SEARCH_TIMEOUT"`) {
		t.Errorf("after the save the fields show %q and %q, want abc with its error and the model saved", timeout, model)
	}

	wd.fill("#GEMINI_SEARCH_TIMEOUT", "120000")
	wd.click("#save")
	wd.waitSource("Saved and applied")
	if after := mustRead(t, dotenv); !strings.HasPrefix(after, "# by hand\nGEMINI_SEARCH_TIMEOUT=120000\n") ||
		!strings.Contains(after, "\nGEMINI_MODEL=gemini-2.5-pro\n") {
		t.Errorf(".env holds %q, want the timeout corrected in its line, and the model", after)
	}
}

// TestSetupPageInChromium: the setup page's checklist, and its button that runs the real queries, in a browser.
func TestSetupPageInChromium(t *testing.T) {
	t.Parallel()
	wd := startBrowser(t)
	fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
	p := startTray(t, trayOptions{headless: true, fake: fake, dotenv: "GEMINI_BACKEND=cli\n", env: fake.Env()})
	base, token := p.pages(t)

	wd.open(base + "/setup?token=" + token)
	page := wd.waitSource("not queried (--offline)")
	if u := wd.url(); u != base+"/setup" {
		t.Errorf("address bar shows %s, want %s/setup", u, base)
	}
	if !strings.Contains(page, "<strong>Config dir</strong>") {
		t.Errorf("the checklist lacks the config dir:\n%s", page)
	}
	wd.click("#query")
	page = wd.waitSource(`id="queried"`)
	if !regexp.MustCompile(`\(version [^)]+\) answered in \d+\.\ds`).MatchString(page) {
		t.Errorf("the page after Run the real queries does not show the CLI's answer:\n%s", page)
	}
}

// execute runs script in the page and returns what it returns.
func (wd *webDriver) execute(script string) any {
	wd.t.Helper()
	var v any
	wd.must(wd.call(http.MethodPost, wd.session+"/execute/sync", map[string]any{"script": script, "args": []any{}}, &v))
	return v
}

// The status page follows the server without reloading: a search that starts shows up on the page as it is, and
// its elapsed time moves.
func TestStatusPageFollowsTheServerInChromium(t *testing.T) {
	t.Parallel()
	wd := startBrowser(t)
	fake := geminitest.NewLocal(t, geminitest.ScenarioHang)
	p := startTray(t, trayOptions{headless: true, fake: fake, env: fake.Env()})
	base, token := p.pages(t)

	wd.open(base + "/status?token=" + token)
	wd.waitSource("No searches running.")
	wd.execute("window.sameDocument = true")
	searchAsync(t, base, "does the status page follow?")
	wd.waitSource("does the status page follow?")
	wd.waitSource(">00:02<") // the elapsed time moves
	if same := wd.execute("return window.sameDocument === true"); same != true {
		t.Error("the page was reloaded to show the search")
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
