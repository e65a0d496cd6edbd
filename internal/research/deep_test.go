package research

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

// verifyAnswer is a verification round's answer as the agent gives it.
func verifyAnswer(t *testing.T, report string, checked, corrected int, gaps ...string) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{
		"success": true,
		"report":  report,
		"verification": map[string]any{
			"claims_checked": checked, "claims_corrected": corrected, "open_gaps": append([]string{}, gaps...),
		},
		"metadata": map[string]any{
			"sources_visited": []string{"https://example.com/verify-" + report}, "search_queries_used": []string{"check " + report},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return "```json\n" + string(b) + "\n```"
}

func TestDeepSearchStopsWhenNoGapsRemain(t *testing.T) {
	geminitest.Script(t,
		geminitest.Step{Scenario: "ok"},
		geminitest.Step{Scenario: "ok", Answer: verifyAnswer(t, "# Verified", 4, 1)},
	)
	e, fake, _ := newEngine(t, "script", Settings{MaxRounds: 3, MaxIterations: 10})
	var stages []string
	var drafts []Report
	rep, err := e.DeepSearch(context.Background(), DeepSearchRequest{Topic: "go 1.26 {draft}",
		Progress: func(s string) { stages = append(stages, s) }, Drafted: func(r Report) { drafts = append(drafts, r) }})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Report != "# Verified" || rep.Partial || rep.ParseWarning {
		t.Errorf("report = %+v, want round 2's verified report", rep)
	}
	if len(drafts) != 1 || !drafts[0].Partial || !strings.HasPrefix(drafts[0].Report, "[Draft: the report of round 1 of at most 3;") ||
		!strings.Contains(drafts[0].Report, "# Fake report") {
		t.Errorf("drafts %+v, want round 1's report as a draft, told once before verification", drafts)
	}
	m := rep.Metadata
	if m.Rounds != 2 || m.ClaimsVerified != 4 || m.ClaimsCorrected != 1 || m.Depth != DepthDetailed {
		t.Errorf("metadata = %+v, want 2 rounds, 4 verified, 1 corrected, detailed", m)
	}
	if !slices.Contains(m.SourcesVisited, geminitest.FakeURL) || !slices.Contains(m.SourcesVisited, "https://example.com/verify-# Verified") {
		t.Errorf("sources %v: want the union of both rounds", m.SourcesVisited)
	}
	calls := fake.Calls()
	if len(calls) != 2 {
		t.Fatalf("CLI ran %d times, want 2", len(calls))
	}
	verify := calls[1].Stdin
	for _, want := range []string{"verification round 2 of at most 3", "# Fake report", "Depth: detailed", "go 1.26 {draft}"} {
		if !strings.Contains(verify, want) {
			t.Errorf("verification prompt lacks %q", want)
		}
	}
	for _, want := range []string{"round 1/3: researching", "searching: " + geminitest.FakeQuery, "round 2/3: verifying"} {
		if !slices.Contains(stages, want) {
			t.Errorf("stages %q lack %q", stages, want)
		}
	}
}

func TestDeepSearchRoundsAreBounded(t *testing.T) {
	tests := []struct {
		name                 string
		maxRounds, maxIter   int
		wantRounds, wantRuns int
	}{
		{"DEEP_SEARCH_MAX_ROUNDS", 3, 10, 3, 3},
		{"capped by GEMINI_CLI_MAX_ITERATIONS", 5, 2, 2, 2},
		{"single round", 1, 10, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			geminitest.Script(t,
				geminitest.Step{Scenario: "ok"},
				geminitest.Step{Scenario: "ok", Answer: verifyAnswer(t, "# Still gaps", 2, 0, "pricing is unknown")},
			)
			e, fake, _ := newEngine(t, "script", Settings{MaxRounds: tt.maxRounds, MaxIterations: tt.maxIter})
			rep, err := e.DeepSearch(context.Background(), DeepSearchRequest{Topic: "t", Depth: DepthConcise})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Metadata.Rounds != tt.wantRounds || len(fake.Calls()) != tt.wantRuns {
				t.Errorf("rounds %d, runs %d; want %d and %d", rep.Metadata.Rounds, len(fake.Calls()), tt.wantRounds, tt.wantRuns)
			}
			if !strings.Contains(fake.Calls()[0].Stdin, "Depth: concise") {
				t.Error("the prompt does not ask for the concise depth")
			}
		})
	}
}

