package gemini_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

func TestMain(m *testing.M) {
	geminitest.Main()
	if os.Getenv(envDocumentsServer) != "" {
		os.Exit(serveDocuments())
	}
	os.Exit(m.Run())
}

// testGrace is the SIGTERM → SIGKILL grace in tests.
const testGrace = 300 * time.Millisecond

// newRunner returns a runner for fake that passes the fake's variables
// through ExtraEnv, so tests can run in parallel.
func newRunner(t *testing.T, fake *geminitest.Fake, change func(*gemini.Config)) *gemini.Runner {
	t.Helper()
	cfg := gemini.Config{
		Command:   fake.Command(),
		Dir:       t.TempDir(),
		ExtraEnv:  fake.Env(),
		Timeout:   time.Minute,
		KillGrace: testGrace,
	}
	if change != nil {
		change(&cfg)
	}
	return gemini.NewRunner(cfg)
}

func run(t *testing.T, r *gemini.Runner, req backend.Request) (backend.Result, error) {
	t.Helper()
	if req.Prompt == "" {
		req.Prompt = "Research the fake topic."
	}
	return r.Run(t.Context(), req)
}

// asError returns err as a *backend.Error, failing the test if it is not one.
func asError(t *testing.T, err error) *backend.Error {
	t.Helper()
	var e *backend.Error
	if !errors.As(err, &e) {
		t.Fatalf("got error %v (%T), want a *backend.Error", err, err)
	}
	return e
}

