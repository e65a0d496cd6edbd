package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gemini-search-mcp/gemini-search-mcp/assets"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/mockgemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tray/traytest"
)

// envOpened is the file where the fake xdg-open writes what it was asked to open, one target a line.
const envOpened = "TRAY_TEST_OPENED"

// fakeOpener puts the test binary on a PATH of its own as xdg-open (TestMain then runs recordOpen), and returns
// the tray's environment for it and the file that collects what it opened.
func fakeOpener(t *testing.T) (env []string, opened string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(self, filepath.Join(dir, "xdg-open")); err != nil {
		t.Fatal(err)
	}
	opened = filepath.Join(t.TempDir(), "opened")
	return []string{"PATH=" + dir, envOpened + "=" + opened}, opened
}

// recordOpen is the fake xdg-open: it appends its arguments to the file named by envOpened.
func recordOpen(args []string) int {
	f, err := os.OpenFile(os.Getenv(envOpened), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake xdg-open:", err)
		return 1
	}
	defer f.Close()
	if _, err := fmt.Fprintln(f, strings.Join(args, " ")); err != nil {
		fmt.Fprintln(os.Stderr, "fake xdg-open:", err)
		return 1
	}
	return 0
}

var (
	setupLinkRE = regexp.MustCompile(`^(http://127\.0\.0\.1:\d+)/setup\?token=[0-9a-f]+$`)
	pageCSRFRE  = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)
)

