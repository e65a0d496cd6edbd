package research

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
)

// An identical request within the time to live is answered from the cache, without a run; fresh runs again, and
// another backend or model is another request.
func TestIdenticalRequestsAreAnsweredFromTheCache(t *testing.T) {
	cache := NewCache(time.Minute)
	e, fake, _ := newEngine(t, "ok", Settings{Cache: cache, Backend: "auto", Joins: &Joins{}})
	ctx := context.Background()
	first, err := e.Search(ctx, SearchRequest{Query: "Rust 2024"})
	if err != nil || first.Metadata.Cached {
		t.Fatalf("first: %+v, %v", first.Metadata, err)
	}
	second, err := e.Search(ctx, SearchRequest{Query: "  rust   2024 "})
	if err != nil || !second.Metadata.Cached || second.Metadata.CacheAgeMS == nil || second.Report != first.Report {
		t.Errorf("second: cached=%v age=%v, same report %v (%v)", second.Metadata.Cached, second.Metadata.CacheAgeMS,
			second.Report == first.Report, err)
	}
	if n := len(fake.Calls()); n != 1 {
		t.Errorf("the CLI ran %d times, want once", n)
	}
	if fresh, err := e.Search(ctx, SearchRequest{Query: "rust 2024", Fresh: true}); err != nil || fresh.Metadata.Cached {
		t.Errorf("fresh: cached=%v, %v", fresh.Metadata.Cached, err)
	}
	if _, err := e.DeepSearch(ctx, DeepSearchRequest{Topic: "rust 2024", Depth: DepthConcise}); err != nil {
		t.Fatal(err)
	}
	other, _, _ := newEngine(t, "ok", Settings{Cache: cache, Backend: "api"})
	if rep, err := other.Search(ctx, SearchRequest{Query: "rust 2024"}); err != nil || rep.Metadata.Cached {
		t.Errorf("another backend: cached=%v, %v", rep.Metadata.Cached, err)
	}
	if n := len(fake.Calls()); n < 3 {
		t.Errorf("the CLI ran %d times, want fresh and deep_search to run", n)
	}
}

func TestTheCacheKeepsOnlyCompleteReportsForItsTimeToLive(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	c := NewCache(time.Minute)
	c.now = func() time.Time { return now }
	ok := Report{Success: true, Report: "r"}
	c.put("complete", ok)
	c.put("partial", Report{Success: true, Partial: true})
	c.put("unparsed", Report{Success: true, ParseWarning: true})
	c.put("failed", Report{})
	for _, key := range []string{"partial", "unparsed", "failed"} {
		if _, hit := c.get(key); hit {
			t.Errorf("%s was cached", key)
		}
	}
	now = now.Add(59 * time.Second)
	if rep, hit := c.get("complete"); !hit || *rep.Metadata.CacheAgeMS != 59000 {
		t.Errorf("within the TTL: hit=%v, %+v", hit, rep.Metadata)
	}
	now = now.Add(time.Second)
	if _, hit := c.get("complete"); hit {
		t.Error("kept past its time to live")
	}
	c.put("again", ok)
	c.SetTTL(0)
	if _, hit := c.get("again"); hit {
		t.Error("GEMINI_CACHE_TTL=0 keeps nothing")
	}
	c.SetTTL(time.Minute)
	for i := range maxCached + 5 {
		now = now.Add(time.Millisecond)
		c.put(string(rune('a'+i%26))+string(rune(i)), ok)
	}
	if c.reports.Len() != maxCached {
		t.Errorf("%d entries, want the cap %d", c.reports.Len(), maxCached)
	}
}

