package gemini_test

import (
	"slices"
	"testing"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

// A worker grown past ACPMaxRSS (read from /proc) is replaced at the next search, which runs cold; the spent one
// ends.
func TestACPRecyclesPastItsSize(t *testing.T) {
	t.Parallel()
	fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
	r := newACPRunner(t, fake, func(c *gemini.Config) { c.ACPMaxRSS = 1 })
	if _, err := run(t, r, backend.Request{}); err != nil {
		t.Fatal(err)
	}
	waitReady(t, r)
	first := fake.Started()
	if _, err := run(t, r, backend.Request{}); err != nil {
		t.Fatal(err)
	}
	calls := fake.Calls()
	if isACP(calls[1]) {
		t.Errorf("the search ran on the spent worker: %+v", calls[1])
	}
	testkit.WaitFor(t, "the spent worker gone and another started", func() bool {
		live := fake.LivePIDs()
		return len(fake.Started()) == len(first)+2 && !slices.ContainsFunc(first, func(pid int) bool { return slices.Contains(live, pid) })
	})
}
