package web

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

// fakeResearch does what the pages ask of research, on a fakeBackend: its jobs are Progress values that the test
// moves on, a job that runs is among the backend's running searches, and deletes go to the backend's library.
type fakeResearch struct {
	b  *fakeBackend
	mu sync.Mutex
	// jobs are the research jobs it knows, by id.
	jobs      map[string]Progress
	reruns    []string // the reports re-run
	cancelled []string // the jobs cancelled
}

func newFakeResearch(b *fakeBackend) *fakeResearch {
	return &fakeResearch{b: b, jobs: map[string]Progress{}}
}

// testNow is the pages' clock in the tests of research: a job started runs for 01:05 by it.
var testNow = time.Date(2026, 11, 22, 10, 0, 0, 0, time.Local)

// start starts a job of tool about topic, running at its first stage for 01:05, and returns its id.
func (r *fakeResearch) start(tool, topic string) string {
	id := record.NewJobID()
	r.set(Progress{ID: id, Tool: tool, Topic: topic, State: record.JobRunning, Stage: "starting",
		Started: testNow.Add(-65 * time.Second)})
	return id
}

// set puts p in place of the job of its id, among the running searches while it runs, and tells of the change.
func (r *fakeResearch) set(p Progress) {
	r.mu.Lock()
	r.jobs[p.ID] = p
	var snap activity.Snapshot
	for _, j := range r.jobs {
		if j.Running() {
			snap.Running = append(snap.Running, activity.Run{Tool: j.Tool, Query: j.Topic, Stage: j.Stage,
				Started: j.Started, Research: j.ID})
		}
	}
	r.mu.Unlock()
	r.b.setActivity(snap)
}

func (r *fakeResearch) job(id string) (Progress, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.jobs[id]
	return p, ok
}

func (r *fakeResearch) Follow(id string) (Progress, error) {
	if p, ok := r.job(id); ok {
		return p, nil
	}
	return Progress{}, record.ErrNotFound
}

func (r *fakeResearch) Cancel(_ context.Context, id string) error {
	p, ok := r.job(id)
	if !ok || !p.Running() {
		return &SearchError{Code: "RESEARCH_NOT_FOUND", Message: "no research " + id + " runs", Details: "It ended."}
	}
	r.mu.Lock()
	r.cancelled = append(r.cancelled, id)
	r.mu.Unlock()
	p.State, p.Failed = record.JobCancelled, &SearchError{Code: "CANCELLED", Message: "cancelled"}
	r.set(p)
	return nil
}

func (r *fakeResearch) Rerun(id string) (string, error) {
	rep, err := r.b.library.Get(id)
	if err != nil {
		return "", err
	}
	r.mu.Lock()
	r.reruns = append(r.reruns, id)
	r.mu.Unlock()
	return r.start(rep.Tool, rep.Topic), nil
}

func (r *fakeResearch) Delete(id string) error { return r.b.library.Delete(id) }

// setupHistory serves the pages with a fakeResearch, and a library with reports.
func setupHistory(t *testing.T, reports ...record.Report) (*fakeBackend, *fakeResearch, *httptest.Server, *Handler, []string) {
	t.Helper()
	b, _, _ := setup(t)
	ids := keep(t, b, reports...)
	r := newFakeResearch(b)
	h := New(b, Forms{Settings: b, Research: r}, "secret-token", slog.New(slog.DiscardHandler))
	h.now = func() time.Time { return testNow }
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return b, r, srv, h, ids
}

// postForm sends form to path as a form of the pages would, from origin ("": no Origin), and returns the status
// code, where it redirects to, and the page.
func postForm(t *testing.T, srv *httptest.Server, path, origin string, form url.Values) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	req.AddCookie(&http.Cookie{Name: cookieName, Value: derive("secret-token", "cookie")})
	res, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Get("Location"), string(body)
}

// listed are the topics /history's page body lists, in its order.
func listed(body string) []string {
	var topics []string
	for _, m := range regexp.MustCompile(`<a href="/report\?id=[^"]+">([^<]*)</a>`).FindAllStringSubmatch(body, -1) {
		topics = append(topics, m[1])
	}
	return topics
}

