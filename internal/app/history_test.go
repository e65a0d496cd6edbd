package app

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/web"
)

func TestMain(m *testing.M) {
	geminitest.Main() // the fake Gemini CLI, when a test asks for one
	os.Exit(m.Run())
}

// startWithHistory starts an App on the fake CLI with its library in a data dir of its own, and returns it with an
// MCP client connected in process, and the library's path.
func startWithHistory(t *testing.T, fake *geminitest.Fake, vars map[string]string) (*App, *client.Client, string) {
	t.Helper()
	data := t.TempDir()
	env := map[string]string{"GEMINI_CLI_PATH": fake.Path, "GEMINI_BACKEND": "cli"}
	for k, v := range vars {
		env[k] = v
	}
	a := newAppIn(t, env, t.TempDir(), data)
	return a, connectTo(t, a), filepath.Join(data, "gemini-search-mcp", "library.db")
}

// connectTo returns an MCP client connected in process to a, until the test ends.
func connectTo(t *testing.T, a *App) *client.Client {
	t.Helper()
	c, err := client.NewInProcessClient(a.mcp)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	testkit.Initialize(t, ctx, c)
	return c
}

// newAppIn starts an App with the variables env, a config dir of its own, and the cache and data dirs given, until
// the test ends.
func newAppIn(t *testing.T, env map[string]string, cache, data string) *App {
	t.Helper()
	env[config.DirVar] = t.TempDir()
	cfg, err := config.Load(config.Env{Lookup: func(n string) (string, bool) { v, ok := env[n]; return v, ok },
		XDGCacheHome: cache, XDGDataHome: data})
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(cfg, Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Shutdown)
	return a
}

// callTool calls tool with args and fails the test unless it succeeds.
func callTool(t *testing.T, c *client.Client, tool string, args map[string]any) {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := c.CallTool(context.Background(), req)
	if err != nil || res.IsError {
		t.Fatalf("%s %v: %+v, %v", tool, args, res, err)
	}
}

func kept(a *App) []string {
	var got []string
	for _, s := range a.Library().List(0) {
		got = append(got, s.Tool+": "+s.Topic)
	}
	return got
}

// TestFinishedReportsAreRecordedOnce: each report a research tool returns is kept once, with its text and sources,
// in the data dir's library; an answer from the cache is not kept again, and fresh: true researches and keeps a new one.
func TestFinishedReportsAreRecordedOnce(t *testing.T) {
	fake := geminitest.New(t, geminitest.ScenarioOK)
	a, c, path := startWithHistory(t, fake, nil)
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the library's file before any research: %v; want none, the library opens on first use", err)
	}

	before := time.Now()
	callTool(t, c, "search", map[string]any{"query": "rust 2024 edition"})
	if got, want := kept(a), []string{"search: rust 2024 edition"}; !slices.Equal(got, want) {
		t.Fatalf("kept %q, want %q", got, want)
	}
	sum := a.Library().List(0)[0]
	rep, err := a.Library().Get(sum.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rep.Markdown, "# Fake report") || rep.Partial || rep.Backend != "cli" ||
		!slices.Contains(rep.Sources, record.Source{URL: geminitest.FakeURL}) || rep.Duration <= 0 ||
		rep.Started.Before(before.Add(-time.Second)) { // the clock of the record is rounded
		t.Errorf("kept %+v, want the report with its source, backend, start and duration", rep)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the library's file: %v", err)
	}

	callTool(t, c, "search", map[string]any{"query": "Rust  2024 edition"}) // the cache answers
	if got := kept(a); len(got) != 1 {
		t.Errorf("after a cached answer: kept %q, want the first report alone", got)
	}
	time.Sleep(1100 * time.Millisecond) // the engine's timestamps count seconds: a new run starts in another one
	callTool(t, c, "search", map[string]any{"query": "rust 2024 edition", "fresh": true})
	callTool(t, c, "deep_search", map[string]any{"topic": "rust 2024 edition"})
	want := []string{"deep_search: rust 2024 edition", "search: rust 2024 edition", "search: rust 2024 edition"}
	if got := kept(a); !slices.Equal(got, want) {
		t.Errorf("kept %q, want %q", got, want)
	}

	// The headless server's status page lists them, each linking to its page.
	pages := surface(a.mcpHTTP, web.New(a, web.Forms{}, "tok", slog.New(slog.DiscardHandler)))
	get := func(target string, cookies []*http.Cookie) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:3000"+target, nil)
		for _, c := range cookies {
			req.AddCookie(c)
		}
		rec := httptest.NewRecorder()
		pages.ServeHTTP(rec, req)
		return rec
	}
	cookies := get("/status?token=tok", nil).Result().Cookies()
	status := get("/status", cookies)
	for _, s := range a.Library().List(0) {
		if !strings.Contains(status.Body.String(), `href="/report?id=`+s.ID+`"`) {
			t.Errorf("/status (%d) does not link %s:\n%s", status.Code, s.ID, status.Body)
		}
	}
	if report := get("/report?id="+sum.ID, cookies); report.Code != http.StatusOK ||
		!strings.Contains(report.Body.String(), "<h1>Fake report</h1>") {
		t.Errorf("/report: %d\n%s", report.Code, report.Body)
	}
}

