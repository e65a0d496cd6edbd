package runners

import (
	"context"
	"slices"
	"testing"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

// TestAnnouncingFetch: a run of a CLI that npx fetches shows that step first, then the CLI's own; once a run has
// succeeded (npx has the CLI cached), no run shows it any more.
func TestAnnouncingFetch(t *testing.T) {
	t.Parallel()
	cli := backend.RunnerFunc(func(ctx context.Context, req backend.Request) (backend.Result, error) {
		req.OnEvent(backend.Event{Kind: backend.EventSearch, Query: "rust 2024"})
		return backend.Result{Text: "answer"}, nil
	})
	runner := announcingFetch(cli)
	for i, want := range [][]string{{"tool: " + fetchStep, "search: rust 2024"}, {"search: rust 2024"}} {
		var steps []string
		res, err := runner.Run(t.Context(), backend.Request{Prompt: "p", OnEvent: func(ev backend.Event) {
			steps = append(steps, string(ev.Kind)+": "+ev.Tool+ev.Query)
		}})
		if err != nil || res.Text != "answer" || !slices.Equal(steps, want) {
			t.Errorf("run %d: got %q, %v, steps %q; want the CLI's answer and steps %q", i+1, res.Text, err, steps, want)
		}
	}
}
