package research

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/logging"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
	"github.com/gemini-search-mcp/gemini-search-mcp/prompts"
)

func TestMain(m *testing.M) {
	geminitest.Main()
	os.Exit(m.Run())
}

func newEngine(t *testing.T, scenario string, s Settings) (*Engine, *geminitest.Fake, *testkit.SyncBuffer) {
	t.Helper()
	return newEngineWithTimeout(t, scenario, s, 30*time.Second)
}

func newEngineWithTimeout(t *testing.T, scenario string, s Settings, timeout time.Duration) (*Engine, *geminitest.Fake, *testkit.SyncBuffer) {
	t.Helper()
	fake := geminitest.New(t, scenario)
	runner := gemini.NewRunner(gemini.Config{
		Command: fake.Command(), Dir: t.TempDir(), Timeout: timeout, KillGrace: 300 * time.Millisecond,
	})
	logs := &testkit.SyncBuffer{}
	e, err := New(runner, s, logging.New(logs, false))
	if err != nil {
		t.Fatal(err)
	}
	return e, fake, logs
}

func TestSearchParsesTheAgentsReport(t *testing.T) {
	tests := []struct {
		scenario  string
		wantCalls int
	}{
		{"ok", 1},
		{"prose", 1},
		{"plain", 1},
		{"invalid-then-valid", 2},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			e, fake, _ := newEngine(t, tt.scenario, Settings{JSONMaxRetries: 3})
			rep, err := e.Search(context.Background(), SearchRequest{Query: "rust 2024"})
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Success || rep.ParseWarning || !strings.HasPrefix(rep.Report, "# Fake report") {
				t.Errorf("got %+v, want the fake's report without parse warning", rep)
			}
			calls := fake.Calls()
			if len(calls) != tt.wantCalls {
				t.Fatalf("CLI ran %d times, want %d", len(calls), tt.wantCalls)
			}
			for _, c := range calls[1:] { // corrections, not reruns of the research
				if !strings.Contains(c.Stdin, "You convert text into JSON") || !strings.Contains(c.Stdin, geminitest.InvalidAnswer) {
					t.Errorf("call after the research is not a correction of its answer:\n%s", c.Stdin)
				}
			}
		})
	}
}

func TestSearchReturnsRawTextAfterCorrections(t *testing.T) {
	e, fake, logs := newEngine(t, "invalid", Settings{JSONMaxRetries: 2, CorrectionModel: "gemini-2.5-flash-lite"})
	rep, err := e.Search(context.Background(), SearchRequest{Query: "q"})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.ParseWarning || rep.Report != geminitest.InvalidAnswer || rep.Metadata.JSONCorrections != 2 {
		t.Errorf("got %+v, want the raw research answer with parse_warning after 2 corrections", rep)
	}
	calls := fake.Calls()
	if len(calls) != 3 {
		t.Fatalf("CLI ran %d times, want the research + JSON_MAX_RETRIES = 2 corrections", len(calls))
	}
	if slices.Contains(calls[0].Args, "gemini-2.5-flash-lite") || !slices.Contains(calls[1].Args, "gemini-2.5-flash-lite") {
		t.Errorf("args %v / %v: want GEMINI_CORRECTION_MODEL on corrections only", calls[0].Args, calls[1].Args)
	}
	for _, want := range []string{"main search answer is not valid JSON", "JSON correction failed"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
}

func TestSearchMetadata(t *testing.T) {
	e, fake, _ := newEngine(t, "ok", Settings{Model: "gemini-2.5-flash", MaxIterations: 4})
	rep, err := e.Search(context.Background(), SearchRequest{Query: "what about {depth} and {topic}?"})
	if err != nil {
		t.Fatal(err)
	}
	m := rep.Metadata
	if m.Model != "gemini-2.5-flash" || m.Topic != "what about {depth} and {topic}?" {
		t.Errorf("metadata = %+v", m)
	}
	if _, err := time.Parse(time.RFC3339, m.Timestamp); err != nil {
		t.Errorf("timestamp %q is not RFC 3339", m.Timestamp)
	}
	if len(m.SourcesVisited) == 0 || len(m.SearchQueriesUsed) == 0 || m.Iterations < 1 {
		t.Errorf("metadata lacks sources, queries or iterations: %+v", m)
	}
	prompt := fake.Calls()[0].Stdin
	if !strings.Contains(prompt, "what about {depth} and {topic}?") || !strings.Contains(prompt, "at most 4 search") {
		t.Errorf("prompt does not carry the literal query and the budget:\n%s", prompt)
	}
}

func TestSearchModelSelection(t *testing.T) {
	tests := []struct {
		name       string
		configured string
		requested  string
		wantFlag   bool
		wantModel  string
	}{
		{"auto-select", "", "", false, "gemini-2.5-flash"}, // the fake's init event reports this model
		{"configured", "gemini-2.5-pro", "", true, "gemini-2.5-pro"},
		{"per call", "gemini-2.5-pro", "gemini-2.5-flash-lite", true, "gemini-2.5-flash-lite"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, fake, _ := newEngine(t, "ok", Settings{Model: tt.configured})
			rep, err := e.Search(context.Background(), SearchRequest{Query: "q", Model: tt.requested})
			if err != nil {
				t.Fatal(err)
			}
			args := fake.Calls()[0].Args
			if hasM := slices.Index(args, "-m") >= 0; hasM != tt.wantFlag {
				t.Errorf("args %v: -m present = %v, want %v", args, hasM, tt.wantFlag)
			}
			if rep.Metadata.Model != tt.wantModel {
				t.Errorf("metadata.model = %q, want %q", rep.Metadata.Model, tt.wantModel)
			}
		})
	}
}

