package research

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

// slowCorrections makes the research run answer at once without valid JSON, and every JSON correction take
// a second and fail too: twenty corrections would take twice testkit.FirstWordsLimit, the call's time limit in
// these tests. (None starts with less than minRunLeft to go.)
func slowCorrections(t *testing.T) {
	t.Setenv(geminitest.EnvDelay, "1s")
	geminitest.Script(t, geminitest.Step{Scenario: geminitest.ScenarioInvalid},
		geminitest.Step{Scenario: geminitest.ScenarioSlow, Answer: geminitest.InvalidAnswer})
}

// A search's JSON corrections share its GEMINI_SEARCH_TIMEOUT: they stop when it runs out, and the search answers
// with what it has, instead of running every correction with a time limit of its own.
func TestCorrectionsShareTheSearchDeadline(t *testing.T) {
	slowCorrections(t)
	e, fake, _ := newEngineWithTimeout(t, geminitest.ScenarioScript,
		Settings{SearchTimeout: testkit.FirstWordsLimit, JSONMaxRetries: 20}, time.Hour)
	rep, err := e.Search(context.Background(), SearchRequest{Query: "q"})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.ParseWarning || rep.Report != geminitest.InvalidAnswer {
		t.Errorf("got %+v, want the research answer as it is", rep)
	}
	if runs := len(fake.Calls()); runs >= 1+20 || rep.Metadata.JSONCorrections >= 20 {
		t.Errorf("%d runs, %d corrections: want the corrections stopped by the deadline", runs, rep.Metadata.JSONCorrections)
	}
}

// deep_search's rounds share GEMINI_DEEP_SEARCH_TIMEOUT: when it runs out before a verification round, the last
// complete round's report comes back marked partial, with the limit and the variable that sets it.
func TestDeepSearchRoundsShareTheDeadline(t *testing.T) {
	slowCorrections(t)
	e, _, _ := newEngineWithTimeout(t, geminitest.ScenarioScript,
		Settings{DeepSearchTimeout: testkit.FirstWordsLimit, JSONMaxRetries: 20, MaxRounds: 3}, time.Hour)
	rep, err := e.DeepSearch(context.Background(), DeepSearchRequest{Topic: "t"})
	if err != nil {
		t.Fatal(err)
	}
	want := "[Partial response: the time limit of " + testkit.FirstWordsLimit.String() +
		" (GEMINI_DEEP_SEARCH_TIMEOUT) ran out before verification round 2. This is the report of round 1.]"
	if !rep.Partial || !strings.HasPrefix(rep.Report, want) || rep.Metadata.Rounds != 1 {
		t.Errorf("got %+v, want round 1's report cut short by the deadline", rep)
	}
}

// The wait for a queue slot counts against the call's deadline too, even with no GEMINI_QUEUE_TIMEOUT.
func TestQueueWaitSharesTheDeadline(t *testing.T) {
	q := NewQueue(1)
	release, err := q.Acquire(context.Background(), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	e, fake, _ := newEngineWithTimeout(t, geminitest.ScenarioOK, Settings{Queue: q, SearchTimeout: 200 * time.Millisecond},
		time.Hour)
	_, err = e.Search(context.Background(), SearchRequest{Query: "q"})
	var f *Failure
	if !errors.As(err, &f) || f.Code != backend.CodeQueueTimeout || !strings.Contains(f.Message, "time limit of 200ms (GEMINI_SEARCH_TIMEOUT)") ||
		!strings.Contains(f.Details, "GEMINI_SEARCH_TIMEOUT") {
		t.Errorf("err = %+v, want QUEUE_TIMEOUT naming the search's time limit", err)
	}
	if len(fake.Calls()) != 0 {
		t.Error("the CLI ran after the search's time ran out")
	}
}
