package tools

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
)

// A search that succeeded without Firecrawl, which did not start, is recorded as a warning, not a failure: a
// report, a raw search, and no warning for a search whose Firecrawl ran.
func TestActivityWarnsOfAReportWithoutFirecrawl(t *testing.T) {
	t.Setenv("DEBUG", "false")
	for _, tt := range []struct {
		scenario string
		args     map[string]any
		warn     bool
	}{
		{geminitest.ScenarioNoFirecrawl, map[string]any{"query": "report"}, true},
		{geminitest.ScenarioNoFirecrawl, map[string]any{"query": "raw", "raw": true}, true},
		{geminitest.ScenarioOK, map[string]any{"query": "report"}, false},
	} {
		fake := geminitest.New(t, tt.scenario)
		runner := gemini.NewRunner(gemini.Config{Command: fake.Command(), Dir: t.TempDir(), Timeout: 30 * time.Second,
			Firecrawl: true})
		engine, err := research.New(runner, research.Settings{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		reg := activity.New()
		c := connect(t, newServer(engine, Options{Version: "test", Activity: reg}))
		if res := callSearch(context.Background(), t, c, tt.args); res.IsError {
			t.Fatalf("%s %v: got an error result", tt.scenario, tt.args)
		}
		snap := reg.Snapshot()
		if len(snap.Failures) != 0 {
			t.Errorf("%s: failures %+v, want none: the call succeeded", tt.scenario, snap.Failures)
		}
		f := snap.Warnings
		if !tt.warn {
			if len(f) != 0 {
				t.Errorf("%s: warnings %+v, want none", tt.scenario, f)
			}
			continue
		}
		if len(f) != 1 || !f[0].Warning || f[0].Code != backend.CodeFirecrawlUnavailable || f[0].Tool != "search" ||
			f[0].Query != tt.args["query"] || !strings.HasPrefix(f[0].Message, "Researched without Firecrawl, which was unavailable: ") ||
			f[0].Details == "" {
			t.Errorf("%s %v: warnings %+v, want one Firecrawl warning", tt.scenario, tt.args, f)
		}
	}
}