func TestRunScenarios(t *testing.T) {
	t.Parallel()
	tests := []struct {
		scenario string
		env      []string
		code     backend.Code // "" for success
		exitCode int
		check    func(t *testing.T, res backend.Result, e *backend.Error)
	}{
		{scenario: geminitest.ScenarioOK, check: func(t *testing.T, res backend.Result, _ *backend.Error) {
			want := backend.Result{Text: geminitest.DefaultAnswer, Model: geminitest.DefaultModel,
				Queries: []string{geminitest.FakeQuery}, URLs: []string{geminitest.FakeURL}, Streamed: true}
			if res.Text != want.Text || res.Model != want.Model || !slices.Equal(res.Queries, want.Queries) ||
				!slices.Equal(res.URLs, want.URLs) || !res.Streamed || res.Truncated || res.Duration <= 0 {
				t.Errorf("got %+v, want %+v", res, want)
			}
		}},
		{scenario: geminitest.ScenarioProse, check: func(t *testing.T, res backend.Result, _ *backend.Error) {
			if !strings.Contains(res.Text, geminitest.DefaultJSON) || strings.HasPrefix(res.Text, "{") || strings.Contains(res.Text, "```") {
				t.Errorf("got %q, want prose around the unfenced JSON object", res.Text)
			}
		}},
		{scenario: geminitest.ScenarioProse, env: []string{geminitest.EnvAnswer + `={"success":false}`}, check: func(t *testing.T, res backend.Result, _ *backend.Error) {
			if !strings.Contains(res.Text, "\n\n{\"success\":false}\n\n") {
				t.Errorf("got %q, want prose around the object from %s", res.Text, geminitest.EnvAnswer)
			}
		}},
		{scenario: geminitest.ScenarioInvalid, check: func(t *testing.T, res backend.Result, _ *backend.Error) {
			if res.Text != geminitest.InvalidAnswer {
				t.Errorf("got %q, want %q", res.Text, geminitest.InvalidAnswer)
			}
		}},
		{scenario: geminitest.ScenarioPlain, check: func(t *testing.T, res backend.Result, _ *backend.Error) {
			if res.Text != geminitest.DefaultAnswer || res.Streamed || res.Model != "" {
				t.Errorf("got %+v, want the default answer as plain text", res)
			}
		}},
		{scenario: geminitest.ScenarioSlow, env: []string{geminitest.EnvDelay + "=10ms"}, check: func(t *testing.T, res backend.Result, _ *backend.Error) {
			if res.Text != geminitest.DefaultAnswer {
				t.Errorf("got %q, want the default answer", res.Text)
			}
		}},
		{scenario: geminitest.ScenarioOK, env: []string{geminitest.EnvAnswer + "=Just this.", geminitest.EnvModel + "=gemini-test"},
			check: func(t *testing.T, res backend.Result, _ *backend.Error) {
				if res.Text != "Just this." || res.Model != "gemini-test" {
					t.Errorf("got text %q model %q, want the answer and model from the environment", res.Text, res.Model)
				}
			}},
		{scenario: geminitest.ScenarioQuota, code: backend.CodeQuota, exitCode: 173, check: func(t *testing.T, _ backend.Result, e *backend.Error) {
			if !strings.Contains(e.Message, "daily quota") || !strings.Contains(e.Hint, "GEMINI_FALLBACK_MODEL") {
				t.Errorf("got %q / %q, want a daily quota message and a model hint", e.Message, e.Hint)
			}
			if !strings.Contains(e.Detail, "Attempt 1 failed with status 429") || !strings.Contains(e.Detail, "exhausted your daily quota") {
				t.Errorf("got detail %q, want the retry line and the result error", e.Detail)
			}
		}},
		{scenario: geminitest.ScenarioAuth, code: backend.CodeAuth, exitCode: 41, check: func(t *testing.T, _ backend.Result, e *backend.Error) {
			if e.Detail != "Invalid auth method selected." || !strings.Contains(e.Hint, "GEMINI_API_KEY") {
				t.Errorf("got detail %q hint %q, want the auth line alone and a login hint", e.Detail, e.Hint)
			}
		}},
		{scenario: geminitest.ScenarioAuth401, code: backend.CodeAuth, exitCode: 145, check: func(t *testing.T, _ backend.Result, e *backend.Error) {
			if !strings.Contains(e.Message, "401") || !strings.Contains(e.Detail, "API key not valid") {
				t.Errorf("got %q / %q, want a 401 message and the API error in the detail", e.Message, e.Detail)
			}
		}},
		{scenario: geminitest.ScenarioUntrusted, code: backend.CodeUntrusted, exitCode: 55},
		{scenario: geminitest.ScenarioEmpty, code: backend.CodeEmpty, exitCode: 0, check: func(t *testing.T, _ backend.Result, e *backend.Error) {
			if !strings.Contains(e.Detail, "empty response") {
				t.Errorf("got detail %q, want the error event", e.Detail)
			}
		}},
		{scenario: geminitest.ScenarioCrash, code: backend.CodeCLI, exitCode: 1, check: func(t *testing.T, res backend.Result, e *backend.Error) {
			if e.Message != "Gemini CLI exited with code 1." {
				t.Errorf("got message %q, want it to name the exit code", e.Message)
			}
			if !strings.Contains(e.Detail, "TypeError") || strings.Contains(e.Detail, "256-color") || strings.Contains(e.Detail, "[STARTUP]") {
				t.Errorf("got detail %q, want the stack trace without the noise", e.Detail)
			}
			if res.Text != "Partial text before the crash." || e.Partial.Model != geminitest.DefaultModel {
				t.Errorf("got partial %+v, want the text and model before the crash", e.Partial)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			t.Parallel()
			fake := geminitest.NewLocal(t, tt.scenario)
			r := newRunner(t, fake, func(c *gemini.Config) { c.ExtraEnv = append(c.ExtraEnv, tt.env...) })
			res, err := run(t, r, backend.Request{})
			var e *backend.Error
			if tt.code == "" {
				if err != nil {
					t.Fatalf("got error %v, want success", err)
				}
			} else {
				e = asError(t, err)
				if e.Code != tt.code || e.ExitCode != tt.exitCode {
					t.Fatalf("got %s exit %d (%s; detail %q), want %s exit %d", e.Code, e.ExitCode, e.Message, e.Detail, tt.code, tt.exitCode)
				}
				if e.Message == "" || e.Hint == "" {
					t.Errorf("got message %q hint %q, want both", e.Message, e.Hint)
				}
				if e.Partial.Text != res.Text || e.Partial.Model != res.Model {
					t.Errorf("got partial %+v, want the returned result %+v", e.Partial, res)
				}
			}
			if tt.check != nil {
				tt.check(t, res, e)
			}
			if n := len(fake.Calls()); n != 1 {
				t.Errorf("got %d calls, want 1", n)
			}
		})
	}
}

func TestRunArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		args      []string
		model     string
		wantArgs  []string
		wantModel string
	}{
		{"no model", nil, "", []string{"-o", "stream-json"}, geminitest.DefaultModel},
		{"model", nil, "gemini-2.5-pro", []string{"-o", "stream-json", "-m", "gemini-2.5-pro"}, "gemini-2.5-pro"},
		{"command args first", []string{"-y", "@google/gemini-cli"}, "m1", []string{"-y", "@google/gemini-cli", "-o", "stream-json", "-m", "m1"}, "m1"},
	}
	noMCP := []string{"--allowed-mcp-server-names", "gemini-search-mcp-none", "-e", "none"} // TestOnlyFirecrawlsMCPServerStarts
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
			r := newRunner(t, fake, func(c *gemini.Config) { c.Command.Args = tt.args })
			res, err := run(t, r, backend.Request{Model: tt.model})
			if err != nil {
				t.Fatal(err)
			}
			calls := fake.Calls()
			if want := slices.Concat(tt.wantArgs, noMCP); len(calls) != 1 || !slices.Equal(calls[0].Args, want) {
				t.Fatalf("got calls %+v, want one with args %q", calls, want)
			}
			if res.Model != tt.wantModel {
				t.Errorf("got model %q, want %q", res.Model, tt.wantModel)
			}
		})
	}
}

