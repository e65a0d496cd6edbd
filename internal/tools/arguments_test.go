package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
)

// ran is the answer of a call whose arguments passed.
type ran struct{}

func (ran) CallToolResult() *mcp.CallToolResult { return mcp.NewToolResultText("ran") }
func (ran) firecrawl() string                   { return "" }
func (ran) size() int                           { return 0 }

// callValidated calls tool's handler with args; its call itself answers "ran".
func callValidated(t *testing.T, tool mcp.Tool, args any) (*mcp.CallToolResult, string) {
	t.Helper()
	call := func(context.Context, map[string]any) (ran, error) { return ran{}, nil }
	req := mcp.CallToolRequest{}
	req.Params.Arguments = args
	res, err := handler(New(nil, Options{}), tool, call).Handler(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return res, resultText(t, res)
}

// Every way an argument can be wrong is answered with a sentence that names it; several wrong arguments are all
// named: the missing ones first, then the others in the order of their names.
func TestArgumentErrorsAreSentences(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		tool mcp.Tool
		args any
		want string
	}{
		{"missing", searchTool(), nil, "query is required"},
		{"two missing", fetchChunkTool(), map[string]any{}, "id and index are required"},
		{"not an object", searchTool(), map[string]any(nil), "the arguments must be an object, not a null"},
		{"empty", searchTool(), map[string]any{"query": ""}, "query must not be empty"},
		{"too long", searchTool(), map[string]any{"query": strings.Repeat("é", maxQueryLen+1)},
			"query must be at most 10000 characters long (got 10001)"},
		{"number for string", searchTool(), map[string]any{"query": 42}, "query must be a string, not a number"},
		{"null for string", searchTool(), map[string]any{"query": nil}, "query must be a string, not a null"},
		{"array for string", searchTool(), map[string]any{"query": []string{"a"}}, "query must be a string, not an array"},
		{"string for boolean", searchTool(), map[string]any{"query": "q", "fresh": "yes"},
			"fresh must be a boolean, not a string"},
		{"pattern", searchTool(), map[string]any{"query": "q", "model": "--yolo"},
			`model \"--yolo\" is not valid: it must match ^[A-Za-z0-9]+(?:[._:/-][A-Za-z0-9]+)*$`},
		{"enum", deepSearchTool(), map[string]any{"topic": "t", "depth": "huge"},
			`depth must be one of \"concise\", \"detailed\", \"max\" (got \"huge\")`},
		{"fraction for integer", fetchChunkTool(), map[string]any{"id": "0123456789abcdef", "index": 2.5},
			"index must be a whole number"},
		{"string for integer", fetchChunkTool(), map[string]any{"id": "0123456789abcdef", "index": "2"},
			"index must be an integer, not a string"},
		{"minimum", fetchChunkTool(), map[string]any{"id": "0123456789abcdef", "index": 0},
			"index must be at least 1 (got 0)"},
		{"several", searchTool(), map[string]any{"query": 1, "model": "--yolo", "fresh": 1},
			`fresh must be a boolean, not a number; model \"--yolo\" is not valid: it must match ` +
				`^[A-Za-z0-9]+(?:[._:/-][A-Za-z0-9]+)*$; query must be a string, not a number`},
		{"missing and wrong", fetchChunkTool(), map[string]any{"index": -1},
			"id is required; index must be at least 1 (got -1)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, text := callValidated(t, tt.tool, tt.args)
			want := "invalid arguments for " + tt.tool.Name + ": " + tt.want + `"`
			if !res.IsError || !strings.Contains(text, want) || !strings.Contains(text, string(backend.CodeInvalidArgument)) {
				t.Errorf("got %s, want an %s error with %s", text, backend.CodeInvalidArgument, want)
			}
		})
	}
}

func TestValidArgumentsReachTheHandler(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		tool mcp.Tool
		args map[string]any
	}{
		{"required only", searchTool(), map[string]any{"query": "q"}},
		{"every argument", deepSearchTool(), map[string]any{"topic": "t", "depth": "concise", "model": "gemini-2.5-pro",
			"output_file": "r.md", "fresh": true}},
		{"a whole number as a float", fetchChunkTool(), map[string]any{"id": "0123456789abcdef", "index": 2.0}},
		{"an argument the schema does not describe", searchTool(), map[string]any{"query": "q", "extra": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if res, text := callValidated(t, tt.tool, tt.args); res.IsError || text != "ran" {
				t.Errorf("got %s, want the handler to run", text)
			}
		})
	}
}

// searchRecorder is an engine that answers every search at once and keeps the last request.
type searchRecorder struct {
	Engine
	got *research.SearchRequest
}

func (e searchRecorder) Search(_ context.Context, req research.SearchRequest) (research.Report, error) {
	*e.got = req
	return research.Report{Success: true, Report: "done"}, nil
}

// An argument named in other case than the schema spells it is no argument: it is neither checked nor used, so
// that it cannot slip past the schema's bounds ("LIMIT": 1000, a "MODEL" the pattern refuses).
func TestArgumentsInOtherCaseAreIgnored(t *testing.T) {
	t.Parallel()
	var got research.SearchRequest
	tools := New(searchRecorder{got: &got}, Options{})
	req := mcp.CallToolRequest{}
	req.Params.Arguments = map[string]any{"query": "q", "LIMIT": 1000, "MODEL": "--yolo", "Raw": true}
	res, err := tools.ServerTools()[0].Handler(context.Background(), req)
	if err != nil || res.IsError {
		t.Fatalf("got %v, %v; want the search to run", res, err)
	}
	if got.Limit != 0 || got.Model != "" {
		t.Errorf("the engine got limit %d, model %q; want neither", got.Limit, got.Model)
	}
	if _, raw := res.StructuredContent.(RawReport); raw {
		t.Error("got a raw report; want a report")
	}
}