// libraryOf is n reports, the newest last, every third of them about tea in its text (not its topic).
func libraryOf(n int) []record.Report {
	var reports []record.Report
	start := time.Date(2026, 11, 1, 9, 0, 0, 0, time.Local)
	for i := range n {
		r := record.Report{Summary: record.Summary{Tool: "search", Topic: fmt.Sprintf("topic %02d", i),
			Started: start.Add(time.Duration(i) * time.Hour), Duration: time.Duration(i) * time.Second},
			Markdown: fmt.Sprintf("# Topic %02d\n\nThe findings of number %02d.", i, i)}
		if i%3 == 0 {
			r.Markdown += " Green tea, whisked."
		}
		reports = append(reports, r)
	}
	return reports
}

// TestHistoryPage: /history lists the library's reports newest first, a page at a time, each with its tool, date,
// duration and opening line, linking to its page; its search finds reports by a word of their text.
func TestHistoryPage(t *testing.T) {
	t.Parallel()
	_, _, srv, _, ids := setupHistory(t, libraryOf(30)...)
	if code, _ := get(t, srv.URL+"/history", false); code != http.StatusForbidden {
		t.Errorf("/history without the cookie: %d, want 403", code)
	}

	code, body := get(t, srv.URL+"/history", true)
	var want []string
	for i := 29; i >= 5; i-- {
		want = append(want, fmt.Sprintf("topic %02d", i))
	}
	if got := listed(body); code != http.StatusOK || !slices.Equal(got, want) {
		t.Fatalf("/history (%d) lists %q, want the newest 25 first: %q", code, got, want)
	}
	for _, part := range []string{"Reports (30)", "Page 1 of 2", `href="/history?page=2"`, `href="/report?id=` + ids[29] + `"`,
		"2026-11-02 14:00", "29s", "The findings of number 29.", "No research running."} {
		if !strings.Contains(body, part) {
			t.Errorf("/history lacks %q", part)
		}
	}
	if strings.Contains(body, `rel="prev"`) {
		t.Error("the first page links to a newer one")
	}

	_, body = get(t, srv.URL+"/history?page=2", true)
	if got, want := listed(body), []string{"topic 04", "topic 03", "topic 02", "topic 01", "topic 00"}; !slices.Equal(got, want) {
		t.Errorf("page 2 lists %q, want %q", got, want)
	}
	if !strings.Contains(body, "Page 2 of 2") || !strings.Contains(body, `href="/history" rel="prev"`) || strings.Contains(body, `rel="next"`) {
		t.Errorf("page 2 does not link back to page 1 alone:\n%s", body)
	}
	for _, page := range []string{"99", "0", "two"} { // past the last: the last; nonsense: the first
		_, body := get(t, srv.URL+"/history?page="+page, true)
		if want := map[bool]string{true: "Page 2 of 2", false: "Page 1 of 2"}[page == "99"]; !strings.Contains(body, want) {
			t.Errorf("?page=%s does not show %q", page, want)
		}
	}

	_, body = get(t, srv.URL+"/history?q=+Tea+", true)
	if got, want := listed(body), []string{"topic 27", "topic 24", "topic 21", "topic 18", "topic 15", "topic 12", "topic 09",
		"topic 06", "topic 03", "topic 00"}; !slices.Equal(got, want) {
		t.Errorf("the search for tea lists %q, want %q", got, want)
	}
	for _, part := range []string{"Reports that hold “Tea” (10)", `value="Tea"`, "Green tea, whisked.", `href="/history" id="all"`} {
		if !strings.Contains(body, part) {
			t.Errorf("the search for tea lacks %q", part)
		}
	}
	if strings.Contains(body, `id="pages"`) {
		t.Error("one page of results has page links")
	}
	_, body = get(t, srv.URL+"/history?q=%3Cscript%3E+coffee", true)
	if len(listed(body)) != 0 || !strings.Contains(body, "No report holds every word of “&lt;script&gt; coffee”.") {
		t.Errorf("a search that finds nothing does not say so, escaped:\n%s", body)
	}
}