func TestRunStdinAndDir(t *testing.T) {
	t.Parallel()
	fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
	dir := t.TempDir()
	r := newRunner(t, fake, func(c *gemini.Config) { c.Dir = dir })
	prompt := "Research: «ünïcode» and\nnewlines\n\n" + strings.Repeat("long prompt ", 100_000) // > 1 MiB, more than a pipe holds
	if _, err := run(t, r, backend.Request{Prompt: prompt}); err != nil {
		t.Fatal(err)
	}
	calls := fake.Calls()
	if len(calls) != 1 || calls[0].Stdin != "\n"+prompt { // the prelude every run starts with
		t.Fatalf("got %d calls, want one whose stdin is a newline and the prompt", len(calls))
	}
	got, _ := filepath.EvalSymlinks(calls[0].Dir)
	want, _ := filepath.EvalSymlinks(dir)
	if got != want {
		t.Errorf("got cwd %q, want %q", got, want)
	}
}

// TestRunOwnTimeout: a request's own time limit replaces the runner's, and the advice names its variable.
func TestRunOwnTimeout(t *testing.T) {
	t.Parallel()
	fake := geminitest.NewLocal(t, geminitest.ScenarioHang)
	r := newRunner(t, fake, nil) // a minute
	_, err := run(t, r, backend.Request{Timeout: 500 * time.Millisecond, TimeoutVar: "GEMINI_ASK_TIMEOUT"})
	e := asError(t, err)
	if e.Code != backend.CodeTimeout || e.Message != "Research exceeded the timeout of 500ms." ||
		!strings.Contains(e.Hint, "GEMINI_ASK_TIMEOUT") {
		t.Errorf("got %s %q %q, want CLI_TIMEOUT after 500ms naming GEMINI_ASK_TIMEOUT", e.Code, e.Message, e.Hint)
	}
}

