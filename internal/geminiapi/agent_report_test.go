package geminiapi

import (
	"encoding/json"
	"testing"

	m "google.golang.org/genai/interactions/models/interactions"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

// TestThoughtDeltas: what the agent thinks comes as the SDK's thought summaries, and as the thought deltas of the
// agent's public docs, which the SDK does not know: both are told.
func TestThoughtDeltas(t *testing.T) {
	var got []string
	w := &watcher{req: backend.AgentRequest{Events: func(ev backend.Event) {
		if ev.Kind == backend.EventThought {
			got = append(got, ev.Text)
		}
	}}, run: &backend.AgentRun{}}
	for _, raw := range []string{
		`{"type":"thought_summary","content":{"type":"text","text":"Summarising."}}`,
		`{"type":"thought","text":"Thinking aloud."}`,
		`{"type":"something_new","text":"not a thought"}`,
	} {
		var d m.StepDeltaData
		if err := json.Unmarshal([]byte(raw), &d); err != nil {
			t.Fatal(err)
		}
		w.delta(d)
	}
	if len(got) != 2 || got[0] != "Summarising." || got[1] != "Thinking aloud." {
		t.Errorf("thoughts told: %q", got)
	}
}
