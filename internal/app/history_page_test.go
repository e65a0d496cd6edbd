package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/web"
)

// browser is a person's browser on the pages of an App: it holds the session cookie, and sends forms with their
// CSRF token and the pages' Origin.
type browser struct {
	t    *testing.T
	base string
	c    *http.Client
}

// noSettings is a web.Settings that saves nothing: the first-run page needs one.
type noSettings struct{}

func (noSettings) SaveDotenv([]byte) (string, error) { return "", errors.New("not in this test") }

// openPages serves a's pages, with every form the tray's have, over real HTTP, and returns a browser that opened
// /history with the launch's token.
func openPages(t *testing.T, a *App) *browser {
	t.Helper()
	return openPagesAt(t, a, "/history")
}

// openPagesAt is openPages, the browser opening page with the token.
func openPagesAt(t *testing.T, a *App, page string) *browser {
	t.Helper()
	h := web.New(a, web.Forms{Settings: noSettings{}, Welcome: a, Research: a}, "launch-token", slog.New(slog.DiscardHandler))
	srv := httptest.NewServer(surface(a.mcpHTTP, h))
	t.Cleanup(srv.Close)
	jar, _ := cookiejar.New(nil)
	b := &browser{t: t, base: srv.URL, c: &http.Client{Transport: testkit.Client.Transport, Jar: jar, Timeout: testkit.WaitLimit,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	if code, _, _ := b.do(http.MethodGet, h.URL(srv.URL, page), nil, ""); code != http.StatusSeeOther {
		t.Fatalf("the token link: %d, want 303", code)
	}
	return b
}

// do sends a request and returns its status code, where it redirects to, and the body.
func (b *browser) do(method, u string, form url.Values, origin string) (int, string, string) {
	b.t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(form.Encode()))
	if err != nil {
		b.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", origin)
	}
	res, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Get("Location"), string(body)
}

// get returns the page at path, which must answer 200.
func (b *browser) get(path string) string {
	b.t.Helper()
	code, _, body := b.do(http.MethodGet, b.base+path, nil, "")
	if code != http.StatusOK {
		b.t.Fatalf("GET %s: %d\n%s", path, code, body)
	}
	return body
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)

// submit sends form to path as the page at from would, with that page's CSRF token, and returns the status code
// and where it redirects to.
func (b *browser) submit(from, path string, form url.Values) (int, string) {
	b.t.Helper()
	m := csrfRE.FindStringSubmatch(b.get(from))
	if m == nil {
		b.t.Fatalf("no CSRF token on %s", from)
	}
	form.Set("csrf", m[1])
	code, loc, _ := b.do(http.MethodPost, b.base+path, form, b.base)
	return code, loc
}

// TestPagesOfNoReportLeaveTheLibraryShut: a client's initialize and the pages that show no report (settings, the
// first-run page) leave the research library shut, so that an idle server holds no SQLite; /history opens it.
func TestPagesOfNoReportLeaveTheLibraryShut(t *testing.T) {
	fake := geminitest.New(t, geminitest.ScenarioOK)
	a, _, path := startWithHistory(t, fake, nil)
	b := openPagesAt(t, a, "/settings")
	b.get("/settings")
	b.get("/welcome")
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the library's file after /settings and /welcome: %v; want none", err)
	}
	b.get("/history")
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the library's file after /history: %v", err)
	}
}

// TestLibraryPages: a report researched for real is found on /history by a word of its text, downloads as a
// Markdown file, and is deleted by its page's Delete, which a forged form cannot do.
func TestLibraryPages(t *testing.T) {
	fake := geminitest.New(t, geminitest.ScenarioOK)
	a, c, _ := startWithHistory(t, fake, nil)
	callTool(t, c, "search", map[string]any{"query": "what the pages find"})
	callTool(t, c, "search", map[string]any{"query": "another report"})
	b := openPages(t, a)

	body := b.get("/history")
	if !strings.Contains(body, "Reports (2)") || !strings.Contains(body, "what the pages find") {
		t.Errorf("/history does not list the reports:\n%s", body)
	}
	body = b.get("/history?q=" + url.QueryEscape("pages"))
	m := regexp.MustCompile(`<a href="/report\?id=([^"]+)">what the pages find</a>`).FindStringSubmatch(body)
	if m == nil || !strings.Contains(body, "Reports that hold “pages” (1)") {
		t.Fatalf("the search for a word of the report does not find it:\n%s", body)
	}
	id := m[1]

	code, _, doc := b.do(http.MethodGet, b.base+"/report/markdown?id="+id, nil, "")
	if code != http.StatusOK || !strings.HasPrefix(doc, "> search, ") || !strings.Contains(doc, "# Fake report") {
		t.Errorf("the download: %d\n%s", code, doc)
	}

	if code, _, _ := b.do(http.MethodPost, b.base+"/report", url.Values{"id": {id}, "action": {"delete"},
		"confirmed": {"yes"}}, b.base); code != http.StatusForbidden {
		t.Errorf("a Delete without the CSRF token: %d, want 403", code)
	}
	if _, err := a.Report(id); err != nil {
		t.Fatalf("a forged Delete removed the report: %v", err)
	}
	code, loc := b.submit("/report?id="+id, "/report", url.Values{"id": {id}, "action": {"delete"}, "confirmed": {"yes"}})
	if code != http.StatusSeeOther || !strings.HasPrefix(loc, "/history?done=") {
		t.Fatalf("Delete: %d to %q", code, loc)
	}
	if _, err := a.Report(id); !errors.Is(err, record.ErrNotFound) {
		t.Errorf("the report after Delete: %v, want it gone", err)
	}
	if body := b.get(loc); !strings.Contains(body, "Reports (1)") || strings.Contains(body, "what the pages find</a>") {
		t.Errorf("/history after Delete:\n%s", body)
	}
}

