package argcheck

import (
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// A keyword that sentence does not put in words is still checked, and reported in the library's words.
func TestUnwordedKeywordIsStillChecked(t *testing.T) {
	t.Parallel()
	tool := mcp.NewTool("pairs", mcp.WithNumber("n", mcp.MultipleOf(2)))
	if err := ForTool(tool).Check([]byte(`{"n": 3}`)); err == nil || !strings.Contains(err.Error(), "multipleOf") {
		t.Errorf("got %v, want an error naming multipleOf", err)
	}
}

// TestAnswerErrorsSayWhere: what the correction run is told names the place in the answer and what is wrong there.
func TestAnswerErrorsSayWhere(t *testing.T) {
	t.Parallel()
	book := `{"type": "object", "required": ["title", "year"], "additionalProperties": false,
		"properties": {"title": {"type": "string"}, "year": {"type": "integer"}}}`
	_, validate, err := CallerSchema([]byte(book))
	if err != nil {
		t.Fatal(err)
	}
	err = validate(map[string]any{"title": "Dune", "year": "1965", "by": "Herbert"})
	for _, want := range []string{"at /year: got string, want integer", "at /: additional properties 'by' not allowed"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want it to say %q", err, want)
		}
	}
}
