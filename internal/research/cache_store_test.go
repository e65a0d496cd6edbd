package research

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library"
)

// TestTheCacheKeepsItsReportsInTheLibrary: a report cached by one server answers an identical request of another
// server sharing the research library, and of the same server after a restart (a new cache), without a run, with
// its summary and metadata as researched and its age; past the time to live it does not.
func TestTheCacheKeepsItsReportsInTheLibrary(t *testing.T) {
	path := filepath.Join(t.TempDir(), "library.db")
	lib, err := library.Open(path, library.Options{Poll: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	cacheOf := func(ttl time.Duration) *Cache {
		c := NewCache(ttl)
		c.SetStore(lib)
		return c
	}
	ctx := context.Background()
	first, firstFake, _ := newEngine(t, "ok", Settings{Cache: cacheOf(time.Hour)})
	want, err := first.Search(ctx, SearchRequest{Query: "Go 1.26"})
	if err != nil || want.Metadata.Cached {
		t.Fatalf("first search: cached=%v, %v", want.Metadata.Cached, err)
	}

	restarted, fake, _ := newEngine(t, "ok", Settings{Cache: cacheOf(time.Hour)})
	got, err := restarted.Search(ctx, SearchRequest{Query: "go  1.26"})
	if err != nil || !got.Metadata.Cached || got.Metadata.CacheAgeMS == nil {
		t.Fatalf("after a restart: cached=%v age=%v, %v; want the report from the library", got.Metadata.Cached,
			got.Metadata.CacheAgeMS, err)
	}
	if got.Report != want.Report || got.Summary != want.Summary || got.Metadata.Topic != want.Metadata.Topic ||
		len(got.Metadata.SourcesVisited) != len(want.Metadata.SourcesVisited) {
		t.Errorf("the stored report differs from the one researched:\n got %+v\nwant %+v", got, want)
	}
	if n := len(fake.Calls()) + len(firstFake.Calls()); n != 1 {
		t.Errorf("the CLI ran %d times, want once", n)
	}

	expired, fake, _ := newEngine(t, "ok", Settings{Cache: cacheOf(time.Nanosecond)})
	if rep, err := expired.Search(ctx, SearchRequest{Query: "Go 1.26"}); err != nil || rep.Metadata.Cached ||
		len(fake.Calls()) != 1 {
		t.Errorf("past the time to live: cached=%v, %d runs, %v; want researched again", rep.Metadata.Cached,
			len(fake.Calls()), err)
	}
}

// TestTheStoredCacheKeepsTheSummaryOfAReportThatIsNotUTF8: a report whose text holds bytes that are not UTF-8 (a
// page quoted in Latin-1, say) comes back from the library with its summary as researched: its encoding turns
// each such byte into U+FFFD, of three bytes, so a place in the text would be off.
func TestTheStoredCacheKeepsTheSummaryOfAReportThatIsNotUTF8(t *testing.T) {
	t.Parallel()
	lib, err := library.Open(filepath.Join(t.TempDir(), "library.db"), library.Options{Poll: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	cacheOf := func() *Cache {
		c := NewCache(time.Hour)
		c.SetStore(lib)
		return c
	}
	summary := "Prices rose 4% in the quarter."
	cacheOf().put("k", Report{Success: true, Report: "[notice: caf\xe9 cr\xe8me]\n\n" + summary + "\n\nSources",
		Summary: summary})

	got, hit := cacheOf().get("k")
	if !hit || got.Summary != summary {
		t.Errorf("after a restart: summary %q (hit %v), want %q", got.Summary, hit, summary)
	}
}

// TestACacheWithoutATimeToLiveEmptiesTheStore: GEMINI_CACHE_TTL=0, set while the server runs or at its start,
// drops the reports the library keeps for the cache: a server that caches again later researches anew.
func TestACacheWithoutATimeToLiveEmptiesTheStore(t *testing.T) {
	lib, err := library.Open(filepath.Join(t.TempDir(), "library.db"), library.Options{Poll: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	cacheOf := func(ttl time.Duration) *Cache {
		c := NewCache(ttl)
		c.SetStore(lib)
		return c
	}
	ctx := context.Background()
	for name, turnOff := range map[string]func(*Cache){
		"set while it runs": func(c *Cache) { c.SetTTL(0) },
		"at a start":        func(*Cache) { cacheOf(0) },
	} {
		t.Run(name, func(t *testing.T) {
			running := cacheOf(time.Hour)
			e, _, _ := newEngine(t, "ok", Settings{Cache: running})
			if _, err := e.Search(ctx, SearchRequest{Query: "cached, then not"}); err != nil {
				t.Fatal(err)
			}
			turnOff(running)

			later, fake, _ := newEngine(t, "ok", Settings{Cache: cacheOf(time.Hour)})
			if rep, err := later.Search(ctx, SearchRequest{Query: "cached, then not"}); err != nil || rep.Metadata.Cached ||
				len(fake.Calls()) != 1 {
				t.Errorf("after GEMINI_CACHE_TTL=0: cached=%v, %d runs, %v; want researched again", rep.Metadata.Cached,
					len(fake.Calls()), err)
			}
		})
	}
}
