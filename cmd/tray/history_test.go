package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tray/traytest"
)

var (
	recentLineRE  = regexp.MustCompile(`^"tray history query" · \d\d:\d\d · \d+s$`)
	reportLinkRE  = regexp.MustCompile(`^(http://127\.0\.0\.1:\d+)/report\?id=([0-9T.a-f-]+)&token=[0-9a-f]+$`)
	historyLinkRE = regexp.MustCompile(`^http://127\.0\.0\.1:\d+/history\?token=[0-9a-f]+$`)
)

// TestRecentResearchItem: a finished search shows under Recent research; a click opens its report page with this
// launch's token, and the page renders the report with its sources as links; All research… opens the research
// library, which lists it. The report is kept in the research
// library in the data dir, private to the user.
func TestRecentResearchItem(t *testing.T) {
	t.Parallel()
	needBus(t)
	fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
	openerEnv, opened := fakeOpener(t)
	p := startTray(t, trayOptions{fake: fake, dotenv: "GEMINI_BACKEND=cli\n", env: append(fake.Env(), openerEnv...)})
	base, root := p.waitRunning(t)
	if got, want := p.item(t, root, "Recent research").VisibleLabels(), []string{"No research finished yet", "---", "All research…"}; !slices.Equal(got, want) {
		t.Errorf("Recent research before any search: %q, want %q", got, want)
	}

	if res := <-searchAsync(t, base, "tray history query"); res == nil || res.IsError {
		t.Fatalf("search failed: %+v", res)
	}
	recentLines := func(root traytest.Item) []string {
		recent, _ := root.Find("Recent research")
		return recent.VisibleLabels()
	}
	p.waitMenu(t, "the search under Recent research", func(root traytest.Item) bool {
		lines := recentLines(root)
		return len(lines) == 3 && recentLineRE.MatchString(lines[0]) && lines[2] == "All research…"
	})

	p.click(t, `"tray history query"`)
	var link string
	testkit.WaitFor(t, "xdg-open to be asked for the report page", func() bool {
		data, _ := os.ReadFile(opened)
		link = strings.TrimSpace(string(data))
		return link != ""
	})
	m := reportLinkRE.FindStringSubmatch(link)
	if m == nil || m[1] != base {
		t.Fatalf("opened %q, want %s/report?id=…&token=…", link, base)
	}

	jar, _ := cookiejar.New(nil)
	resp, err := (&http.Client{Transport: testkit.Client.Transport, Jar: jar, Timeout: testkit.WaitLimit}).Get(link)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	page, _ := io.ReadAll(resp.Body)
	for _, want := range []string{"<h1>tray history query</h1>", "<h1>Fake report</h1>", `<a href="https://example.com/a">`} {
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), want) {
			t.Errorf("the report page (%d) lacks %q:\n%s", resp.StatusCode, want, page)
		}
	}
	if status := statusPage(t, base, pagesToken(t, link)); !strings.Contains(status, `href="/report?id=`+m[2]+`"`) {
		t.Errorf("/status does not link the report:\n%s", status)
	}

	// All research… opens the research library, which lists the report too.
	p.click(t, "All research…")
	var links []string
	testkit.WaitFor(t, "xdg-open to be asked for the research library", func() bool {
		data, _ := os.ReadFile(opened)
		links = strings.Fields(string(data))
		return len(links) == 2
	})
	if !historyLinkRE.MatchString(links[1]) || !strings.HasPrefix(links[1], base+"/") {
		t.Fatalf("opened %q, want %s/history?token=…", links[1], base)
	}
	resp, err = (&http.Client{Transport: testkit.Client.Transport, Jar: jar, Timeout: testkit.WaitLimit}).Get(links[1])
	if err != nil {
		t.Fatal(err)
	}
	library, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(library), `<a href="/report?id=`+m[2]+`">tray history query</a>`) {
		t.Errorf("the research library (%d) does not list the report:\n%s", resp.StatusCode, library)
	}

	dir := filepath.Join(p.data, "gemini-search-mcp")
	fi, err := os.Stat(filepath.Join(dir, "library.db"))
	if err != nil {
		t.Fatalf("the library's file: %v", err)
	}
	if runtime.GOOS != "windows" {
		if di, err := os.Stat(dir); err != nil || di.Mode().Perm() != 0o700 || fi.Mode().Perm() != 0o600 {
			t.Errorf("modes: folder %v, file %v; want 0700 and 0600", di.Mode(), fi.Mode())
		}
	}
}

// pagesToken is the token of a page link.
func pagesToken(t *testing.T, link string) string {
	t.Helper()
	_, token, ok := strings.Cut(link, "token=")
	if !ok {
		t.Fatalf("no token in %q", link)
	}
	return token
}