// TestHistoryPagingKeepsTheQuery: the links between the pages of a search keep its words.
func TestHistoryPagingKeepsTheQuery(t *testing.T) {
	t.Parallel()
	_, _, srv, _, _ := setupHistory(t, libraryOf(30)...)
	_, body := get(t, srv.URL+"/history?q=number", true)
	if !strings.Contains(body, `href="/history?page=2&amp;q=number"`) || len(listed(body)) != historyPageSize {
		t.Fatalf("the first page of a search with 30 results:\n%s", body)
	}
	if _, body = get(t, srv.URL+"/history?page=2&q=number", true); len(listed(body)) != 5 ||
		!strings.Contains(body, `href="/history?q=number" rel="prev"`) {
		t.Errorf("the second page of the search:\n%s", body)
	}
}

// TestEmptyHistory: a library without reports says where reports come from.
func TestEmptyHistory(t *testing.T) {
	t.Parallel()
	b, _, srv, _, _ := setupHistory(t)
	b.usage = &record.UsageMeter{Today: []record.UsageTotal{}, Month: []record.UsageTotal{}}
	if _, body := get(t, srv.URL+"/history", true); !strings.Contains(body, "No research finished yet") || strings.Contains(body, "Page 1") ||
		!strings.Contains(body, "<h2>Usage</h2>") || !strings.Contains(body, "No research this month yet.") {
		t.Errorf("/history of an empty library:\n%s", body)
	}
}

// TestHistoryRunningResearch: /history shows the research running now, this server's with its research id, stage,
// elapsed time and Cancel, and another server's too; its events follow it; Cancel, a form with the CSRF token,
// cancels it.
func TestHistoryRunningResearch(t *testing.T) {
	t.Parallel()
	b, r, srv, h, _ := setupHistory(t)
	mine := r.start("deep_search", "rust <2024>")
	other := record.Job{ID: record.NewJobID(), Tool: "search", Topic: "from Claude Desktop", State: record.JobRunning,
		Started: time.Now().Add(-3 * time.Minute)}
	b.mu.Lock()
	b.elsewhere = []record.Job{other}
	b.mu.Unlock()

	res, err := testkit.Client.Do(cookieRequest(t, srv.URL+"/history"))
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	body := string(page)
	for _, part := range []string{"Running research (2)", mine, "rust &lt;2024&gt;", "starting", "01:05", other.ID,
		"from Claude Desktop", "(in another server)", `name="research" value="` + mine + `"`, `new EventSource("/history/events")`} {
		if !strings.Contains(body, part) {
			t.Errorf("/history lacks %q", part)
		}
	}
	if strings.Contains(body, `name="research" value="`+other.ID+`"`) {
		t.Error("/history offers to cancel the research of another server")
	}
	nonce := regexp.MustCompile(`<script nonce="([0-9a-f]{32})">`).FindStringSubmatch(body)
	if nonce == nil || !strings.Contains(res.Header.Get("Content-Security-Policy"), "script-src 'nonce-"+nonce[1]+"'") {
		t.Errorf("the page's script and its CSP (%q) do not share a nonce", res.Header.Get("Content-Security-Policy"))
	}

	res, err = testkit.Client.Do(cookieRequest(t, srv.URL+"/history/events"))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	next := eventsOf(t, res)
	if first := next(); !strings.Contains(first, "Running research (2)") || !strings.Contains(first, mine) {
		t.Errorf("first event %q, want the running research", first)
	}
	p, _ := r.job(mine)
	p.Stage = "round 2: checking claims"
	r.set(p)
	for ev := next(); !strings.Contains(ev, "round 2: checking claims"); ev = next() {
		if ev == "" {
			t.Fatal("the events ended before the stage changed")
		}
	}

	if code, _, _ := postForm(t, srv, "/history", srv.URL, url.Values{"action": {"cancel"}, "research": {mine}}); code != http.StatusForbidden {
		t.Errorf("cancel without the CSRF token: %d, want 403", code)
	}
	if code, _, _ := postForm(t, srv, "/history", "http://evil.example", url.Values{"csrf": {h.csrf}, "action": {"cancel"},
		"research": {mine}}); code != http.StatusForbidden {
		t.Errorf("cancel from another site: %d, want 403", code)
	}
	if p, _ := r.job(mine); !p.Running() {
		t.Fatal("a refused form cancelled the research")
	}
	code, loc, _ := postForm(t, srv, "/history", srv.URL, url.Values{"csrf": {h.csrf}, "action": {"cancel"}, "research": {mine}})
	if code != http.StatusSeeOther || !strings.HasPrefix(loc, "/history?done=") {
		t.Fatalf("cancel: %d to %q, want 303 to /history?done=…", code, loc)
	}
	if p, _ := r.job(mine); p.State != record.JobCancelled {
		t.Errorf("the research is %s after Cancel", p.State)
	}
	if _, body := get(t, srv.URL+loc, true); !strings.Contains(body, "Cancelled the research "+mine+".") ||
		!strings.Contains(body, "Running research (1)") {
		t.Errorf("after Cancel, /history does not say so:\n%s", body)
	}
	code, _, body = postForm(t, srv, "/history", srv.URL, url.Values{"csrf": {h.csrf}, "action": {"cancel"}, "research": {mine}})
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "was not cancelled: no research "+mine+" runs. It ended.") {
		t.Errorf("cancelling research that ended: %d\n%s", code, body)
	}
}

