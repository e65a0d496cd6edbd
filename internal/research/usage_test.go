package research

import (
	"context"
	"testing"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
)

// TestUsageOnTheCLI: a report's metadata.usage is what the Gemini CLI's result said it used, summed over the
// rounds, with the searches its agent ran.
func TestUsageOnTheCLI(t *testing.T) {
	geminitest.Script(t,
		geminitest.Step{Scenario: geminitest.ScenarioOK},
		geminitest.Step{Scenario: geminitest.ScenarioOK, Answer: verifyAnswer(t, "# Verified", 2, 0)},
	)
	e, _, _ := newEngine(t, geminitest.ScenarioScript, Settings{MaxRounds: 2})
	rep, err := e.DeepSearch(context.Background(), DeepSearchRequest{Topic: "usage"})
	if err != nil {
		t.Fatal(err)
	}
	// The fake CLI's result says 24 + 14 = 38 tokens a run.
	if u := rep.Metadata.Usage; u == nil || u.TotalTokens != 76 || u.InputTokens != 48 || u.OutputTokens != 28 || u.Searches == 0 {
		t.Errorf("usage %+v, want both rounds' tokens and their searches", u)
	}
}
