package research

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
)

// TestAskAnswersInTheAgentsOwnWords: ask's answer is the agent's text as it is (no JSON expected, no correction
// run, no parse warning), from the ask prompt with the request and the UTC date in it; a folder reaches the CLI.
func TestAskAnswersInTheAgentsOwnWords(t *testing.T) {
	e, fake, _ := newEngine(t, geminitest.ScenarioPlain, Settings{JSONMaxRetries: 3})
	dir := t.TempDir()
	// An @path inside the folder reaches the CLI as its absolute path (gemini's guardPrompt).
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := e.Ask(context.Background(), AskRequest{Prompt: "Explain @main.go {topic}", Model: "m1", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Success || rep.ParseWarning || rep.Report != geminitest.DefaultAnswer || rep.Metadata.Model != "m1" ||
		rep.Metadata.Topic != "Explain @main.go {topic}" {
		t.Errorf("got %+v", rep)
	}
	calls := fake.Calls()
	if len(calls) != 1 {
		t.Fatalf("%d CLI runs, want 1: a free answer needs no correction", len(calls))
	}
	if !slices.Equal(calls[0].Args, []string{"-o", "stream-json", "-m", "m1", "--include-directories", dir,
		"--allowed-mcp-server-names", "gemini-search-mcp-none", "-e", "none"}) { // no MCP server: no Firecrawl configured
		t.Errorf("args %q", calls[0].Args)
	}
	today := time.Now().UTC().Format("2006-01-02")
	if p := calls[0].Stdin; !strings.Contains(p, "<request>\nExplain @"+filepath.Join(realDir, "main.go")+" {topic}\n</request>") ||
		!strings.Contains(p, "Today is "+today+" (UTC)") {
		t.Errorf("prompt:\n%s", p)
	}

	// The same request again comes from the cache when there is one; fresh asks again.
	e.settings.Cache = NewCache(time.Minute)
	for _, fresh := range []bool{false, false, true} {
		if _, err := e.Ask(context.Background(), AskRequest{Prompt: "Same?", Fresh: fresh}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(fake.Calls()); n != 3 {
		t.Errorf("%d CLI runs, want 3: the repeat from the cache, fresh asked again", n)
	}
}

// TestAskHasItsOwnTimeout: GEMINI_ASK_TIMEOUT, not the search timeout (an hour here), bounds an ask. What the agent
// wrote by then comes back, marked partial; when it had written nothing yet (a slow start under load), the failure
// names the limit and its variable.
func TestAskHasItsOwnTimeout(t *testing.T) {
	e, _, _ := newEngineWithTimeout(t, geminitest.ScenarioHang, Settings{AskTimeout: time.Second}, time.Hour)
	rep, err := e.Ask(context.Background(), AskRequest{Prompt: "never ends"})
	var f *Failure
	switch {
	case err == nil:
		if !rep.Partial || !strings.HasPrefix(rep.Report, "[Partial response, timed out after 1s]") {
			t.Errorf("got %+v, want the partial answer cut after 1s", rep)
		}
	case errors.As(err, &f):
		if f.Code != "CLI_TIMEOUT" || f.Message != "Research exceeded the timeout of 1s." || !strings.Contains(f.Details, "GEMINI_ASK_TIMEOUT") {
			t.Errorf("got %+v, want CLI_TIMEOUT after 1s naming GEMINI_ASK_TIMEOUT", f)
		}
	default:
		t.Fatal(err)
	}
}

// TestAskStreamsItsAnswer: OnText gets the answer as the agent writes it, in pieces that add up to it; such a
// request runs on its own, even with a cached answer at hand.
func TestAskStreamsItsAnswer(t *testing.T) {
	e, fake, _ := newEngine(t, geminitest.ScenarioOK, Settings{Cache: NewCache(time.Minute)})
	if _, err := e.Ask(context.Background(), AskRequest{Prompt: "p"}); err != nil {
		t.Fatal(err)
	}
	var pieces []string
	rep, err := e.Ask(context.Background(), AskRequest{Prompt: "p", OnText: func(s string) { pieces = append(pieces, s) }})
	if err != nil || rep.Metadata.Cached {
		t.Fatalf("got %+v, %v; want a run of its own", rep.Metadata, err)
	}
	if len(pieces) < 2 || strings.Join(pieces, "") != geminitest.DefaultAnswer || len(fake.Calls()) != 2 {
		t.Errorf("streamed %q in %d runs", pieces, len(fake.Calls()))
	}
}
