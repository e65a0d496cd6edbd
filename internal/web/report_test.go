package web

import (
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/appstate"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
)

// reportMarkdown is a report with what a page the agent read may slip into it: raw HTML, a script, and a link with a
// javascript: URL.
const reportMarkdown = `# Rust 2024

The edition **stabilized** in [Rust 1.85](https://blog.rust-lang.org/2025/02/20/Rust-1.85.0.html); see also
https://doc.rust-lang.org/edition-guide/.

| feature | status |
|---|---|
| gen blocks | reserved |

<script>alert("report")</script>
<img src="x" onerror="alert('img')">

Then [click me](javascript:alert('link')).
`

// keep adds reports to b's library, in a folder of the test's, and returns their ids, oldest first.
func keep(t *testing.T, b *fakeBackend, reports ...record.Report) []string {
	t.Helper()
	if b.library == nil {
		lib, err := library.Open(filepath.Join(t.TempDir(), library.FileName), library.Options{Poll: -1,
			Retention: library.Retention{MaxReports: 100}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { lib.Close() })
		b.library = lib
	}
	var ids []string
	for _, r := range reports {
		id, err := b.library.Add(r)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

func rustReport(started time.Time) record.Report {
	return record.Report{
		Summary: record.Summary{Tool: "deep_search", Topic: "What changed in <Rust> 2024?", Depth: "detailed",
			Model: "gemini-2.5-pro", Backend: "api", Started: started, Duration: 83 * time.Second},
		Markdown: reportMarkdown,
		Sources: []record.Source{{URL: "https://blog.rust-lang.org/2025/02/20/Rust-1.85.0.html", Title: "Rust 1.85"},
			{URL: "https://doc.rust-lang.org/edition-guide/"}, {URL: "javascript:alert('source')"}},
	}
}

// TestStatusPageListsRecentResearch: /status lists the kept reports, newest first, each linking to its page.
func TestStatusPageListsRecentResearch(t *testing.T) {
	t.Parallel()
	b, srv, h := setup(t)
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.Local)
	h.now = func() time.Time { return now }
	if _, body := get(t, srv.URL+"/status", true); !strings.Contains(body, "Recent research (0)") ||
		!strings.Contains(body, "No research finished yet.") {
		t.Errorf("/status without a history:\n%s", body)
	}

	partial := record.Report{Summary: record.Summary{Tool: "search", Topic: "go 1.26", Started: now.Add(-5 * time.Minute),
		Duration: 300 * time.Second, Partial: true}, Markdown: "cut short"}
	ids := keep(t, b, rustReport(now.Add(-time.Hour)), partial)
	_, body := get(t, srv.URL+"/status", true)
	for _, want := range []string{"Recent research (2)", "What changed in &lt;Rust&gt; 2024?", "09:00", "1m23s", "ok",
		"go 1.26", "09:55", "5m00s", "partial", `href="/report?id=` + ids[0] + `"`, `href="/report?id=` + ids[1] + `"`} {
		if !strings.Contains(body, want) {
			t.Errorf("/status lacks %q", want)
		}
	}
	if strings.Index(body, "go 1.26") > strings.Index(body, "Rust") {
		t.Error("/status lists the older report first")
	}
}

// TestReportPage: /report renders the report's Markdown as HTML, with raw HTML and dangerous links left out, and
// its sources as links.
func TestReportPage(t *testing.T) {
	t.Parallel()
	b, srv, _ := setup(t)
	id := keep(t, b, rustReport(time.Date(2026, 11, 22, 9, 0, 0, 0, time.Local)))[0]
	code, body := get(t, srv.URL+"/report?id="+id, true)
	if code != http.StatusOK {
		t.Fatalf("/report: %d\n%s", code, body)
	}
	for _, want := range []string{
		"<title>What changed in &lt;Rust&gt; 2024? · Gemini Search MCP</title>",
		"deep_search (detailed) · 2026-11-22 09:00 · took 1m23s · gemini-2.5-pro · api",
		"<h1>Rust 2024</h1>", "<strong>stabilized</strong>",
		`<a href="https://blog.rust-lang.org/2025/02/20/Rust-1.85.0.html">Rust 1.85</a>`,                  // a Markdown link
		`<a href="https://doc.rust-lang.org/edition-guide/">https://doc.rust-lang.org/edition-guide/</a>`, // a bare URL
		"<table>", "<td>gen blocks</td>",
		"<!-- raw HTML omitted -->", `<a href="">click me</a>`,
		`<li><a href="https://blog.rust-lang.org/2025/02/20/Rust-1.85.0.html">Rust 1.85</a>`, // the sources
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/report lacks %q", want)
		}
	}
	// The report as the page renders it: its text and sources, without the textarea that holds its Markdown to copy.
	rendered := body[strings.Index(body, `<article`):strings.LastIndex(body, "</ol>")]
	for _, unsafe := range []string{"<script", "onerror", `href="javascript:`, "alert(&#34;report", "alert('link"} {
		if strings.Contains(rendered, unsafe) {
			t.Errorf("/report holds %q:\n%s", unsafe, rendered)
		}
	}
	if n := strings.Count(body, "<script"); n != 1 || !strings.Contains(body, `<script nonce="`) {
		t.Errorf("/report has %d scripts, want its own one alone", n)
	}
}

// TestPartialReportPage: a partial report's page says it was cut short, without naming a cause: its notice does,
// and the timeout is one cause among others (an answer that stopped at MAX_TOKENS, a failed verification round).
func TestPartialReportPage(t *testing.T) {
	t.Parallel()
	b, srv, _ := setup(t)
	id := keep(t, b, record.Report{Summary: record.Summary{Tool: "search", Topic: "Föhn", Backend: "api",
		Started: time.Date(2026, 11, 22, 9, 0, 0, 0, time.Local), Duration: 12 * time.Second, Partial: true},
		Markdown: "[Partial response: the answer was cut off because the model reached its output limit (MAX_TOKENS).]\n\n" +
			"Der Föhn ist ein warmer"})[0]
	_, body := get(t, srv.URL+"/report?id="+id, true)
	for _, want := range []string{"search · 2026-11-22 09:00 · took 12s · api · <strong>partial</strong>: cut short, as its first line says",
		"output limit (MAX_TOKENS)"} {
		if !strings.Contains(body, want) {
			t.Errorf("/report lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "timeout") {
		t.Errorf("/report blames the timeout:\n%s", body)
	}
}

// TestReportPageAccess: /report needs the launch's token as the other pages do; the token link keeps the id; an id
// that is malformed (a path, say) or names no kept report is a 404.
func TestReportPageAccess(t *testing.T) {
	t.Parallel()
	b, srv, h := setup(t)
	id := keep(t, b, rustReport(time.Now()))[0]
	if code, _ := get(t, srv.URL+"/report?id="+id, false); code != http.StatusForbidden {
		t.Errorf("/report without the cookie: %d, want 403", code)
	}
	if code, _ := get(t, srv.URL+"/report?id="+id+"&token=wrong", false); code != http.StatusForbidden {
		t.Errorf("/report with a wrong token: %d, want 403", code)
	}
	link := h.ReportURL(srv.URL, id)
	if want := regexp.MustCompile(`^` + regexp.QuoteMeta(srv.URL) + `/report\?id=[0-9T.a-f-]+&token=secret-token$`); !want.MatchString(link) {
		t.Errorf("ReportURL: %q", link)
	}
	resp, err := noRedirect.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || got != "/report?id="+id {
		t.Errorf("the token link: %d to %q, want 303 to /report?id=%s", resp.StatusCode, got, id)
	}

	for _, bad := range []string{"", "?id=", "?id=../../../../etc/passwd", "?id=..%2F..%2Fetc%2Fpasswd",
		"?id=" + id + "/../" + id, "?id=" + id + ".json", "?id=" + strings.Replace(id, "T", "t", 1), "?id=%00", // another case: its hex part may have no letter
		"?id=20200101T000000.000000-00000000"} {
		if code, _ := get(t, srv.URL+"/report"+bad, true); code != http.StatusNotFound {
			t.Errorf("/report%s: %d, want 404", bad, code)
		}
	}
}

// TestReportPageWithoutHistory: pages whose app keeps no history say so, and have no reports to show.
func TestReportPageWithoutHistory(t *testing.T) {
	t.Parallel()
	_, srv, _ := setup(t)
	if code, _ := get(t, srv.URL+"/report?id=20261122T100000.000000-00000000", true); code != http.StatusNotFound {
		t.Errorf("/report: %d, want 404", code)
	}
}

// TestStatusPageListsTheNewest: /status lists the newest appstate.RecentMax reports and says how many are kept.
func TestStatusPageListsTheNewest(t *testing.T) {
	t.Parallel()
	b, srv, _ := setup(t)
	var reports []record.Report
	for i := range appstate.RecentMax + 2 {
		reports = append(reports, record.Report{Summary: record.Summary{Tool: "search", Topic: fmt.Sprintf("topic %d", i),
			Started: time.Now().Add(time.Duration(i) * time.Second)}})
	}
	keep(t, b, reports...)
	_, body := get(t, srv.URL+"/status", true)
	if n := strings.Count(body, `href="/report?id=`); n != appstate.RecentMax {
		t.Errorf("%d reports listed, want %d", n, appstate.RecentMax)
	}
	if want := fmt.Sprintf(`The newest %d of the %d reports kept: <a href="/history">the research library</a> has them all.`,
		appstate.RecentMax, appstate.RecentMax+2); !strings.Contains(body, want) {
		t.Errorf("/status lacks %q", want)
	}
	if strings.Contains(body, ">topic 0<") || !strings.Contains(body, fmt.Sprintf(">topic %d<", appstate.RecentMax+1)) {
		t.Error("/status does not list the newest reports")
	}
}