func TestDeepSearchLaterRoundTimeoutReturnsLastCompleteRound(t *testing.T) {
	geminitest.Script(t, geminitest.Step{Scenario: "ok"}, geminitest.Step{Scenario: "hang"})
	e, fake, _ := newEngineWithTimeout(t, "script", Settings{MaxRounds: 3}, testkit.FirstWordsLimit)
	rep, err := e.DeepSearch(context.Background(), DeepSearchRequest{Topic: "t"})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("[Partial response, timed out after %ds in verification round 2", int(testkit.FirstWordsLimit.Seconds()))
	if !rep.Partial || !strings.HasPrefix(rep.Report, want) ||
		!strings.Contains(rep.Report, "# Fake report") {
		t.Errorf("report = %q, partial %v: want round 1's report marked partial", rep.Report, rep.Partial)
	}
	if rep.Metadata.Rounds != 1 || len(fake.Calls()) != 2 {
		t.Errorf("rounds %d, runs %d; want 1 complete round of 2 runs", rep.Metadata.Rounds, len(fake.Calls()))
	}
}

func TestDeepSearchLaterRoundFailureKeepsTheDraft(t *testing.T) {
	geminitest.Script(t, geminitest.Step{Scenario: "ok"}, geminitest.Step{Scenario: "quota"})
	e, _, _ := newEngine(t, "script", Settings{MaxRounds: 3})
	rep, err := e.DeepSearch(context.Background(), DeepSearchRequest{Topic: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Partial || !strings.Contains(rep.Report, "verification round 2 failed (QUOTA_ERROR") ||
		!strings.Contains(rep.Report, "# Fake report") {
		t.Errorf("report = %q: want round 1's report with the reason round 2 failed", rep.Report)
	}
}

func TestSearchTimeoutReturnsPartialAnswer(t *testing.T) {
	e, _, _ := newEngineWithTimeout(t, "hang", Settings{}, testkit.FirstWordsLimit)
	rep, err := e.Search(context.Background(), SearchRequest{Query: "q"})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("[Partial response, timed out after %ds]\n\nPartial answer before the hang.", int(testkit.FirstWordsLimit.Seconds()))
	if !rep.Partial || rep.Report != want {
		t.Errorf("got %+v, want the partial answer with its prefix", rep)
	}
}

func TestSearchTimeoutWithNothingIsCLITimeout(t *testing.T) {
	t.Setenv(geminitest.EnvDelay, "1h")
	e, _, _ := newEngineWithTimeout(t, "slow", Settings{}, time.Second) // emits only init before it sleeps
	_, err := e.Search(context.Background(), SearchRequest{Query: "q"})
	var f *Failure
	if !errors.As(err, &f) || f.Code != "CLI_TIMEOUT" {
		t.Errorf("err = %v, want CLI_TIMEOUT", err)
	}
}

func TestModelFallbackOnQuota(t *testing.T) {
	geminitest.Script(t, geminitest.Step{Scenario: "quota"}, geminitest.Step{Scenario: "ok"})
	e, fake, logs := newEngine(t, "script", Settings{Model: "gemini-2.5-pro", FallbackModel: "gemini-2.5-flash"})
	rep, err := e.Search(context.Background(), SearchRequest{Query: "q"})
	if err != nil {
		t.Fatal(err)
	}
	calls := fake.Calls()
	if len(calls) != 2 || !hasArgs(calls[0].Args, "-m", "gemini-2.5-pro") || !hasArgs(calls[1].Args, "-m", "gemini-2.5-flash") {
		t.Fatalf("runs: %d, want the pro run then one flash run", len(calls))
	}
	m := rep.Metadata
	if m.Model != "gemini-2.5-flash" || m.FallbackFrom != "gemini-2.5-pro" ||
		!strings.HasSuffix(rep.Report, "*Researched with gemini-2.5-flash: gemini-2.5-pro ran out of quota.*") {
		t.Errorf("model %q, fallback_from %q, report %q", m.Model, m.FallbackFrom, rep.Report)
	}
	if !strings.Contains(logs.String(), "retrying with the fallback model") {
		t.Errorf("fallback not logged:\n%s", logs)
	}
}

func TestModelFallbackDisabled(t *testing.T) {
	e, fake, _ := newEngine(t, "quota", Settings{Model: "gemini-2.5-pro"})
	_, err := e.Search(context.Background(), SearchRequest{Query: "q"})
	var f *Failure
	if !errors.As(err, &f) || f.Code != "QUOTA_ERROR" || len(fake.Calls()) != 1 {
		t.Errorf("err = %v after %d runs, want QUOTA_ERROR after 1", err, len(fake.Calls()))
	}
}

func hasArgs(args []string, flag, value string) bool {
	i := slices.Index(args, flag)
	return i >= 0 && i+1 < len(args) && args[i+1] == value
}
