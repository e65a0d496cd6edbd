package runners

import (
	"context"
	"slices"
	"testing"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

// TestAnnouncingFetch: a run of a CLI that npx fetches shows that step first, then the CLI's own.
func TestAnnouncingFetch(t *testing.T) {
	t.Parallel()
	cli := backend.RunnerFunc(func(ctx context.Context, req backend.Request) (backend.Result, error) {
		req.OnEvent(backend.Event{Kind: backend.EventSearch, Query: "rust 2024"})
		return backend.Result{Text: "answer"}, nil
	})
	var steps []string
	res, err := announcingFetch(cli).Run(t.Context(), backend.Request{Prompt: "p", OnEvent: func(ev backend.Event) {
		steps = append(steps, string(ev.Kind)+": "+ev.Tool+ev.Query)
	}})
	want := []string{"tool: " + fetchStep, "search: rust 2024"}
	if err != nil || res.Text != "answer" || !slices.Equal(steps, want) {
		t.Errorf("got %q, %v, steps %q; want the CLI's answer and steps %q", res.Text, err, steps, want)
	}
}