// TestReportDownload: Download .md is a real download: the report's Markdown, with its sources when its text does
// not list them, saved under a name made of its topic and date.
func TestReportDownload(t *testing.T) {
	t.Parallel()
	rust := rustReport(time.Date(2026, 11, 22, 9, 0, 0, 0, time.Local))
	rust.Markdown = "# Rust 2024\n\nIt stabilized [1]."
	_, _, srv, _, ids := setupHistory(t, rust)
	res, err := testkit.Client.Do(cookieRequest(t, srv.URL+"/report/markdown?id="+ids[0]))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	if cd := res.Header.Get("Content-Disposition"); cd != `attachment; filename=what-changed-in-rust-2024-2026-11-22.md` {
		t.Errorf("Content-Disposition %q", cd)
	}
	if ct := res.Header.Get("Content-Type"); ct != "text/markdown; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	want := "> deep_search, " + rust.Started.UTC().Format(time.RFC3339) + ": What changed in <Rust> 2024?\n\n" +
		"# Rust 2024\n\nIt stabilized [1].\n\n## Sources\n" +
		"1. [Rust 1.85](https://blog.rust-lang.org/2025/02/20/Rust-1.85.0.html)\n2. https://doc.rust-lang.org/edition-guide/\n" +
		"3. javascript:alert('source')\n"
	if string(data) != want {
		t.Errorf("the download:\n%s\nwant:\n%s", data, want)
	}
	for _, bad := range []string{"", "?id=../etc/passwd", "?id=20200101T000000.000000-00000000"} {
		if code, body := get(t, srv.URL+"/report/markdown"+bad, true); code != http.StatusNotFound || !strings.Contains(body, "No such report") {
			t.Errorf("/report/markdown%s: %d, want the not found page", bad, code)
		}
	}
	if code, _ := get(t, srv.URL+"/report/markdown?id="+ids[0], false); code != http.StatusForbidden {
		t.Errorf("the download without the cookie: %d, want 403", code)
	}
}

func TestFileName(t *testing.T) {
	t.Parallel()
	day := time.Date(2026, 11, 22, 9, 0, 0, 0, time.Local)
	for _, tt := range []struct{ topic, want string }{
		{"What changed in <Rust> 2024?", "what-changed-in-rust-2024-2026-11-22.md"},
		{"Föhn: der Wind", "föhn-der-wind-2026-11-22.md"},
		{"../../etc/passwd", "etc-passwd-2026-11-22.md"},
		{"?!", "report-2026-11-22.md"},
		{strings.Repeat("word ", 30), strings.TrimSuffix(strings.Repeat("word-", 12), "-") + "-2026-11-22.md"},
		{strings.Repeat("x", 100), strings.Repeat("x", 60) + "-2026-11-22.md"},
	} {
		if got := fileName(record.Summary{Topic: tt.topic, Started: day}); got != tt.want {
			t.Errorf("fileName(%q) = %q, want %q", tt.topic, got, tt.want)
		}
	}
}