func TestRunOnEvent(t *testing.T) {
	t.Parallel()
	fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
	var events []backend.Event
	if _, err := run(t, newRunner(t, fake, nil), backend.Request{OnEvent: func(e backend.Event) { events = append(events, e) }}); err != nil {
		t.Fatal(err)
	}
	want := []backend.Event{
		{Kind: backend.EventSearch, Tool: "google_web_search", Query: geminitest.FakeQuery},
		{Kind: backend.EventFetch, Tool: "web_fetch", URL: geminitest.FakeURL},
	}
	var text strings.Builder
	steps := slices.DeleteFunc(events, func(e backend.Event) bool {
		text.WriteString(e.Text)
		return e.Kind == backend.EventText
	})
	if !slices.Equal(steps, want) {
		t.Errorf("got %+v, want %+v", steps, want)
	}
	// The answer as it was written, in the CLI's deltas: they add up to the answer.
	if got := text.String(); got != geminitest.DefaultAnswer || len(events) < len(want)+2 {
		t.Errorf("text events add up to %q in %d events, want the answer in several", got, len(events)-len(want))
	}
}

// TestRunEnvironment runs with variables set in the parent's own environment,
// so it cannot be parallel.
func TestRunEnvironment(t *testing.T) {
	parentTmp := t.TempDir()
	t.Setenv("TMPDIR", parentTmp)
	for _, k := range []string{"HTTP_STREAMABLE_SERVER", "SSE_LOCAL", "CLOUD_SERVICE"} {
		t.Setenv(k, "true")
	}
	t.Setenv("PORT", "3000")
	t.Setenv("GEMINI_CLI_TRUST_WORKSPACE", "false")
	fake := geminitest.New(t, geminitest.ScenarioOK) // through the inherited environment
	r := gemini.NewRunner(gemini.Config{
		Command:   fake.Command(),
		ExtraEnv:  []string{"FIRECRAWL_API_KEY=fc-test-key", "FIRECRAWL_API_URL=http://127.0.0.1:3002", "PORT=8080"},
		KillGrace: testGrace,
	})
	if _, err := run(t, r, backend.Request{}); err != nil {
		t.Fatal(err)
	}
	calls := fake.Calls()
	if len(calls) != 1 {
		t.Fatalf("got %d calls, want 1", len(calls))
	}
	env := calls[0].Env
	for _, k := range []string{"HTTP_STREAMABLE_SERVER", "SSE_LOCAL", "CLOUD_SERVICE", "PORT"} {
		if v, ok := env[k]; ok {
			t.Errorf("got %s=%q in the CLI's environment, want it removed", k, v)
		}
	}
	for k, want := range map[string]string{
		"GEMINI_CLI_TRUST_WORKSPACE": "true",
		"GEMINI_CLI_NO_RELAUNCH":     "true",
		"FIRECRAWL_API_KEY":          "fc-test-key",
		"FIRECRAWL_API_URL":          "http://127.0.0.1:3002",
	} {
		if env[k] != want {
			t.Errorf("got %s=%q, want %q", k, env[k], want)
		}
	}
	tmp := env["TMPDIR"]
	if filepath.Dir(tmp) != parentTmp {
		t.Errorf("got TMPDIR %q, want a private folder inside %q", tmp, parentTmp)
	}
	if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("private TMPDIR %q still there after the run (stat: %v)", tmp, err)
	}
}

func TestRunRemovesTmpDir(t *testing.T) {
	t.Parallel()
	for _, scenario := range []string{geminitest.ScenarioOK, geminitest.ScenarioQuota, geminitest.ScenarioCrash} {
		t.Run(scenario, func(t *testing.T) {
			t.Parallel()
			fake := geminitest.NewLocal(t, scenario)
			_, _ = run(t, newRunner(t, fake, nil), backend.Request{})
			calls := fake.Calls()
			if len(calls) != 1 || calls[0].Env["TMPDIR"] == "" {
				t.Fatalf("got calls %+v, want one with a TMPDIR", calls)
			}
			if _, err := os.Stat(calls[0].Env["TMPDIR"]); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("private TMPDIR still there after the run (stat: %v)", err)
			}
		})
	}
}

// waitGone fails the test unless every process of the fake's runs goes.
func waitGone(t *testing.T, fake *geminitest.Fake) {
	t.Helper()
	testkit.WaitFor(t, "no process of the run left", func() bool { return len(fake.LivePIDs()) == 0 })
}

