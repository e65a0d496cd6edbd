package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
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
	browser := &http.Client{Jar: jar, Timeout: testkit.WaitLimit}
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