// TestReportActions: a report's page copies its Markdown (a script, the text on the page), re-runs it (it then runs
// among the running research), and deletes it once confirmed, with the CSRF token: a forged form is refused and
// deletes nothing.
func TestReportActions(t *testing.T) {
	t.Parallel()
	b, r, srv, h, ids := setupHistory(t, rustReport(time.Date(2026, 11, 22, 9, 0, 0, 0, time.Local)),
		record.Report{Summary: record.Summary{Tool: "search", Topic: "kept", Started: time.Now()}, Markdown: "Kept."})
	id := ids[0]
	_, body := get(t, srv.URL+"/report?id="+id, true)
	for _, part := range []string{`id="copy" hidden>Copy Markdown</button>`, `href="/report/markdown?id=` + id + `" download>`,
		`<textarea id="markdown" hidden readonly>&gt; deep_search,`, "&lt;script&gt;alert(&#34;report&#34;)&lt;/script&gt;",
		`id="rerun"`, `id="delete"`, `name="csrf" value="` + h.csrf + `"`, `navigator.clipboard.writeText`, "window.confirm("} {
		if !strings.Contains(body, part) {
			t.Errorf("the report's page lacks %q", part)
		}
	}

	code, loc, _ := postForm(t, srv, "/report", srv.URL, url.Values{"csrf": {h.csrf}, "id": {id}, "action": {"rerun"}})
	if code != http.StatusSeeOther || !strings.HasPrefix(loc, "/history?done=") || !strings.HasSuffix(loc, "#running") {
		t.Fatalf("Re-run: %d to %q, want 303 to /history?done=…#running", code, loc)
	}
	if !slices.Equal(r.reruns, []string{id}) {
		t.Fatalf("re-run %q, want %q", r.reruns, id)
	}
	_, body = get(t, srv.URL+loc, true)
	running := regexp.MustCompile(`<td class="mono">([0-9a-f]{16})</td><td>deep_search</td><td>What changed in &lt;Rust&gt; 2024\?</td>`).FindStringSubmatch(body)
	if running == nil || !strings.Contains(body, "Researching “What changed in &lt;Rust&gt; 2024?” again: research id "+running[1]+".") {
		t.Errorf("after Re-run, /history does not show the research running with its id:\n%s", body)
	}

	// Delete: refused without the CSRF token or from another site; without the script, a second form confirms.
	for _, forged := range []struct {
		origin string
		form   url.Values
	}{
		{srv.URL, url.Values{"id": {id}, "action": {"delete"}, "confirmed": {"yes"}}},
		{srv.URL, url.Values{"csrf": {"stale"}, "id": {id}, "action": {"delete"}, "confirmed": {"yes"}}},
		{"http://evil.example", url.Values{"csrf": {h.csrf}, "id": {id}, "action": {"delete"}, "confirmed": {"yes"}}},
		{"", url.Values{"csrf": {h.csrf}, "id": {id}, "action": {"delete"}, "confirmed": {"yes"}}},
	} {
		if code, _, _ := postForm(t, srv, "/report", forged.origin, forged.form); code != http.StatusForbidden {
			t.Errorf("a forged Delete (%s, %v): %d, want 403", forged.origin, forged.form, code)
		}
	}
	code, _, body = postForm(t, srv, "/report", srv.URL, url.Values{"csrf": {h.csrf}, "id": {id}, "action": {"delete"}})
	if code != http.StatusOK || !strings.Contains(body, `id="confirm"`) || !strings.Contains(body, `name="confirmed" value="yes"`) {
		t.Errorf("Delete without confirming: %d, want the page asking to confirm:\n%s", code, body)
	}
	if _, err := b.library.Get(id); err != nil {
		t.Fatalf("the report went before Delete was confirmed: %v", err)
	}
	code, loc, _ = postForm(t, srv, "/report", srv.URL, url.Values{"csrf": {h.csrf}, "id": {id}, "action": {"delete"},
		"confirmed": {"yes"}})
	if code != http.StatusSeeOther || !strings.HasPrefix(loc, "/history?done=") {
		t.Fatalf("Delete: %d to %q, want 303 to /history?done=…", code, loc)
	}
	if _, body := get(t, srv.URL+loc, true); !strings.Contains(body, "Deleted the report “What changed in &lt;Rust&gt; 2024?”.") ||
		!slices.Equal(listed(body), []string{"kept"}) {
		t.Errorf("after Delete, /history:\n%s", body)
	}
	if code, body := get(t, srv.URL+"/report?id="+id, true); code != http.StatusNotFound || !strings.Contains(body, "it was deleted") {
		t.Errorf("the deleted report's page: %d\n%s", code, body)
	}
	if code, _, body := postForm(t, srv, "/report", srv.URL, url.Values{"csrf": {h.csrf}, "id": {id}, "action": {"rerun"}}); code != http.StatusNotFound ||
		!strings.Contains(body, "No such report") {
		t.Errorf("Re-run of a deleted report: %d, want the not found page", code)
	}
}