// TestCheckSetupItem: Check setup… opens the setup page with this launch's token; the page shows doctor's
// checklist, and its button has the Gemini CLI answer a real (fake) query.
func TestCheckSetupItem(t *testing.T) {
	t.Parallel()
	needBus(t)
	fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
	openerEnv, opened := fakeOpener(t)
	p := startTray(t, trayOptions{fake: fake, dotenv: "GEMINI_BACKEND=cli\n", env: append(fake.Env(), openerEnv...)})
	base, _ := p.waitRunning(t)

	p.click(t, "Check setup…")
	var link string
	testkit.WaitFor(t, "xdg-open to be asked for the setup page", func() bool {
		data, _ := os.ReadFile(opened)
		link = strings.TrimSpace(string(data))
		return link != ""
	})
	m := setupLinkRE.FindStringSubmatch(link)
	if m == nil || m[1] != base {
		t.Fatalf("opened %q, want %s/setup?token=…", link, base)
	}

	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Transport: testkit.Client.Transport, Jar: jar, Timeout: testkit.WaitLimit}
	read := func(resp *http.Response, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s %s: %s\n%s", resp.Request.Method, resp.Request.URL, resp.Status, body)
		}
		return string(body)
	}
	page := read(browser.Get(link))
	for _, want := range []string{"<h1>Check setup</h1>", "<strong>Gemini CLI</strong>", "not queried (--offline)"} {
		if !strings.Contains(page, want) {
			t.Errorf("the setup page lacks %q:\n%s", want, page)
		}
	}
	if n := len(fake.Calls()); n > 1 { // the version check at most
		t.Errorf("opening the page ran the CLI %d times, want no query", n)
	}
	csrf := pageCSRFRE.FindStringSubmatch(page)
	if csrf == nil {
		t.Fatalf("no CSRF token in:\n%s", page)
	}
	req, _ := http.NewRequest(http.MethodPost, base+"/setup", strings.NewReader(url.Values{"csrf": {csrf[1]}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	page = read(browser.Do(req))
	if !regexp.MustCompile(`<p>\S+ \(version [^)]+\) answered in \d+\.\ds`).MatchString(page) {
		t.Errorf("the page after the queries does not show the CLI's answer:\n%s", page)
	}
}

// envNpxRan is the file where the fake npx notes each run, one a line.
const envNpxRan = "TRAY_TEST_NPX_RAN"

// fakeNpx puts the test binary on PATH as npx (TestMain then runs recordNpx), with no gemini, and returns the
// tray's environment for it and the file that collects its runs.
func fakeNpx(t *testing.T) (env []string, ran string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(self, filepath.Join(dir, "npx")); err != nil {
		t.Fatal(err)
	}
	ran = filepath.Join(t.TempDir(), "npx-ran")
	return []string{"PATH=" + dir, envNpxRan + "=" + ran, "GEMINI_CLI_PATH="}, ran
}

// recordNpx is the fake npx: it notes its arguments and fails, as a download with no network would.
func recordNpx(args []string) int {
	f, err := os.OpenFile(os.Getenv(envNpxRan), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err == nil {
		fmt.Fprintln(f, strings.Join(args, " "))
		f.Close()
	}
	return 1
}

// labelsFit checks that every label of the menu, at any depth, fits a menu of readable width.
func labelsFit(t *testing.T, root traytest.Item) {
	t.Helper()
	for _, c := range root.Children {
		if n := len([]rune(c.Label)); n > 60 {
			t.Errorf("label %q has %d characters, want at most 60", c.Label, n)
		}
		labelsFit(t, c)
	}
}

// An API key alone is a healthy setup under GEMINI_BACKEND=auto: with no Gemini CLI and no npx on PATH, the tray
// shows no setup problem (the missing CLI is a note), the icon and tooltip do not say down, and the status line
// names the Gemini API, which serves the searches.
func TestAPIKeyAloneIsHealthy(t *testing.T) {
	t.Parallel()
	needBus(t)
	mock := mockgemini.New()
	api := httptest.NewServer(mock)
	t.Cleanup(func() {
		mock.Close()
		api.Close()
	})
	p := startTray(t, trayOptions{env: []string{"PATH=" + t.TempDir(), "GEMINI_CLI_PATH=", "GEMINI_BACKEND=auto",
		"GEMINI_API_KEY=AIza-tray-test-key", "GOOGLE_GEMINI_BASE_URL=" + api.URL}})
	root := p.waitMenu(t, "the status line naming the Gemini API", func(root traytest.Item) bool {
		return strings.HasSuffix(root.Children[0].Label, "/mcp · Gemini API")
	})
	if setup, ok := root.Find("Setup:"); ok && setup.Visible && !strings.HasPrefix(setup.Label, "Setup: 1 note") {
		t.Errorf("the setup shows %q, want no problem", setup.Label)
	}
	if note, ok := root.Find("! Gemini CLI: not found"); !ok || !note.Visible {
		t.Errorf("the missing CLI is not noted:\n%s", root)
	}
	p.waitIcon(t, assets.Idle)
	var tip string
	testkit.WaitFor(t, "the tooltip naming the Gemini API", func() bool { // the first is set as systray registers
		tip, _ = p.menu.Tooltip()
		return strings.Contains(tip, "Gemini API (auto: the Gemini CLI is not installed)")
	})
	if strings.Contains(tip, "down") {
		t.Errorf("tooltip %q, want no down", tip)
	}
	labelsFit(t, root)

	// The pages agree: /welcome and /setup find nothing broken and name the Gemini API.
	base, token := p.pages(t)
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Transport: testkit.Client.Transport, Jar: jar, Timeout: testkit.WaitLimit}
	for _, page := range []string{"/welcome", "/setup"} {
		html := fetch(t, browser, http.MethodGet, base+page+"?token="+token, nil, "")
		for _, want := range []string{`class="banner ok" id="verdict"`, "/mcp · Gemini API (auto: the Gemini CLI is not installed)",
			`<li class="check ok" id="check-backend">`, `<li class="check hint" id="check-gemini-cli">`} {
			if !strings.Contains(html, want) {
				t.Errorf("%s lacks %q:\n%s", page, want, html)
			}
		}
	}
}

// npx is a way to fetch the Gemini CLI, not an installed CLI: with npx but no CLI on PATH and GEMINI_CLI_NPX at its
// default (off), the setup says the CLI is missing and its fix names the install command, a search is refused at
// once with CLI_NOT_FOUND and that fix, and npx never runs.
func TestNpxIsNotAnInstalledCLI(t *testing.T) {
	t.Parallel()
	needBus(t)
	npxEnv, ran := fakeNpx(t)
	p := startTray(t, trayOptions{env: npxEnv})
	shown := func(root traytest.Item, label string) bool { it, ok := root.Find(label); return ok && it.Visible }
	root := p.waitMenu(t, "the setup problems", func(root traytest.Item) bool { return shown(root, "Setup: 2 problems") })
	if !shown(root, "✗ Gemini CLI: not found (gemini is not on PATH;") {
		t.Errorf("the setup does not say that the CLI is missing:\n%s", root)
	}
	labelsFit(t, root)
	base, _ := p.waitRunning(t)
	pagesBase, token := p.pages(t)
	if pagesBase != base {
		t.Fatalf("the pages are on %s, the server on %s", pagesBase, base)
	}
	jar, _ := cookiejar.New(nil)
	page := fetch(t, &http.Client{Transport: testkit.Client.Transport, Jar: jar, Timeout: testkit.WaitLimit}, http.MethodGet, base+"/setup?token="+token, nil, "")
	if !regexp.MustCompile(`id="check-gemini-cli">(?s:.)*npx is, and could fetch the CLI(?s:.)*npm install -g @google/gemini-cli`).MatchString(page) {
		t.Errorf("the setup page does not name the install command for the missing CLI:\n%s", page)
	}
	res := <-searchAsync(t, base, "needs the CLI")
	if text := testkit.Text(res); res == nil || !res.IsError || !strings.Contains(text, "CLI_NOT_FOUND") ||
		!strings.Contains(text, "npm install -g @google/gemini-cli") {
		t.Errorf("search result %s, want CLI_NOT_FOUND with the install command", text)
	}
	if data, err := os.ReadFile(ran); err == nil {
		t.Errorf("the tray ran npx: %q", data)
	}
}
