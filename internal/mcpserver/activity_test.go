package mcpserver

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
)

// A search that succeeded without Firecrawl, which did not start, shows among the last errors as a warning: a
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
		c := connect(t, New(engine, Options{Version: "test", Activity: reg}))
		if res := callSearch(context.Background(), t, c, tt.args); res.IsError {
			t.Fatalf("%s %v: got an error result", tt.scenario, tt.args)
		}
		f := reg.Snapshot().Failures
		if !tt.warn {
			if len(f) != 0 {
				t.Errorf("%s: failures %+v, want none", tt.scenario, f)
			}
			continue
		}
		if len(f) != 1 || !f[0].Warning || f[0].Code != codeFirecrawlUnavailable || f[0].Tool != "search" ||
			f[0].Query != tt.args["query"] || !strings.HasPrefix(f[0].Message, "Researched without Firecrawl, which was unavailable: ") ||
			f[0].Details == "" {
			t.Errorf("%s %v: failures %+v, want one Firecrawl warning", tt.scenario, tt.args, f)
		}
	}
}