// TestRerunRefused: research that cannot start again says why on the report's page.
func TestRerunRefused(t *testing.T) {
	t.Parallel()
	b, _, _ := setup(t)
	ids := keep(t, b, record.Report{Summary: record.Summary{Tool: "structured", Topic: "data", Started: time.Now()}, Markdown: "{}"})
	h := New(b, Forms{Settings: b, Research: refusingResearch{newFakeResearch(b)}}, "secret-token", slog.New(slog.DiscardHandler))
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	code, _, body := postForm(t, srv, "/report", srv.URL, url.Values{"csrf": {h.csrf}, "id": {ids[0]}, "action": {"rerun"}})
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "The research did not start again: its schema was not kept. "+
		"Ask your client to call structured again.") {
		t.Errorf("a refused Re-run: %d\n%s", code, body)
	}
}

type refusingResearch struct{ *fakeResearch }

func (refusingResearch) Rerun(string) (string, error) {
	return "", &SearchError{Code: "INVALID_ARGUMENT", Message: "its schema was not kept", Details: "Ask your client to call structured again."}
}

// TestReadOnlyHistory: pages without Research (the headless server's) list and search the library, copy and
// download reports, and change nothing: no Re-run, Delete or Cancel, and their forms are not served.
func TestReadOnlyHistory(t *testing.T) {
	t.Parallel()
	b, _, _ := setup(t)
	ids := keep(t, b, rustReport(time.Now()))
	r := newFakeResearch(b)
	mine := r.start("search", "running here")
	h := New(statusOnly{b}, Forms{}, "secret-token", slog.New(slog.DiscardHandler))
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	if _, body := get(t, srv.URL+"/history?q=stabilized", true); !slices.Equal(listed(body), []string{"What changed in &lt;Rust&gt; 2024?"}) ||
		!strings.Contains(body, mine) || strings.Contains(body, `value="cancel"`) {
		t.Errorf("the read-only /history:\n%s", body)
	}
	_, body := get(t, srv.URL+"/report?id="+ids[0], true)
	if !strings.Contains(body, "Copy Markdown") || !strings.Contains(body, "Download .md") || strings.Contains(body, `id="rerun"`) ||
		strings.Contains(body, `id="delete"`) {
		t.Errorf("the read-only report page:\n%s", body)
	}
	for _, path := range []string{"/report", "/history"} {
		if code, _, _ := postForm(t, srv, path, srv.URL, url.Values{"csrf": {h.csrf}, "id": {ids[0]}, "action": {"delete"},
			"confirmed": {"yes"}}); code != http.StatusNotFound {
			t.Errorf("POST %s without Research: %d, want 404", path, code)
		}
	}
	if _, err := b.library.Get(ids[0]); err != nil {
		t.Errorf("the report went: %v", err)
	}
}