func TestReportedModel(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ requested, cli, want string }{
		{"m1", "m2", "m1"}, {"", "m2", "m2"}, {"", "auto", "auto-detected"}, {"", "", "auto-detected"},
	} {
		if got := reportedModel(tt.requested, tt.cli); got != tt.want {
			t.Errorf("reportedModel(%q, %q) = %q, want %q", tt.requested, tt.cli, got, tt.want)
		}
	}
}

func TestSystemPromptReplacesTemplate(t *testing.T) {
	e, fake, _ := newEngine(t, "ok", Settings{Prompts: map[string]string{prompts.Research: "CUSTOM {topic} / {depth} / {model}"}})
	if _, err := e.Search(context.Background(), SearchRequest{Query: "x"}); err != nil {
		t.Fatal(err)
	}
	if got := fake.Calls()[0].Stdin; got != "\nCUSTOM x / concise / auto" { // after the newline every CLI run starts with
		t.Errorf("prompt = %q, want the custom template filled in", got)
	}
}

// TestPromptDateIsUTC: the agent is told the UTC date, whatever the server's time zone: late evening in New York
// is already the next day.
func TestPromptDateIsUTC(t *testing.T) {
	e, fake, _ := newEngine(t, "ok", Settings{Prompts: map[string]string{prompts.Research: "{topic} on {date}"}})
	e.now = func() time.Time { return time.Date(2026, 1, 1, 21, 30, 0, 0, time.FixedZone("EST", -5*3600)) }
	if _, err := e.Search(context.Background(), SearchRequest{Query: "x"}); err != nil {
		t.Fatal(err)
	}
	if got := fake.Calls()[0].Stdin; got != "\nx on 2026-01-02" {
		t.Errorf("prompt = %q, want the UTC date", got)
	}
}

func TestSearchFailures(t *testing.T) {
	tests := []struct{ scenario, code string }{
		{"quota", "QUOTA_ERROR"},
		{"auth401", "AUTH_ERROR"},
		{"empty", "EMPTY_RESPONSE"},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			e, fake, logs := newEngine(t, tt.scenario, Settings{JSONMaxRetries: 3})
			_, err := e.Search(context.Background(), SearchRequest{Query: "q"})
			var f *Failure
			if !errors.As(err, &f) || string(f.Code) != tt.code || f.Message == "" {
				t.Fatalf("err = %v, want a *Failure with code %s", err, tt.code)
			}
			if n := len(fake.Calls()); n != 1 {
				t.Errorf("CLI ran %d times, want 1: only a JSON slip is retried", n)
			}
			if !strings.Contains(logs.String(), "[ERROR] main search failed code="+tt.code) {
				t.Errorf("failure not logged:\n%s", logs)
			}
		})
	}
}

func TestProgressIsLogged(t *testing.T) {
	t.Setenv("FAKE_GEMINI_DELAY", "600ms")
	e, _, logs := newEngine(t, "slow", Settings{ProgressLogInterval: 100 * time.Millisecond})
	if _, err := e.Search(context.Background(), SearchRequest{Query: "progress topic"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), `[INFO] Research in progress... (elapsed: 0s, topic: "progress topic")`) {
		t.Errorf("no progress line:\n%s", logs)
	}
}

func TestCancelledSearchReturnsContextError(t *testing.T) {
	e, fake, _ := newEngine(t, "hang", Settings{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for len(fake.Calls()) == 0 {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	if _, err := e.Search(ctx, SearchRequest{Query: "q"}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}
