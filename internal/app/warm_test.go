package app

import (
	"slices"
	"testing"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

// No CLI starts before a search; the first search runs cold and starts the warm CLI. Warm CLIs follow the
// configuration: a commit and a repaired workspace end them (the next search runs cold with the new settings and
// starts another), and keepWarm(false) and Shutdown end them.
func TestWarmWorkersFollowTheConfiguration(t *testing.T) {
	fake := geminitest.New(t, geminitest.ScenarioOK)
	dir := t.TempDir()
	vars := map[string]string{"GEMINI_CLI_PATH": fake.Path, "GEMINI_BACKEND": "cli", "GEMINI_API_KEY": "AIza-app-test-key"}
	a, err := New(load(t, dir, vars), Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Shutdown)
	a.keepWarm(true)
	if n := len(fake.Started()); n != 0 || a.State().Backend.Warm != 0 {
		t.Fatalf("%d CLIs started before any search, want none", n)
	}
	search := func() {
		t.Helper()
		if _, err := a.configured.Load().backends.Runner().Run(t.Context(), backend.Request{Prompt: "q"}); err != nil {
			t.Fatal(err)
		}
	}
	// warm waits until the warm CLI is the nth started, and the ones before it have ended.
	warm := func(what string, n int) {
		t.Helper()
		testkit.WaitFor(t, what, func() bool {
			started, live := fake.Started(), fake.LivePIDs()
			return a.State().Backend.Warm == 1 && len(started) == n && slices.Equal(live, started[n-1:])
		})
	}
	search()
	warm("a warm CLI after the first search", 2)

	vars["GEMINI_MODEL"] = "m2"
	if err := a.Commit(load(t, dir, vars)); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "no warm CLI for the new configuration before its search", func() bool {
		return a.State().Backend.Warm == 0 && len(fake.LivePIDs()) == 0
	})
	search()
	warm("a warm CLI for the new configuration", 4)
	a.RepairWorkspace()
	testkit.WaitFor(t, "no warm CLI for the old workspace", func() bool {
		return a.State().Backend.Warm == 0 && len(fake.LivePIDs()) == 0
	})
	search()
	warm("a warm CLI for the repaired workspace", 6)

	a.keepWarm(false)
	testkit.WaitFor(t, "no warm CLI", func() bool { return a.State().Backend.Warm == 0 && len(fake.LivePIDs()) == 0 })
	a.Shutdown()
	if n := len(fake.Started()); n != 6 {
		t.Errorf("%d CLIs started, want 6", n)
	}
	if a.keepWarm(true); a.State().Backend.Warm != 0 {
		t.Error("kept warm after Shutdown")
	}
}
