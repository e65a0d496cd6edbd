package research

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

// TestIdenticalRequestsShareOneRun: a request that differs from a running one only in case and spacing joins it
// (one CLI run, the same report, the joiner told the running stage); a different request runs on its own.
func TestIdenticalRequestsShareOneRun(t *testing.T) {
	e, fake, logs := newEngine(t, geminitest.ScenarioSlow, Settings{Joins: &Joins{}})

	var wg sync.WaitGroup
	results := make([]Report, 3)
	var stages sync.Map
	search := func(i int, query string) {
		defer wg.Done()
		var seen []string
		var mu sync.Mutex
		rep, err := e.Search(context.Background(), SearchRequest{Query: query, Progress: func(s string) {
			mu.Lock()
			seen = append(seen, s)
			mu.Unlock()
		}})
		if err != nil {
			t.Errorf("search %d: %v", i, err)
		}
		results[i] = rep
		mu.Lock()
		stages.Store(i, seen)
		mu.Unlock()
	}
	wg.Add(1)
	go search(0, "What changed in Rust 2024?")
	testkit.WaitFor(t, "the first run to start", func() bool { return len(fake.Calls()) == 1 })
	wg.Add(2)
	go search(1, "  what CHANGED in   rust 2024? ")
	go search(2, "What changed in Go 1.26?")
	wg.Wait()

	if n := len(fake.Calls()); n != 2 {
		t.Errorf("the CLI ran %d times, want 2: the identical request must join the running one", n)
	}
	if results[0].Report != results[1].Report || !results[1].Success {
		t.Errorf("the joined request got %+v, want the first one's report", results[1])
	}
	joinerStages, _ := stages.Load(1)
	if s := joinerStages.([]string); len(s) == 0 || !strings.HasPrefix(s[0], "joined an identical request already running: ") {
		t.Errorf("the joiner's stages %q, want the first to say it joined", s)
	}
	if !strings.Contains(logs.String(), "joined an identical request already running") {
		t.Errorf("the join is not logged:\n%s", logs)
	}
}

// TestJoinedRunEndsWithItsLastCaller: the shared run goes on while one caller still waits, and is cancelled once
// every caller has gone.
func TestJoinedRunEndsWithItsLastCaller(t *testing.T) {
	e, fake, _ := newEngine(t, geminitest.ScenarioHang, Settings{Joins: &Joins{}})
	first, cancelFirst := context.WithCancel(context.Background())
	second, cancelSecond := context.WithCancel(context.Background())
	errs := make(chan error, 2)
	go func() { _, err := e.Search(first, SearchRequest{Query: "q"}); errs <- err }()
	testkit.WaitFor(t, "the run to start", func() bool { return len(fake.Calls()) == 1 })
	go func() { _, err := e.Search(second, SearchRequest{Query: "Q"}); errs <- err }()

	cancelFirst()
	if err := <-errs; !errors.Is(err, context.Canceled) {
		t.Fatalf("the first caller got %v, want context.Canceled", err)
	}
	select {
	case err := <-errs:
		t.Fatalf("the second caller got %v while it still waits: the shared run was cancelled with the first", err)
	case <-time.After(300 * time.Millisecond):
	}
	cancelSecond()
	if err := <-errs; !errors.Is(err, context.Canceled) {
		t.Fatalf("the second caller got %v, want context.Canceled", err)
	}
}
