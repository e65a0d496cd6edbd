package research

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
)

// nameSchema stands for a caller's schema: an object with a string name.
const nameSchema = `{"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}`

func validName(v any) error {
	if m, ok := v.(map[string]any); !ok {
		return errors.New("not an object")
	} else if _, ok := m["name"].(string); !ok {
		return errors.New("at '/name': got number, want string")
	}
	return nil
}

// TestStructuredCorrectsOnce: an answer that does not fit the schema gets one correction run quoting what is
// wrong; the value that fits is the result, as JSON.
func TestStructuredCorrectsOnce(t *testing.T) {
	geminitest.Script(t,
		geminitest.Step{Scenario: geminitest.ScenarioPlain, Answer: "Here it is:\n```json\n{\"name\": 42}\n```"},
		geminitest.Step{Scenario: geminitest.ScenarioPlain, Answer: "```json\n{\"name\": \"forty-two\", \"n\": 42}\n```"})
	e, fake, _ := newEngine(t, geminitest.ScenarioScript, Settings{})
	rep, err := e.Structured(context.Background(), StructuredRequest{Prompt: "Name 42", Schema: nameSchema, Validate: validName})
	if err != nil || rep.Report != `{"n":42,"name":"forty-two"}` || rep.ParseWarning {
		t.Fatalf("got %+v, %v", rep, err)
	}
	calls := fake.Calls()
	if len(calls) != 2 || !strings.Contains(calls[0].Stdin, nameSchema) || !strings.Contains(calls[0].Stdin, "Name 42") ||
		!strings.Contains(calls[1].Stdin, "at '/name': got number, want string") || !strings.Contains(calls[1].Stdin, `{"name": 42}`) {
		t.Errorf("runs: %+v", calls)
	}
}

// TestStructuredGivesUp: an answer that still does not fit after its correction is SCHEMA_MISMATCH, saying why.
func TestStructuredGivesUp(t *testing.T) {
	geminitest.Script(t, geminitest.Step{Scenario: geminitest.ScenarioPlain, Answer: "no JSON at all"})
	e, fake, _ := newEngine(t, geminitest.ScenarioScript, Settings{})
	_, err := e.Structured(context.Background(), StructuredRequest{Prompt: "p", Schema: nameSchema, Validate: validName})
	var f *Failure
	if !errors.As(err, &f) || f.Code != backend.CodeSchemaMismatch || !strings.Contains(f.Details, "holds no JSON object") {
		t.Errorf("got %v", err)
	}
	if n := len(fake.Calls()); n != 2 {
		t.Errorf("%d runs, want the answer and one correction", n)
	}
}
