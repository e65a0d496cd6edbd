package geminiapi_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/mockgemini"
)

// TestRunSendsTheDocumentsItsPromptNames: a document the prompt names goes in the request's one user turn, as a
// part of its own after the prompt, delimited and marked with the name the prompt gives it; a request without
// documents (a JSON correction) sends the prompt alone.
func TestRunSendsTheDocumentsItsPromptNames(t *testing.T) {
	t.Parallel()
	mock := mockgemini.New()
	r := newRunner(t, mock, 0)
	doc := []backend.Document{{Name: "prior-report.md", Text: "# Earlier research"}}
	for _, req := range []backend.Request{{Prompt: "Answer from @prior-report.md.", Documents: doc}, {Prompt: "Correct this JSON.", Plain: true}} {
		if _, err := r.Run(context.Background(), req); err != nil {
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