// TestDeletingAReportDropsItsCachedAnswer: a report deleted on its page no longer answers an identical call from
// the result cache, neither from this server's memory nor, after a restart, from the library: the call is
// researched again.
func TestDeletingAReportDropsItsCachedAnswer(t *testing.T) {
	fake := geminitest.New(t, geminitest.ScenarioOK)
	cache, data := t.TempDir(), t.TempDir()
	env := func() map[string]string {
		return map[string]string{"GEMINI_CLI_PATH": fake.Path, "GEMINI_BACKEND": "cli"}
	}
	a := newAppIn(t, env(), cache, data)
	c, pages := connectTo(t, a), openPages(t, a)
	researchAndDelete := func(query string) {
		t.Helper()
		callTool(t, c, "search", map[string]any{"query": query})
		found, err := a.Library().Search(query, time.Time{}, 0)
		if err != nil || len(found) != 1 {
			t.Fatalf("the report of %q: %+v, %v", query, found, err)
		}
		id := found[0].ID
		if code, _ := pages.submit("/report?id="+id, "/report", url.Values{"id": {id}, "action": {"delete"},
			"confirmed": {"yes"}}); code != http.StatusSeeOther {
			t.Fatalf("Delete: %d", code)
		}
	}
	cached := func(c *client.Client, query string) bool {
		t.Helper()
		body := structuredOf(t, c, "search", map[string]any{"query": query})
		metadata, _ := body["metadata"].(map[string]any)
		return metadata["cached"] == true
	}

	researchAndDelete("asked again here")
	if cached(c, "asked again here") {
		t.Error("an identical call after the delete was answered from this server's cache")
	}
	researchAndDelete("asked again after a restart")
	if cached(connectTo(t, newAppIn(t, env(), cache, data)), "asked again after a restart") {
		t.Error("an identical call after the delete was answered from the cache kept in the library")
	}
}

// TestDeletedReportsStayDeleted: a report deleted on the pages of one server does not come back when another
// server sharing the library, whose cache still holds it, answers an identical call with it: the call gets its
// answer, and the library keeps nothing new.
func TestDeletedReportsStayDeleted(t *testing.T) {
	fake := geminitest.New(t, geminitest.ScenarioOK)
	cache, data := t.TempDir(), t.TempDir()
	env := func() map[string]string {
		return map[string]string{"GEMINI_CLI_PATH": fake.Path, "GEMINI_BACKEND": "cli"}
	}
	here, there := newAppIn(t, env(), cache, data), newAppIn(t, env(), cache, data)
	c := connectTo(t, here)
	callTool(t, c, "search", map[string]any{"query": "deleted for good"})
	reports := here.Library().List(0)
	if len(reports) != 1 {
		t.Fatalf("the library keeps %d reports, want the one researched", len(reports))
	}
	id := reports[0].ID
	code, _ := openPages(t, there).submit("/report?id="+id, "/report", url.Values{"id": {id}, "action": {"delete"},
		"confirmed": {"yes"}})
	if code != http.StatusSeeOther {
		t.Fatalf("Delete on the other server's page: %d", code)
	}

	again := researchIDOf(t, c, map[string]any{"query": "deleted for good"})
	if runs := len(fake.Calls()); runs != 1 {
		t.Fatalf("the CLI ran %d times, want once: the identical call answered from the cache", runs)
	}
	if got := kept(here); len(got) != 0 {
		t.Errorf("after an identical call answered from the cache: the library keeps %q, want the report deleted", got)
	}
	if job, err := here.Library().Job(again); err != nil || job.State != record.JobDone || job.ReportID != "" {
		t.Errorf("the identical call's job: %+v, %v; want done, with no report", job, err)
	}
}

