package app

import (
	"context"
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
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/history"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/web"
)

func TestMain(m *testing.M) {
	geminitest.Main() // the fake Gemini CLI, when a test asks for one
	os.Exit(m.Run())
}

// startWithHistory starts an App on the fake CLI with its history in a cache dir of its own, and returns it with an
// MCP client connected in process.
func startWithHistory(t *testing.T, fake *geminitest.Fake, vars map[string]string) (*App, *client.Client, string) {
	t.Helper()
	cache := t.TempDir()
	env := map[string]string{config.DirVar: t.TempDir(), "GEMINI_CLI_PATH": fake.Path, "GEMINI_BACKEND": "cli"}
	for k, v := range vars {
		env[k] = v
	}
	cfg, err := config.Load(config.Env{Lookup: func(n string) (string, bool) { v, ok := env[n]; return v, ok },
		XDGCacheHome: cache})
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(cfg, Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Shutdown)
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
	return a, c, filepath.Join(cache, "gemini-search-mcp", "history")
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
	for _, s := range a.History().List(0) {
		got = append(got, s.Tool+": "+s.Topic)
	}
	return got
}

// TestFinishedReportsAreRecordedOnce: each report a research tool returns is kept once, with its text and sources,
// in the cache dir; an answer from the cache is not kept again, and fresh: true researches and keeps a new one.
func TestFinishedReportsAreRecordedOnce(t *testing.T) {
	fake := geminitest.New(t, geminitest.ScenarioOK)
	a, c, dir := startWithHistory(t, fake, nil)

	before := time.Now()
	callTool(t, c, "search", map[string]any{"query": "rust 2024 edition"})
	if got, want := kept(a), []string{"search: rust 2024 edition"}; !slices.Equal(got, want) {
		t.Fatalf("kept %q, want %q", got, want)
	}
	sum := a.History().List(0)[0]
	rep, err := a.History().Get(sum.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rep.Markdown, "# Fake report") || rep.Partial || rep.Backend != "cli" ||
		!slices.Contains(rep.Sources, history.Source{URL: geminitest.FakeURL}) || rep.Duration <= 0 ||
		rep.Started.Before(before.Add(-time.Second)) { // the clock of the record is rounded
		t.Errorf("kept %+v, want the report with its source, backend, start and duration", rep)
	}
	if _, err := os.Stat(filepath.Join(dir, sum.ID+".json")); err != nil {
		t.Errorf("the report's file: %v", err)
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
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Errorf("%d files in %s, want 3", len(entries), dir)
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
	for _, s := range a.History().List(0) {
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

// TestHistoryOff: GEMINI_HISTORY_MAX=0 keeps nothing, and a commit that turns it off deletes what was kept.
func TestHistoryOff(t *testing.T) {
	fake := geminitest.New(t, geminitest.ScenarioOK)
	a, c, dir := startWithHistory(t, fake, nil)
	callTool(t, c, "search", map[string]any{"query": "kept for now"})
	if len(kept(a)) != 1 {
		t.Fatalf("kept %q, want one report", kept(a))
	}
	to := a.Config()
	to.HistoryMax = 0
	if err := a.Commit(to); err != nil {
		t.Fatal(err)
	}
	callTool(t, c, "search", map[string]any{"query": "not kept"})
	if entries, _ := os.ReadDir(dir); len(kept(a)) != 0 || len(entries) != 0 {
		t.Errorf("kept %q, %d files; want none", kept(a), len(entries))
	}
}
