package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// bookSchema is a caller's schema: a book with a title and a year.
var bookSchema = map[string]any{"type": "object", "required": []any{"title", "year"}, "additionalProperties": false,
	"properties": map[string]any{"title": map[string]any{"type": "string"}, "year": map[string]any{"type": "integer"}}}

// TestStructured: the answer that fits the caller's schema comes back as structuredContent; one that does not is
// corrected once, the correction run quoting where and why it failed.
func TestStructured(t *testing.T) {
	t.Parallel()
	script, _ := json.Marshal([]geminitest.Step{
		{Scenario: geminitest.ScenarioPlain, Answer: "```json\n{\"title\": \"Dune\", \"year\": \"1965\"}\n```"},
		{Scenario: geminitest.ScenarioPlain, Answer: "```json\n{\"title\": \"Dune\", \"year\": 1965}\n```"},
	})
	c := connect(t, localServer(t, geminitest.ScenarioScript, 30*time.Second, geminitest.EnvScript+"="+string(script)))
	res := call(context.Background(), t, c, "structured", map[string]any{"prompt": "The first Dune novel", "schema": bookSchema}, nil)
	got, _ := json.Marshal(res.StructuredContent)
	if res.IsError || string(got) != `{"title":"Dune","year":1965}` || resultText(t, res) != string(got) {
		t.Errorf("got %s / %s", got, resultText(t, res))
	}
}

// TestStructuredRefusesBadSchemas: a schema that cannot serve is refused with the reason, before anything runs.
func TestStructuredRefusesBadSchemas(t *testing.T) {
	t.Parallel()
	c := connect(t, localServer(t, geminitest.ScenarioOK, 30*time.Second))
	for want, schema := range map[string]any{
		`must describe an object`:           map[string]any{"type": "array"},
		`is not valid JSON Schema`:          map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "nope"}}},
		`may not refer to another document`: map[string]any{"type": "object", "$ref": "file:///etc/passwd"},
		`the limit is 65536`:                map[string]any{"type": "object", "description": strings.Repeat("x", 70000)},
	} {
		res := call(context.Background(), t, c, "structured", map[string]any{"prompt": "p", "schema": schema}, nil)
		e, _ := decodeBody(t, res)["error"].(map[string]any)
		if msg, _ := e["message"].(string); !res.IsError || e["code"] != codeInvalidArgument || !strings.Contains(msg, want) {
			t.Errorf("got %s, want INVALID_ARGUMENT saying %q", resultText(t, res), want)
		}
	}
}

// TestAnswerErrorsSayWhere: what the correction run is told names the place in the answer and what is wrong there.
func TestAnswerErrorsSayWhere(t *testing.T) {
	t.Parallel()
	_, schema, err := callerSchema(bookSchema)
	if err != nil {
		t.Fatal(err)
	}
	var verr *jsonschema.ValidationError
	if err := schema.Validate(map[string]any{"title": "Dune", "year": "1965", "by": "Herbert"}); !errors.As(err, &verr) {
		t.Fatalf("got %v", err)
	}
	got := strings.Join(describeAnswer(verr), "; ")
	for _, want := range []string{"at /year: got string, want integer", "at /: additional properties 'by' not allowed"} {
		if !strings.Contains(got, want) {
			t.Errorf("got %q, want it to say %q", got, want)
		}
	}
}
