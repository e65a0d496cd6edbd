package geminiapi_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/mockgemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research/attach"
)

// TestRunSendsTheDocumentsItsPromptNames: a document the prompt names goes in the request's one user turn, as a
// part of its own after the prompt, delimited and marked with the name the prompt gives it; a run with the same
// context whose prompt names none (a JSON correction) sends the prompt alone.
func TestRunSendsTheDocumentsItsPromptNames(t *testing.T) {
	t.Parallel()
	mock := mockgemini.New()
	r := newRunner(t, mock, 0)
	ctx := attach.With(context.Background(), attach.Document{Name: "prior-report.md", Text: "# Earlier research"})
	for _, req := range []backend.Request{{Prompt: "Answer from @prior-report.md."}, {Prompt: "Correct this JSON.", Plain: true}} {
		if _, err := r.Run(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	want := [][]string{
		{"Answer from @prior-report.md.", "--- Content from @prior-report.md ---\n# Earlier research\n--- End of @prior-report.md ---"},
		{"Correct this JSON."},
	}
	reqs := mock.Requests()
	if len(reqs) != len(want) {
		t.Fatalf("%d requests, want %d", len(reqs), len(want))
	}
	for i, req := range reqs {
		var body struct {
			Contents []struct {
				Role  string `json:"role"`
				Parts []struct {
					Text string `json:"text"`
				} `json:"parts"`
			} `json:"contents"`
		}
		if err := json.Unmarshal(req.Body, &body); err != nil || len(body.Contents) != 1 || body.Contents[0].Role != "user" {
			t.Fatalf("request %d is not one user turn: %s (%v)", i, req.Body, err)
		}
		var texts []string
		for _, p := range body.Contents[0].Parts {
			texts = append(texts, p.Text)
		}
		if !slices.Equal(texts, want[i]) {
			t.Errorf("request %d sent parts %q, want %q", i, texts, want[i])
		}
	}
}