func TestRunTimeoutKillsGroup(t *testing.T) {
	t.Parallel()
	fake := geminitest.NewLocal(t, geminitest.ScenarioHang)
	r := newRunner(t, fake, func(c *gemini.Config) { c.Timeout = testkit.FirstWordsLimit })
	res, err := run(t, r, backend.Request{})

	e := asError(t, err)
	if e.Code != backend.CodeTimeout || e.Message != "Research exceeded the timeout of "+testkit.FirstWordsLimit.String()+"." ||
		!strings.Contains(e.Hint, "GEMINI_SEARCH_TIMEOUT") {
		t.Errorf("got %s %q hint %q, want a timeout naming the limit and GEMINI_SEARCH_TIMEOUT", e.Code, e.Message, e.Hint)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want it to wrap context.DeadlineExceeded", err)
	}
	want := backend.Result{Text: "Partial answer before the hang.", Model: geminitest.DefaultModel, Queries: []string{geminitest.FakeQuery}}
	if p := e.Partial; p.Text != want.Text || p.Model != want.Model || !slices.Equal(p.Queries, want.Queries) || !p.Streamed {
		t.Errorf("got partial %+v, want %+v", p, want)
	}
	if res.Text != want.Text {
		t.Errorf("got result text %q, want the partial text", res.Text)
	}
	calls := fake.Calls()
	if len(calls) != 1 || len(calls[0].ChildPIDs) != 1 {
		t.Fatalf("got calls %+v, want one with a grandchild", calls)
	}
	waitGone(t, fake)
}

func TestRunCancel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		scenario string
		env      []string
	}{
		{geminitest.ScenarioSlow, []string{geminitest.EnvDelay + "=1m"}}, // stops on SIGTERM
		{geminitest.ScenarioHang, nil},                                   // needs SIGKILL, grandchild too
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			t.Parallel()
			fake := geminitest.NewLocal(t, tt.scenario)
			r := newRunner(t, fake, func(c *gemini.Config) { c.ExtraEnv = append(c.ExtraEnv, tt.env...) })
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			go func() {
				for len(fake.Calls()) == 0 && ctx.Err() == nil {
					time.Sleep(10 * time.Millisecond)
				}
				cancel()
			}()
			_, err := r.Run(ctx, backend.Request{Prompt: "Research the fake topic."})
			if !errors.Is(err, context.Canceled) || backend.ErrorCode(err) != "" {
				t.Fatalf("got %v, want an error wrapping context.Canceled that is not a *backend.Error", err)
			}
			waitGone(t, fake)
		})
	}
	t.Run("before start", func(t *testing.T) {
		t.Parallel()
		fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := newRunner(t, fake, nil).Run(ctx, backend.Request{Prompt: "x"}); !errors.Is(err, context.Canceled) {
			t.Errorf("got %v, want context.Canceled", err)
		}
		if n := len(fake.Calls()); n != 0 {
			t.Errorf("got %d calls, want none", n)
		}
	})
}

func TestRunInvalidThenValid(t *testing.T) {
	t.Parallel()
	fake := geminitest.NewLocal(t, geminitest.ScenarioInvalidThenValid)
	r := newRunner(t, fake, nil)
	if _, err := r.Version(t.Context()); err != nil { // not a prompt: does not count
		t.Fatal(err)
	}
	for i, want := range []string{geminitest.InvalidAnswer, geminitest.DefaultAnswer, geminitest.DefaultAnswer} {
		res, err := run(t, r, backend.Request{})
		if err != nil || res.Text != want {
			t.Errorf("run %d: got %q, %v, want %q", i+1, res.Text, err, want)
		}
	}
}

