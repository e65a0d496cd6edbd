package gemini_test

import (
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

// newWarmRunner is newRunner closed when the test ends, for the tests that keep one-shot processes warm (KeepWarm
// with WarmOneShot).
func newWarmRunner(t *testing.T, fake *geminitest.Fake, change func(*gemini.Config)) *gemini.Runner {
	t.Helper()
	r := newRunner(t, fake, func(c *gemini.Config) {
		c.Warm = gemini.WarmOneShot
		if change != nil {
			change(c)
		}
	})
	t.Cleanup(r.Close)
	return r
}

// keepWarm keeps n processes warm for each of models, as searches of them would start them.
func keepWarm(r *gemini.Runner, n int, models ...string) {
	r.KeepWarm(n)
	for _, model := range models {
		gemini.Used(r, model)
	}
}

// waitWarm waits until r has n processes waiting and the fake has started started processes in all.
func waitWarm(t *testing.T, r *gemini.Runner, fake *geminitest.Fake, n, started int) {
	t.Helper()
	testkit.WaitFor(t, "warm workers", func() bool { return r.Warm() == n && len(fake.Started()) == started })
}

func TestWarmRunTakesTheWaitingProcess(t *testing.T) {
	t.Parallel()
	fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
	r := newWarmRunner(t, fake, nil)
	keepWarm(r, 1, "m1")
	waitWarm(t, r, fake, 1, 1)
	warm := fake.Started()[0]

	res, err := run(t, r, backend.Request{Prompt: "the prompt", Model: "m1"})
	if err != nil || res.Text != geminitest.DefaultAnswer {
		t.Fatalf("got %q, %v", res.Text, err)
	}
	calls := fake.Calls()
	if len(calls) != 1 || calls[0].PID != warm || calls[0].Stdin != "\nthe prompt" ||
		!slices.Equal(calls[0].Args, []string{"-o", "stream-json", "-m", "m1", "--allowed-mcp-server-names", "gemini-search-mcp-none", "-e", "none"}) {
		t.Fatalf("got calls %+v, want the warm process %d to get the prompt", calls, warm)
	}
	waitWarm(t, r, fake, 1, 2) // refilled

	r.Close()
	if live := fake.LivePIDs(); len(live) != 0 {
		t.Errorf("processes still running after Close: %v", live)
	}
	if r.Warm() != 0 {
		t.Errorf("got %d warm after Close, want 0", r.Warm())
	}
}

// A warm run and a cold one start the CLI with the same arguments, folder, environment and stdin.
func TestWarmAndColdRunsStartAlike(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var calls [2]geminitest.Call
	for i, warm := range []bool{false, true} {
		fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
		r := newRunner(t, fake, func(c *gemini.Config) {
			c.Warm = gemini.WarmOneShot
			c.Dir = dir
			c.ExtraEnv = append(c.ExtraEnv, "FIRECRAWL_API_URL=http://127.0.0.1:1")
		})
		if warm {
			keepWarm(r, 1, "m1")
			waitWarm(t, r, fake, 1, 1)
		}
		before := fake.Started()
		if _, err := run(t, r, backend.Request{Prompt: "same prompt", Model: "m1"}); err != nil {
			t.Fatal(err)
		}
		r.Close()
		calls[i] = fake.Calls()[0]
		if warm && calls[i].PID != before[0] {
			t.Fatalf("the run did not take the warm process %d: %+v", before[0], calls[i])
		}
	}
	for i := range calls {
		calls[i].PID = 0
		delete(calls[i].Env, "TMPDIR") // one of its own per process
		delete(calls[i].Env, geminitest.EnvRecordDir)
	}
	cold, warm := calls[0], calls[1]
	if !slices.Equal(cold.Args, warm.Args) || cold.Dir != warm.Dir || cold.Stdin != warm.Stdin ||
		!mapsEqual(cold.Env, warm.Env) {
		t.Errorf("cold %+v\nwarm %+v", cold, warm)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// GEMINI_SEARCH_TIMEOUT counts from the moment a run takes the process, not from its start.
func TestWarmTimeoutCountsFromTheTake(t *testing.T) {
	t.Parallel()
	fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
	// A timeout long enough for the answer on a loaded machine, and a wait longer than it.
	const timeout = testkit.FirstWordsLimit
	r := newWarmRunner(t, fake, func(c *gemini.Config) { c.Timeout = timeout })
	keepWarm(r, 1, "")
	waitWarm(t, r, fake, 1, 1)
	time.Sleep(timeout + 500*time.Millisecond) // longer than the timeout: the warm process waits that long
	if _, err := run(t, r, backend.Request{}); err != nil {
		t.Fatal(err)
	}
	if fake.Calls()[0].PID != fake.Started()[0] {
		t.Error("the run did not take the warm process")
	}
}

func TestWarmIdleStopsTheProcesses(t *testing.T) {
	t.Parallel()
	fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
	var log testkit.SyncBuffer
	r := newWarmRunner(t, fake, func(c *gemini.Config) {
		c.WarmIdle = 200 * time.Millisecond
		c.Logger = slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	keepWarm(r, 1, "")
	testkit.WaitFor(t, "the idle warm process to stop", func() bool {
		return strings.Contains(log.String(), "warm Gemini CLIs unused: stopping them") && r.Warm() == 0 &&
			len(fake.LivePIDs()) == 0
	})
	if n := strings.Count(log.String(), "a warm Gemini CLI is waiting"); n != 1 {
		t.Errorf("%d warm processes started, want 1: an idle model is not refilled\n%s", n, log.String())
	}
}

func TestWarmReplacesAProcessThatDied(t *testing.T) {
	t.Parallel()
	fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
	var log testkit.SyncBuffer
	r := newWarmRunner(t, fake, func(c *gemini.Config) { c.Logger = slog.New(slog.NewTextHandler(&log, nil)) })
	keepWarm(r, 1, "")
	waitWarm(t, r, fake, 1, 1)
	proc, err := os.FindProcess(fake.Started()[0])
	if err == nil {
		err = proc.Kill()
	}
	if err != nil {
		t.Fatal(err)
	}
	waitWarm(t, r, fake, 1, 2)
	if !strings.Contains(log.String(), "a warm Gemini CLI ended before its prompt") {
		t.Errorf("the death was not logged:\n%s", log.String())
	}
	if _, err := run(t, r, backend.Request{}); err != nil {
		t.Fatal(err)
	}
	if fake.Calls()[0].PID != fake.Started()[1] {
		t.Error("the run did not take the replacement")
	}
}

// A CLI that cannot start is tried again at once, then only after a growing pause: the third try comes a second
// after the second (as the log's own timestamps show, whatever the test's scheduling).
func TestWarmStartFailuresBackOff(t *testing.T) {
	t.Parallel()
	var log testkit.SyncBuffer
	r := gemini.NewRunner(gemini.Config{
		Command: gemini.Command{Path: filepath.Join(t.TempDir(), "no-such-gemini")},
		Warm:    gemini.WarmOneShot,
		Logger:  slog.New(slog.NewJSONHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	t.Cleanup(r.Close)
	attempts := func() []time.Time {
		var at []time.Time
		for line := range strings.Lines(log.String()) {
			var rec struct {
				Time time.Time `json:"time"`
				Msg  string    `json:"msg"`
			}
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "a warm Gemini CLI did not start" {
				at = append(at, rec.Time)
			}
		}
		return at
	}
	keepWarm(r, 1, "")
	testkit.WaitFor(t, "three attempts", func() bool { return len(attempts()) >= 3 })
	if at := attempts(); at[2].Sub(at[1]) < 900*time.Millisecond {
		t.Errorf("attempts at %v: the third came %s after the second, want a second's pause", at, at[2].Sub(at[1]))
	}
	_, err := run(t, r, backend.Request{})
	if e := asError(t, err); e.Code != backend.CodeCLINotFound {
		t.Errorf("got %s, want CLI_NOT_FOUND", e.Code)
	}
}

// Warm processes never number more than WarmMax in all, whatever the models.
func TestWarmLimit(t *testing.T) {
	t.Parallel()
	fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
	r := newWarmRunner(t, fake, func(c *gemini.Config) { c.WarmMax = 3 })
	keepWarm(r, 2, "a", "b")
	waitWarm(t, r, fake, 3, 3)
	if _, err := run(t, r, backend.Request{Model: "a"}); err != nil {
		t.Fatal(err)
	}
	waitWarm(t, r, fake, 3, 4) // the one taken is replaced, no more
	if _, err := run(t, r, backend.Request{Model: "c"}); err != nil {
		t.Fatal(err)
	}
	if n := len(fake.Started()); n != 5 || r.Warm() != 3 { // a cold run for c; no room to keep c warm
		t.Errorf("got %d starts and %d warm, want 5 and 3", n, r.Warm())
	}
}

func TestRefreshAndCool(t *testing.T) {
	t.Parallel()
	fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
	var notified testkit.SyncBuffer
	r := newWarmRunner(t, fake, func(c *gemini.Config) { c.OnWarm = func() { notified.Write([]byte{'.'}) } })
	keepWarm(r, 1, "")
	waitWarm(t, r, fake, 1, 1)
	if notified.String() == "" {
		t.Error("OnWarm was not called")
	}
	first := fake.Started()[0]

	r.Refresh()
	waitWarm(t, r, fake, 1, 2)
	testkit.WaitFor(t, "the stale process to end", func() bool { return !slices.Contains(fake.LivePIDs(), first) })

	r.Cool()
	testkit.WaitFor(t, "the warm process to end", func() bool { return r.Warm() == 0 && len(fake.LivePIDs()) == 0 })
	if _, err := run(t, r, backend.Request{}); err != nil {
		t.Fatal(err)
	}
	if n := len(fake.Started()); n != 3 || r.Warm() != 0 {
		t.Errorf("after Cool: got %d starts and %d warm, want a cold run and nothing kept warm", n, r.Warm())
	}
}

// A run that includes folders starts a CLI of its own (they are on its command line) and leaves the warm one.
func TestRunWithFoldersStartsItsOwn(t *testing.T) {
	t.Parallel()
	fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
	r := newWarmRunner(t, fake, nil)
	keepWarm(r, 1, "")
	waitWarm(t, r, fake, 1, 1)
	dir := t.TempDir()
	if _, err := run(t, r, backend.Request{Dirs: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	c := fake.Calls()[0]
	if c.PID == fake.Started()[0] || !slices.Equal(c.Args, []string{"-o", "stream-json", "--include-directories", dir,
		"--allowed-mcp-server-names", "gemini-search-mcp-none", "-e", "none"}) {
		t.Errorf("got %+v, want a CLI of its own with the folder", c)
	}
	if r.Warm() != 1 {
		t.Errorf("%d warm, want the waiting one kept", r.Warm())
	}
}

// A run whose Firecrawl MCP server did not start (the real CLI says so on stderr at startup, and goes on) is a
// success that says so: FirecrawlDown, with the CLI's reason when it gave one (DEBUG=true), and a warning in the
// log. A cold run and a warm one alike; not when the server did not configure Firecrawl.
func TestRunSaysFirecrawlIsDown(t *testing.T) {
	t.Parallel()
	const generic = `the Gemini CLI could not start its MCP server (it said only "MCP issues detected")`
	tests := []struct {
		name      string
		scenario  string
		firecrawl bool // Config.Firecrawl
		env       []string
		warm      bool
		want      string
		wantInLog bool
	}{
		{name: "cold", scenario: geminitest.ScenarioNoFirecrawl, firecrawl: true, env: []string{"DEBUG=false"},
			want: generic, wantInLog: true},
		{name: "warm", scenario: geminitest.ScenarioNoFirecrawl, firecrawl: true, env: []string{"DEBUG=false"},
			warm: true, want: generic, wantInLog: true},
		{name: "the CLI's reason with DEBUG", scenario: geminitest.ScenarioNoFirecrawl, firecrawl: true,
			env: []string{"DEBUG=true"}, want: "MCP error -32001: Request timed out", wantInLog: true},
		{name: "Firecrawl not configured", scenario: geminitest.ScenarioNoFirecrawl, env: []string{"DEBUG=false"}},
		{name: "Firecrawl started", scenario: geminitest.ScenarioOK, firecrawl: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fake := geminitest.NewLocal(t, tt.scenario)
			var logs testkit.SyncBuffer
			change := func(c *gemini.Config) {
				c.ExtraEnv = append(c.ExtraEnv, tt.env...)
				c.Firecrawl = tt.firecrawl
				c.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			}
			r := coldOrWarmRunner(t, fake, tt.warm, change)
			res, err := run(t, r, backend.Request{Model: "m1"})
			if err != nil || res.Text != geminitest.DefaultAnswer || res.FirecrawlDown != tt.want {
				t.Fatalf("got %q, FirecrawlDown %q, %v; want the answer and FirecrawlDown %q", res.Text, res.FirecrawlDown, err, tt.want)
			}
			if inLog := strings.Contains(logs.String(), "level=WARN msg=\"Firecrawl did not start"); inLog != tt.wantInLog {
				t.Errorf("a warning in the log: %v, want %v:\n%s", inLog, tt.wantInLog, logs.String())
			}
			if tt.warm && fake.Calls()[0].PID != fake.Started()[0] {
				t.Error("the run did not take the warm process")
			}
		})
	}
}

// Firecrawl's is the only MCP server a run may start, or none when the CLI's settings start no Firecrawl: a server
// of the user's own settings that fails (the fake, as the real CLI, starts it only when the flags allow it) is
// neither started nor blamed on Firecrawl, cold or warm; a Firecrawl that did not start is still reported.
func TestOnlyFirecrawlsMCPServerStarts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		scenario  string
		firecrawl bool
		warm      bool
		allowed   string // the value of --allowed-mcp-server-names
		want      string // FirecrawlDown
	}{
		{"a server of the user's, with Firecrawl", geminitest.ScenarioUserMCPDown, true, false, "firecrawl", ""},
		{"a server of the user's, with Firecrawl, warm", geminitest.ScenarioUserMCPDown, true, true, "firecrawl", ""},
		{"a server of the user's, without Firecrawl", geminitest.ScenarioUserMCPDown, false, false, "gemini-search-mcp-none", ""},
		{"Firecrawl that did not start", geminitest.ScenarioNoFirecrawl, true, false, "firecrawl",
			`the Gemini CLI could not start its MCP server (it said only "MCP issues detected")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fake := geminitest.NewLocal(t, tt.scenario)
			change := func(c *gemini.Config) {
				c.ExtraEnv = append(c.ExtraEnv, "DEBUG=false")
				c.Firecrawl = tt.firecrawl
			}
			r := coldOrWarmRunner(t, fake, tt.warm, change)
			res, err := run(t, r, backend.Request{Model: "m1"})
			if err != nil || res.Text != geminitest.DefaultAnswer || res.FirecrawlDown != tt.want {
				t.Fatalf("got %q, FirecrawlDown %q, %v; want the answer and FirecrawlDown %q", res.Text, res.FirecrawlDown, err, tt.want)
			}
			want := []string{"-o", "stream-json", "-m", "m1", "--allowed-mcp-server-names", tt.allowed, "-e", "none"}
			if calls := fake.Calls(); len(calls) != 1 || !slices.Equal(calls[0].Args, want) {
				t.Errorf("got calls %+v, want one with args %q", calls, want)
			}
		})
	}
}

// coldOrWarmRunner is a runner on fake with change applied to its config: warm, with a process for model m1
// waiting, or cold.
func coldOrWarmRunner(t *testing.T, fake *geminitest.Fake, warm bool, change func(*gemini.Config)) *gemini.Runner {
	t.Helper()
	if !warm {
		return newRunner(t, fake, change)
	}
	r := newWarmRunner(t, fake, change)
	keepWarm(r, 1, "m1")
	waitWarm(t, r, fake, 1, 1)
	return r
}
