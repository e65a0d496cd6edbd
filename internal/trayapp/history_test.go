package trayapp

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

// TestRecentResearch: a report kept in the library reaches the menu (Recent, with a change signalled) and its page
// (ReportURL, with the launch's token, on the running server).
func TestRecentResearch(t *testing.T) {
	t.Parallel()
	c := startController(t, controllerOptions{data: t.TempDir()})
	if got := c.app.State().Recent; len(got) != 0 {
		t.Fatalf("a new library lists %v", got)
	}
	// The controller follows the library from goroutines that run starts: a report kept before they listen is
	// shown at the next redraw, so keep reports until one is signalled.
	var id string
	testkit.WaitFor(t, "the menu to be told of a new report", func() bool {
		changed := c.app.Changed()
		var err error
		id, err = c.app.Library().Add(record.Report{Summary: record.Summary{Tool: "search", Topic: "rust 2024",
			Started: time.Now(), Duration: 3 * time.Second}, Markdown: "# Rust 2024\n\n*Edition* notes."})
		if err != nil {
			t.Fatal(err)
		}
		select {
		case <-changed:
			return true
		case <-time.After(100 * time.Millisecond):
			return false
		}
	})
	if got := c.app.State().Recent; len(got) == 0 || got[0].ID != id || got[0].Topic != "rust 2024" {
		t.Fatalf("Recent: %+v, want the report first", got)
	}

	link, err := c.http.ReportURL(id)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(link, "http://"+c.http.Status().Addr+"/report?id="+id+"&token=") {
		t.Errorf("ReportURL %q, want the server's /report with the id and the token", link)
	}
	jar, _ := cookiejar.New(nil)
	resp, err := (&http.Client{Transport: testkit.Client.Transport, Jar: jar, Timeout: testkit.WaitLimit}).Get(link)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	page, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), "<h1>Rust 2024</h1>") ||
		!strings.Contains(string(page), "<em>Edition</em>") {
		t.Errorf("the report page: %d\n%s", resp.StatusCode, page)
	}
	if status := statusOf(t, jar, "http://"+c.http.Status().Addr); !strings.Contains(status, `href="/report?id=`+id+`"`) {
		t.Errorf("/status does not link the report:\n%s", status)
	}
}

// statusOf returns the /status page at base, for a browser that holds the pages' cookie.
func statusOf(t *testing.T, jar http.CookieJar, base string) string {
	t.Helper()
	resp, err := (&http.Client{Transport: testkit.Client.Transport, Jar: jar, Timeout: testkit.WaitLimit}).Get(base + "/status")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	page, _ := io.ReadAll(resp.Body)
	return string(page)
}
