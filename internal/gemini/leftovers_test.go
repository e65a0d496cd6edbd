//go:build linux

package gemini_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
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
