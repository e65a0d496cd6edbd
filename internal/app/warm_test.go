package app

import (
	"slices"
	"testing"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

// Warm CLIs follow the configuration: a commit replaces them with ones started for it, a repaired workspace too,
// and keepWarm(false) and Shutdown end them.
func TestWarmWorkersFollowTheConfiguration(t *testing.T) {
	fake := geminitest.New(t, geminitest.ScenarioOK)
	dir := t.TempDir()
	vars := map[string]string{"GEMINI_CLI_PATH": fake.Path, "GEMINI_BACKEND": "cli", "GEMINI_API_KEY": "AIza-app-test-key"}
	a, err := New(load(t, dir, vars), Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Shutdown)
	changed := a.warmth.Changed()
	a.keepWarm(true)
	<-changed
	// replaced waits until the warm CLI is the nth started, and the ones before it have ended.
	replaced := func(what string, n int) {
		t.Helper()
		testkit.WaitFor(t, what, func() bool {
			started, live := fake.Started(), fake.LivePIDs()
			return a.State().Backend.Warm == 1 && len(started) == n && slices.Equal(live, started[n-1:])
		})
	}
	replaced("a warm CLI", 1)

	vars["GEMINI_MODEL"] = "m2"
	if err := a.Commit(load(t, dir, vars)); err != nil {
		t.Fatal(err)
	}
	replaced("a warm CLI for the new configuration", 2)
	a.RepairWorkspace()
	replaced("a warm CLI for the repaired workspace", 3)

	a.keepWarm(false)
	testkit.WaitFor(t, "no warm CLI", func() bool { return a.State().Backend.Warm == 0 && len(fake.LivePIDs()) == 0 })
	a.Shutdown()
	if n := len(fake.Started()); n != 3 {
		t.Errorf("%d CLIs started, want 3", n)
	}
	if a.keepWarm(true); a.State().Backend.Warm != 0 {
		t.Error("kept warm after Shutdown")
	}
}
