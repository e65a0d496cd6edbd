package main

import (
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
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tray/traytest"
)

var welcomeLinkRE = regexp.MustCompile(`^(http://127\.0\.0\.1:\d+)/welcome\?token=[0-9a-f]+$`)

// TestFirstRunOpensGettingStarted: at its first start the tray opens the first-run page, once; its test search runs
// for real (the fake CLI), as a research job the page follows until it shows the report, and lands under Recent
// research; Getting started… opens the page again.
func TestFirstRunOpensGettingStarted(t *testing.T) {
	t.Parallel()
	needBus(t)
	fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
	openerEnv, opened := fakeOpener(t)
	p := startTray(t, trayOptions{fake: fake, firstRun: true, signedIn: true, dotenv: "GEMINI_BACKEND=cli\n",
		env: append(fake.Env(), openerEnv...)})
	var links []string
	testkit.WaitFor(t, "the first-run page to open", func() bool {
		data, _ := os.ReadFile(opened)
		links = strings.Fields(string(data))
		return len(links) > 0
	})
	m := welcomeLinkRE.FindStringSubmatch(links[0])
	if len(links) != 1 || m == nil {
		t.Fatalf("opened %q, want one http://127.0.0.1:PORT/welcome?token=…", links)
	}
	base := m[1]
	if _, err := os.Stat(filepath.Join(p.state, "first-run-page-opened")); err != nil {
		t.Errorf("no mark that the first-run page was opened: %v", err)
	}

	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Transport: testkit.Client.Transport, Jar: jar, Timeout: testkit.WaitLimit}
	page := fetch(t, browser, http.MethodGet, links[0], nil, "")
	for _, want := range []string{"<h1>Getting started</h1>", "Gemini CLI", "Claude Desktop", "4. Try a search"} {
		if !strings.Contains(page, want) {
			t.Errorf("the first-run page lacks %q", want)
		}
	}
	csrf := regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`).FindStringSubmatch(page)
	if csrf == nil {
		t.Fatalf("no CSRF token on the page:\n%s", page)
	}
	// The test search runs as a research job: the form leads to the page that follows it, until it shows the report.
	req, _ := http.NewRequest(http.MethodPost, base+"/welcome", strings.NewReader(url.Values{"csrf": {csrf[1]},
		"action": {"try"}, "query": {"first-run test search"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	resp, err := browser.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	following := resp.Request.URL
	if resp.StatusCode != http.StatusOK || !regexp.MustCompile(`^try=[0-9a-f]{16}$`).MatchString(following.RawQuery) {
		t.Fatalf("the test search led to %s (%d), want /welcome?try=ID", following, resp.StatusCode)
	}
	testkit.WaitFor(t, "the test search to show its report", func() bool {
		page = fetch(t, browser, http.MethodGet, following.String(), nil, "")
		return strings.Contains(page, "It works") && strings.Contains(page, "<h1>Fake report</h1>")
	})
	p.waitMenu(t, "the test search under Recent research", func(root traytest.Item) bool {
		recent, _ := root.Find("Recent research")
		lines := recent.VisibleLabels()
		return len(lines) == 3 && strings.HasPrefix(lines[0], `"first-run test search"`)
	})

	p.click(t, "Getting started…")
	testkit.WaitFor(t, "Getting started… to open the page", func() bool {
		data, _ := os.ReadFile(opened)
		links = strings.Fields(string(data))
		return len(links) == 2 && welcomeLinkRE.MatchString(links[1])
	})
}

// fetch sends a request as a browser would (a form from base's pages carries its Origin) and returns the page.
func fetch(t *testing.T, c *http.Client, method, u string, form url.Values, origin string) string {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", origin)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: %d\n%s", method, u, resp.StatusCode, body)
	}
	return string(body)
}