// TestJoinedCallsAreRecordedOnce: identical calls that arrive together share one run, and its report is kept once.
func TestJoinedCallsAreRecordedOnce(t *testing.T) {
	fake := geminitest.New(t, geminitest.ScenarioSlow)
	t.Setenv(geminitest.EnvDelay, "1s")
	a, c, _ := startWithHistory(t, fake, map[string]string{"GEMINI_CACHE_TTL": "0"})
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() { callTool(t, c, "search", map[string]any{"query": "joined"}) })
	}
	wg.Wait()
	if runs := len(fake.Calls()); runs != 1 {
		t.Fatalf("%d CLI runs, want the three calls joined in one", runs)
	}
	if got := kept(a); !slices.Equal(got, []string{"search: joined"}) {
		t.Errorf("kept %q, want the shared report once", got)
	}
}

// TestFailuresAreNotRecorded: a call that fails keeps nothing.
func TestFailuresAreNotRecorded(t *testing.T) {
	fake := geminitest.New(t, geminitest.ScenarioAuth)
	a, c, _ := startWithHistory(t, fake, nil)
	req := mcp.CallToolRequest{}
	req.Params.Name = "search"
	req.Params.Arguments = map[string]any{"query": "will fail"}
	if res, err := c.CallTool(context.Background(), req); err != nil || !res.IsError {
		t.Fatalf("search: %+v, %v; want a failure", res, err)
	}
	if got := kept(a); len(got) != 0 {
		t.Errorf("kept %q after a failure", got)
	}
}

// TestHistoryOff: GEMINI_LIBRARY_MAX_REPORTS=0 keeps nothing, and a commit that turns it off deletes what was
// kept.
func TestHistoryOff(t *testing.T) {
	fake := geminitest.New(t, geminitest.ScenarioOK)
	a, c, _ := startWithHistory(t, fake, nil)
	callTool(t, c, "search", map[string]any{"query": "kept for now"})
	if len(kept(a)) != 1 {
		t.Fatalf("kept %q, want one report", kept(a))
	}
	to := a.Config()
	to.LibraryMaxReports = 0
	if err := a.Commit(to); err != nil {
		t.Fatal(err)
	}
	callTool(t, c, "search", map[string]any{"query": "not kept"})
	if len(kept(a)) != 0 || a.Library().Len() != 0 {
		t.Errorf("kept %q; want none", kept(a))
	}
}

// TestHistoryImportedAtStart: the report files the previous release kept in the cache dir are in the library from
// the App's start, with their ids; the files stay where they were.
func TestHistoryImportedAtStart(t *testing.T) {
	cache, data := t.TempDir(), t.TempDir()
	dir := filepath.Join(cache, "gemini-search-mcp", "history")
	if err := os.CopyFS(dir, os.DirFS("../library/testdata/history")); err != nil {
		t.Fatal(err)
	}
	a := newAppIn(t, map[string]string{"GEMINI_BACKEND": "api", "GEMINI_API_KEY": "test-key"}, cache, data)
	want := []string{"search: Föhn wind", "deep_search: Rust 2024 edition", "search: What is new in Go 1.26?"}
	if got := kept(a); !slices.Equal(got, want) {
		t.Errorf("kept %q, want the history's reports %q", got, want)
	}
	if rep, err := a.Report("20261120T080100.000000-704c2a93"); err != nil || len(rep.Sources) != 2 {
		t.Errorf("an imported report by its old id: %+v, %v", rep, err)
	}
	if st := a.State(); st.Kept != 3 || len(st.Recent) != 3 {
		t.Errorf("State: %d kept, %d recent; want 3", st.Kept, len(st.Recent))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Errorf("%d files left in the history folder, want the 3 there were", len(entries))
	}
}