// An answer that quotes a secret (a page the agent read echoed it, say) reaches neither the result nor the
// streamed text, which leave the server as the report, progress and the tray's and /status's stages.
func TestRunAnswerAndEventsMasked(t *testing.T) {
	t.Parallel()
	const firecrawlKey = "fc-0123456789abcdef"
	fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
	r := newRunner(t, fake, func(c *gemini.Config) {
		c.ExtraEnv = append(c.ExtraEnv, "FIRECRAWL_API_KEY="+firecrawlKey,
			geminitest.EnvAnswer+"=The page said the key is "+firecrawlKey+".")
	})
	var mu sync.Mutex
	var events []backend.Event
	res, err := run(t, r, backend.Request{OnEvent: func(ev backend.Event) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, ev)
	}})
	if err != nil || res.Text != "The page said the key is [redacted]." {
		t.Errorf("answer %q, %v: want the key masked", res.Text, err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, ev := range events {
		if strings.Contains(fmt.Sprintf("%+v", ev), firecrawlKey) {
			t.Errorf("event %+v holds the key", ev)
		}
	}
}

func TestRunSecretsMasked(t *testing.T) {
	t.Parallel()
	googleKey := "AIza" + strings.Repeat("Q", 35)
	const firecrawlKey, urlSecret, prompt = "fc-0123456789abcdef", "hunter2-url-secret", "TOP-SECRET-PROMPT research this"
	fake := geminitest.NewLocal(t, geminitest.ScenarioCrash)
	var logs bytes.Buffer
	r := newRunner(t, fake, func(c *gemini.Config) {
		c.ExtraEnv = append(c.ExtraEnv,
			"GEMINI_API_KEY="+googleKey,
			"FIRECRAWL_API_KEY="+firecrawlKey,
			"FIRECRAWL_API_URL=https://fc.example/v2?token="+urlSecret)
		c.Secrets = []string{urlSecret}
		c.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	_, err := run(t, r, backend.Request{Prompt: prompt})
	e := asError(t, err)
	if !strings.Contains(e.Detail, "[redacted]") || !strings.Contains(e.Detail, "FIRECRAWL_API_URL=https://fc.example/v2?token=[redacted]") {
		t.Errorf("got detail %q, want the leaked values masked", e.Detail)
	}
	for _, secret := range []string{googleKey, firecrawlKey, urlSecret} {
		for what, text := range map[string]string{"detail": e.Detail, "message": e.Message, "error": e.Error(), "logs": logs.String()} {
			if strings.Contains(text, secret) {
				t.Errorf("%s contains secret %q: %s", what, secret, text)
			}
		}
	}
	if strings.Contains(logs.String(), "TOP-SECRET-PROMPT") {
		t.Errorf("logs contain the prompt: %s", logs.String())
	}
	if !strings.Contains(logs.String(), "stream-json") {
		t.Errorf("got logs %q, want the argv logged at debug level", logs.String())
	}
}

func TestRunHuge(t *testing.T) {
	fake := geminitest.NewLocal(t, geminitest.ScenarioHuge)
	res, err := run(t, newRunner(t, fake, nil), backend.Request{})
	if err != nil {
		t.Fatal(err)
	}
	const max = 16 << 20 // the default MaxOutput
	if !res.Truncated || len(res.Text) > max || len(res.Text) < max-100 {
		t.Errorf("got truncated=%v and %d bytes, want truncated to %d bytes", res.Truncated, len(res.Text), max)
	}
}

// TestRunHugeMemory checks that 20 MiB of output, in deltas or in one line,
// does not make the runner hold 20 MiB when MaxOutput is 1 MiB. It samples
// the heap while the run goes on, so it must not run in parallel.
func TestRunHugeMemory(t *testing.T) {
	for _, scenario := range []string{geminitest.ScenarioHuge, geminitest.ScenarioHugeLine} {
		t.Run(scenario, func(t *testing.T) {
			fake := geminitest.NewLocal(t, scenario)
			r := newRunner(t, fake, func(c *gemini.Config) { c.MaxOutput = 1 << 20 })
			runtime.GC()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			var peak atomic.Uint64
			done := make(chan struct{})
			var sampler sync.WaitGroup
			sampler.Go(func() {
				for {
					var m runtime.MemStats
					runtime.ReadMemStats(&m)
					if m.HeapAlloc > peak.Load() {
						peak.Store(m.HeapAlloc)
					}
					select {
					case <-done:
						return
					case <-time.After(2 * time.Millisecond):
					}
				}
			})
			res, err := run(t, r, backend.Request{})
			close(done)
			sampler.Wait()

			if !res.Truncated || len(res.Text) > 1<<20 {
				t.Errorf("got truncated=%v and %d bytes, want truncated to at most 1 MiB", res.Truncated, len(res.Text))
			}
			if scenario == geminitest.ScenarioHuge && err != nil {
				t.Errorf("got %v, want the truncated answer", err)
			}
			if scenario == geminitest.ScenarioHugeLine && backend.ErrorCode(err) != backend.CodeCLI {
				t.Errorf("got %v, want CLI_ERROR: the only answer line was too long to keep", err)
			}
			if grew := int64(peak.Load()) - int64(before.HeapAlloc); grew > 16<<20 {
				t.Errorf("heap grew by %d MiB during the run, want well under the 20 MiB of output", grew>>20)
			}
		})
	}
}

func TestRunCLINotFound(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	plain := filepath.Join(dir, "gemini.txt")
	if err := os.WriteFile(plain, []byte("not a program"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, path := range map[string]string{"missing": filepath.Join(dir, "gemini"), "not executable": plain} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if name == "not executable" && runtime.GOOS == "windows" {
				t.Skip("no executable bit on Windows")
			}
			r := gemini.NewRunner(gemini.Config{Command: gemini.Command{Path: path}})
			_, err := r.Run(t.Context(), backend.Request{Prompt: "x"})
			if e := asError(t, err); e.Code != backend.CodeCLINotFound || !errors.Is(err, gemini.ErrCLINotFound) || e.Hint == "" {
				t.Errorf("got %v, want CLI_NOT_FOUND wrapping ErrCLINotFound with a hint", err)
			}
			if _, err := r.Version(t.Context()); backend.ErrorCode(err) != backend.CodeCLINotFound {
				t.Errorf("Version: got %v, want CLI_NOT_FOUND", err)
			}
		})
	}
	t.Run("missing working folder", func(t *testing.T) {
		t.Parallel()
		fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
		r := newRunner(t, fake, func(c *gemini.Config) { c.Dir = filepath.Join(dir, "no-such-folder") })
		if _, err := run(t, r, backend.Request{}); backend.ErrorCode(err) != backend.CodeCLI {
			t.Errorf("got %v, want CLI_ERROR about the working folder", err)
		}
	})
}

func TestRunEmptyPrompt(t *testing.T) {
	t.Parallel()
	fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
	if _, err := newRunner(t, fake, nil).Run(t.Context(), backend.Request{Prompt: " \n"}); err == nil {
		t.Error("got no error, want one for an empty prompt")
	}
	if n := len(fake.Calls()); n != 0 {
		t.Errorf("got %d calls, want none", n)
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	fake := geminitest.NewLocal(t, geminitest.ScenarioHang) // --version answers in every scenario
	got, err := newRunner(t, fake, nil).Version(t.Context())
	if err != nil || got != geminitest.Version {
		t.Fatalf("got %q, %v, want %q", got, err, geminitest.Version)
	}
	if calls := fake.Calls(); len(calls) != 1 || !slices.Equal(calls[0].Args, []string{"--version"}) {
		t.Errorf("got calls %+v, want one with --version", calls)
	}
}

func TestConfigDefaults(t *testing.T) {
	t.Parallel()
	cfg := gemini.NewRunner(gemini.Config{}).Config()
	if cfg.KillGrace != 3*time.Second || cfg.MaxOutput != 16<<20 || cfg.Logger == nil {
		t.Errorf("got KillGrace %s MaxOutput %d Logger %v, want 3s, 16 MiB and a logger", cfg.KillGrace, cfg.MaxOutput, cfg.Logger)
	}
}
