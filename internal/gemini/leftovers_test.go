//go:build linux

package gemini_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

// A run is recorded while its CLI runs and forgotten once its group is gone; a sweep leaves the records of a
// server that runs alone, and drops records it cannot read.
func TestRunRecords(t *testing.T) {
	t.Parallel()
	runs := t.TempDir()
	fake := geminitest.NewLocal(t, geminitest.ScenarioHang)
	r := newRunner(t, fake, func(c *gemini.Config) { c.RunsDir = runs })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = r.Run(ctx, backend.Request{Prompt: "hang"})
	}()
	records := func() []string { m, _ := filepath.Glob(filepath.Join(runs, "*.json")); return m }
	testkit.WaitFor(t, "the run's record", func() bool { return len(records()) == 1 })
	var rec map[string]any
	if data, err := os.ReadFile(records()[0]); err != nil || json.Unmarshal(data, &rec) != nil ||
		rec["server"] != float64(os.Getpid()) || rec["dir"] == "" {
		t.Errorf("record %s: %v", data, err)
	}

	if err := os.WriteFile(filepath.Join(runs, "garbage.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if ended := gemini.SweepLeftovers(runs, slog.New(slog.DiscardHandler)); ended != 0 || len(records()) != 1 {
		t.Errorf("a sweep while this server runs ended %d groups and left %q, want none ended and its record kept",
			ended, records())
	}
	cancel()
	<-done
	testkit.WaitFor(t, "the record to go with the run", func() bool { return len(records()) == 0 })
}

// A follow-up's documents folder holds a copy of a report the user researched. A server killed in the middle of
// such a run leaves it; the next server to start removes it, with the run's leftover processes. The folder of a run
// still going, of a server that runs, stays until its run ends.
func TestDocumentsOfAKilledServerAreRemoved(t *testing.T) {
	t.Parallel()
	runs := t.TempDir()
	fake := geminitest.NewLocal(t, geminitest.ScenarioHang)
	folders := func() []string { m, _ := filepath.Glob(filepath.Join(runs, "docs-*")); return m }

	// The server to kill: this test binary, run as a server (serveDocuments).
	cfg, _ := json.Marshal(documentsServer{Dir: t.TempDir(), Runs: runs, Env: fake.Env()})
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	killed := exec.Command(exe)
	killed.Env, killed.Stderr = append(os.Environ(), envDocumentsServer+"="+string(cfg)), &stderr
	if err := killed.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = killed.Process.Kill() }) // when the test stops before it kills the server itself
	testkit.WaitFor(t, "the server's run to read its documents", func() bool { return len(fake.Calls()) == 1 })
	left := folders()
	if len(left) != 1 || len(fake.Calls()[0].Refs) != 1 {
		t.Fatalf("the run has folders %v and read %v, want one folder with its document", left, fake.Calls()[0].Refs)
	}
	if info, err := os.Stat(left[0]); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("the documents folder: %v, %v; want it private (0700)", info, err)
	}
	if err := killed.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = killed.Wait()
	if stderr.Len() > 0 {
		t.Errorf("the server's run ended before it was killed: %s", stderr.String())
	}

	// A server that runs, with its own follow-up going on.
	r := newRunner(t, fake, func(c *gemini.Config) { c.RunsDir = runs })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = r.Run(ctx, backend.Request{Prompt: "Answer from @prior-report.md.", Documents: priorReport})
	}()
	testkit.WaitFor(t, "this server's run to read its documents", func() bool { return len(fake.Calls()) == 2 })
	live := slices.DeleteFunc(folders(), func(f string) bool { return f == left[0] })

	// The next server starts.
	gemini.SweepLeftovers(runs, slog.New(slog.DiscardHandler))
	if got := folders(); !slices.Equal(got, live) || len(live) != 1 {
		t.Errorf("documents folders after the sweep: %v, want only the running server's %v", got, live)
	}
	for path := range fake.Calls()[1].Refs {
		if _, err := os.Stat(path); err != nil {
			t.Errorf("the running server's document is gone: %v", err)
		}
	}
	cancel()
	<-done
	testkit.WaitFor(t, "the running server's folder to go with its run", func() bool { return len(folders()) == 0 })
	testkit.WaitFor(t, "the killed server's leftover processes to end", func() bool { return len(fake.LivePIDs()) == 0 })
}