// A report researched while Firecrawl, configured, did not start says so in metadata.firecrawl, and is not cached:
// the next identical request may find Firecrawl up.
func TestAReportWithoutItsFirecrawlSaysSoAndIsNotCached(t *testing.T) {
	t.Setenv("DEBUG", "false")
	fake := geminitest.New(t, geminitest.ScenarioNoFirecrawl)
	runner := gemini.NewRunner(gemini.Config{Command: fake.Command(), Dir: t.TempDir(), Timeout: 30 * time.Second,
		Firecrawl: true})
	e, err := New(runner, Settings{Cache: NewCache(time.Hour)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		rep, err := e.Search(context.Background(), SearchRequest{Query: "Rust 2024"})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(rep.Metadata.Firecrawl, "unavailable: ") || !strings.Contains(rep.Metadata.Firecrawl, "MCP issues detected") ||
			rep.Partial || rep.Metadata.Cached {
			t.Errorf("call %d: firecrawl %q, partial %v, cached %v", i+1, rep.Metadata.Firecrawl, rep.Partial, rep.Metadata.Cached)
		}
	}
	if n := len(fake.Calls()); n != 2 {
		t.Errorf("the CLI ran %d times, want twice: nothing cached", n)
	}
}

// The sweep drops the reports past their time to live with no request coming; at most maxCachedBytes are kept, the
// oldest going first.
func TestTheCacheIsSweptAndBoundedInBytes(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	c := NewCache(time.Minute)
	c.now = func() time.Time { return now }
	report := func(size int) Report { return Report{Success: true, Report: strings.Repeat("r", size)} }
	c.put("a", report(100))
	if held := c.Sweep(now.Add(59 * time.Second)); held < 100 {
		t.Errorf("within the TTL: %d bytes held, want the report's", held)
	}
	if held := c.Sweep(now.Add(time.Minute)); held != 0 {
		t.Errorf("past the TTL: %d bytes held, want none", held)
	}
	const size = maxCachedBytes / 4
	for _, key := range []string{"1", "2", "3", "4"} {
		c.put(key, report(size))
	}
	if _, hit := c.get("1"); hit {
		t.Error("the oldest report is kept past maxCachedBytes")
	}
	if _, hit := c.get("4"); !hit {
		t.Error("the newest report was dropped")
	}
	if held := c.Sweep(now); held > maxCachedBytes {
		t.Errorf("%d bytes held, want at most %d", held, maxCachedBytes)
	}
}

// A report's Summary, a part of its Report, is kept as its place there: one string in memory, counted once, and
// the same summary comes back.
func TestTheCacheKeepsTheSummaryInTheReport(t *testing.T) {
	t.Parallel()
	c := NewCache(time.Minute)
	body := strings.Repeat("finding. ", 1000)
	copied := Report{Success: true, Report: "[notice]\n\n" + body + "\n\nSources", Summary: strings.Clone(body)}
	c.put("k", copied)
	got, hit := c.get("k")
	if !hit || got.Summary != body || got.Report != copied.Report {
		t.Fatalf("got summary of %d bytes (hit %v), want the one put", len(got.Summary), hit)
	}
	if !inMemoryOf(got.Summary, got.Report) {
		t.Error("the summary kept is a copy of its own, not a part of the report")
	}
	if held := c.Sweep(c.now()); held > len(copied.Report)+1024 {
		t.Errorf("%d bytes held for a report of %d: the summary is counted again", held, len(copied.Report))
	}
	other := Report{Success: true, Report: "a report", Summary: "a summary of its own"}
	c.put("other", other)
	if got, _ := c.get("other"); got.Summary != other.Summary {
		t.Errorf("summary %q, want %q", got.Summary, other.Summary)
	}
}

// Forget drops the report of one research from memory: an identical request is researched again. Another
// research's report stays, that of another tool on the same topic too.
func TestTheCacheForgetsAResearch(t *testing.T) {
	cache := NewCache(time.Minute)
	e, fake, _ := newEngine(t, "ok", Settings{Cache: cache})
	ctx := context.Background()
	first, err := e.Search(ctx, SearchRequest{Query: "forgotten"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Search(ctx, SearchRequest{Query: "kept"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.DeepSearch(ctx, DeepSearchRequest{Topic: "forgotten", Depth: DepthConcise}); err != nil {
		t.Fatal(err)
	}
	runs := len(fake.Calls())

	cache.Forget(first.Identity("search"))
	if rep, err := e.Search(ctx, SearchRequest{Query: "forgotten"}); err != nil || rep.Metadata.Cached {
		t.Errorf("the research forgotten: cached=%v, %v; want researched again", rep.Metadata.Cached, err)
	}
	for name, call := range map[string]func() (Report, error){
		"another research": func() (Report, error) { return e.Search(ctx, SearchRequest{Query: "kept"}) },
		"another tool": func() (Report, error) {
			return e.DeepSearch(ctx, DeepSearchRequest{Topic: "forgotten", Depth: DepthConcise})
		},
	} {
		if rep, err := call(); err != nil || !rep.Metadata.Cached {
			t.Errorf("%s: cached=%v, %v; want the report kept", name, rep.Metadata.Cached, err)
		}
	}
	if n := len(fake.Calls()) - runs; n != 1 {
		t.Errorf("the CLI ran %d more times, want once: for the research forgotten", n)
	}
}