// TestResearchElsewhereBesidesManyHere: /history shows the research another server sharing the library runs, however
// many jobs this server runs that started after it.
func TestResearchElsewhereBesidesManyHere(t *testing.T) {
	fake := geminitest.New(t, geminitest.ScenarioOK)
	a, _, path := startWithHistory(t, fake, nil)
	other, err := library.Open(path, library.Options{Poll: -1}) // the other server
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	start := time.Now().Add(-time.Hour)
	if err := other.PutJob(record.Job{ID: record.NewJobID(), Tool: "deep_search", Topic: "researched elsewhere",
		Started: start}); err != nil {
		t.Fatal(err)
	}
	for i := range maxElsewhere + 10 {
		if err := a.Library().PutJob(record.Job{ID: record.NewJobID(), Tool: "search", Topic: fmt.Sprintf("here %d", i),
			Started: start.Add(time.Duration(i+1) * time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	if body := openPages(t, a).get("/history"); !strings.Contains(body, "researched elsewhere") {
		t.Errorf("/history does not show the research of the other server:\n%s", body)
	}
}

// TestRerun: Re-run starts the report's call again as a research job, afresh and writing no file, and it shows
// among the running research of /history with its id until it is cancelled there.
func TestRerun(t *testing.T) {
	fake := geminitest.New(t, geminitest.ScenarioHang)
	a, _, _ := startWithHistory(t, fake, nil)
	lib := a.Library()
	reportID, err := lib.Add(record.Report{Summary: record.Summary{Tool: "search", Topic: "researched before",
		Started: time.Now().Add(-time.Hour), Duration: time.Minute}, Markdown: "# Before"})
	if err != nil {
		t.Fatal(err)
	}
	before := record.NewJobID()
	if err := lib.PutJob(record.Job{ID: before, Tool: "search", Topic: "researched before",
		Args: json.RawMessage(`{"query":"researched before","model":"flash","output_file":"/tmp/x.md","wait_seconds":0}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := lib.UpdateJob(before, func(j *record.Job) { j.State, j.ReportID = record.JobDone, reportID }); err != nil {
		t.Fatal(err)
	}
	b := openPages(t, a)

	code, loc := b.submit("/report?id="+reportID, "/report", url.Values{"id": {reportID}, "action": {"rerun"}})
	m := regexp.MustCompile(`research id ([0-9a-f]{16})\.`).FindStringSubmatch(mustUnescape(t, loc))
	if code != http.StatusSeeOther || m == nil {
		t.Fatalf("Re-run: %d to %q, want 303 to /history saying the research id", code, loc)
	}
	again := m[1]
	var job record.Job
	testkit.WaitFor(t, "the re-run's job in the library", func() bool {
		job, err = lib.Job(again)
		return err == nil
	})
	var args map[string]any
	if json.Unmarshal(job.Args, &args) != nil || args["query"] != "researched before" || args["model"] != "flash" ||
		args["fresh"] != true || args["output_file"] != nil {
		t.Errorf("the job of the re-run: %+v (%v), want the query and model again, fresh, without the output file", job, err)
	}
	testkit.WaitFor(t, "the re-run among the running research of /history", func() bool {
		return strings.Contains(b.get("/history"), `<td class="mono">`+again+`</td><td>search</td><td>researched before</td>`)
	})

	code, loc = b.submit("/history", "/history", url.Values{"action": {"cancel"}, "research": {again}})
	if code != http.StatusSeeOther {
		t.Fatalf("Cancel: %d to %q", code, loc)
	}
	if p, err := a.Follow(again); err != nil || p.State != record.JobCancelled {
		t.Errorf("the re-run after Cancel: %+v, %v; want it cancelled", p, err)
	}
	if body := b.get("/history"); !strings.Contains(body, "No research running.") {
		t.Errorf("/history after Cancel still lists research running:\n%s", body)
	}
}

// TestRerunWithoutAJob: a report imported from the history of an earlier release is researched again from its tool
// and topic; an ask's topic is not its whole request, so it is not.
func TestRerunWithoutAJob(t *testing.T) {
	fake := geminitest.New(t, geminitest.ScenarioHang)
	a, _, _ := startWithHistory(t, fake, nil)
	add := func(tool, topic, depth string) string {
		id, err := a.Library().Add(record.Report{Summary: record.Summary{Tool: tool, Topic: topic, Depth: depth,
			Started: time.Now()}, Markdown: "kept"})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	id, err := a.Rerun(add("deep_search", "an imported topic", "concise"))
	if err != nil {
		t.Fatal(err)
	}
	var job record.Job
	testkit.WaitFor(t, "the re-run's job in the library", func() bool {
		job, err = a.Library().Job(id)
		return err == nil
	})
	if job.Tool != "deep_search" ||
		string(job.Args) != `{"topic":"an imported topic","depth":"concise","fresh":true}` {
		t.Errorf("the re-run's job: %+v (%s)", job, job.Args)
	}
	if err := a.Cancel(t.Context(), id); err != nil {
		t.Errorf("Cancel: %v", err)
	}
	var refused *web.SearchError
	if _, err := a.Rerun(add("ask", "Explain this in three…", "")); !errors.As(err, &refused) || refused.Code != "INVALID_ARGUMENT" {
		t.Errorf("Re-run of an imported ask: %v, want INVALID_ARGUMENT", err)
	}
	if _, err := a.Rerun("20200101T000000.000000-00000000"); !errors.Is(err, record.ErrNotFound) {
		t.Errorf("Re-run of a report not kept: %v, want ErrNotFound", err)
	}
}

// TestTrySearchIsAJob: the first-run page's test search returns its research id at once; the page shows its stage
// while it runs, and Cancel ends it.
func TestTrySearchIsAJob(t *testing.T) {
	fake := geminitest.New(t, geminitest.ScenarioHang)
	a, _, _ := startWithHistory(t, fake, nil)
	b := openPages(t, a)

	code, loc := b.submit("/welcome", "/welcome", url.Values{"action": {"try"}, "query": {"a test search"}})
	m := regexp.MustCompile(`^/welcome\?try=([0-9a-f]{16})#try$`).FindStringSubmatch(loc)
	if code != http.StatusSeeOther || m == nil {
		t.Fatalf("try: %d to %q, want 303 to /welcome?try=ID#try", code, loc)
	}
	id := m[1]
	var body string
	testkit.WaitFor(t, "the page to show the stage of the test search", func() bool {
		p, err := a.Follow(id)
		body = b.get(loc)
		return err == nil && p.Running() && p.Stage != "" && strings.Contains(body, `<span id="stage">`+p.Stage+`</span>`)
	})
	for _, want := range []string{"Searching…", `id="research-id">` + id + `<`,
		`value="a test search"`, `name="action" value="cancel"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the page of the running test search lacks %q:\n%s", want, body)
		}
	}

	if code, back := b.submit(loc, "/welcome", url.Values{"action": {"cancel"}, "research": {id}}); code != http.StatusSeeOther || back != loc {
		t.Fatalf("Cancel: %d to %q, want 303 to %q", code, back, loc)
	}
	if p, err := a.Follow(id); err != nil || p.State != record.JobCancelled {
		t.Errorf("the test search after Cancel: %+v, %v; want it cancelled", p, err)
	}
	if body := b.get(loc); !strings.Contains(body, "The search was cancelled.") || strings.Contains(body, "Searching…") {
		t.Errorf("the page after Cancel:\n%s", body)
	}
}

// TestTrySearchReport: a test search that answers shows its report, the library's, with a link to its page.
func TestTrySearchReport(t *testing.T) {
	fake := geminitest.New(t, geminitest.ScenarioOK)
	a, _, _ := startWithHistory(t, fake, nil)
	id, err := a.TrySearch("is it working?")
	if err != nil {
		t.Fatal(err)
	}
	var p web.Progress
	testkit.WaitFor(t, "the test search to end", func() bool {
		p, err = a.Follow(id)
		return err == nil && !p.Running()
	})
	if p.State != record.JobDone || p.Report == nil || !strings.Contains(p.Report.Markdown, "# Fake report") || p.ReportID == "" ||
		p.Tool != "search" || p.Topic != "is it working?" {
		t.Fatalf("the ended test search: %+v", p)
	}
	body := openPages(t, a).get("/welcome?try=" + id)
	for _, want := range []string{"It works", `<a href="/report?id=` + p.ReportID + `">its page</a>`, "<h1>Fake report</h1>"} {
		if !strings.Contains(body, want) {
			t.Errorf("the page of the ended test search lacks %q", want)
		}
	}
	if _, err := a.Follow("0123456789abcdef"); !errors.Is(err, record.ErrNotFound) {
		t.Errorf("Follow of an unknown id: %v, want ErrNotFound", err)
	}
}

func mustUnescape(t *testing.T, s string) string {
	t.Helper()
	u, err := url.QueryUnescape(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
