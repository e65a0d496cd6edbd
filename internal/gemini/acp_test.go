package gemini_test

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

// newACPRunner is a runner on fake that keeps an --acp worker warm (the default), closed when the test ends.
func newACPRunner(t *testing.T, fake *geminitest.Fake, change func(*gemini.Config)) *gemini.Runner {
	t.Helper()
	r := newRunner(t, fake, func(c *gemini.Config) {
		// A worker that has not answered a prompt's session/cancel within KillGrace is retired: a machine under load
		// must never take the fake's answer for a stuck cancel.
		c.KillGrace = testkit.FirstWordsLimit
		if change != nil {
			change(c)
		}
	})
	t.Cleanup(r.Close)
	r.KeepWarm(1)
	return r
}

// isACP reports whether c is a prompt an --acp worker ran.
func isACP(c geminitest.Call) bool { return slices.Contains(c.Args, "--acp") }

// waitReady waits until r has a worker ready for a prompt.
func waitReady(t *testing.T, r *gemini.Runner) {
	t.Helper()
	testkit.WaitFor(t, "a ready --acp worker", func() bool { return r.Warm() == 1 })
}

// eventLog collects a run's progress events.
type eventLog struct {
	mu     sync.Mutex
	events []backend.Event
}

func (l *eventLog) add(ev backend.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, ev)
}

func (l *eventLog) all() []backend.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.events)
}

// Nothing starts before the first search; the first search runs cold and starts a worker, which runs the next one
// with the same prompt, in the config folder, and gives the same result and the same progress events.
func TestACPWarmSearchMatchesTheColdOne(t *testing.T) {
	t.Parallel()
	fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
	r := newACPRunner(t, fake, nil)
	if n := len(fake.Started()); n != 0 || r.Warm() != 0 {
		t.Fatalf("%d CLIs started before any search, want none", n)
	}
	results := make([]backend.Result, 2)
	events := make([]*eventLog, 2)
	for i := range results {
		if i == 1 {
			waitReady(t, r)
		}
		events[i] = &eventLog{}
		res, err := run(t, r, backend.Request{Prompt: "the prompt", Model: "m1", OnEvent: events[i].add})
		if err != nil {
			t.Fatal(err)
		}
		res.Duration = 0
		results[i] = res
	}
	calls := fake.Calls()
	if len(calls) != 2 || isACP(calls[0]) || !isACP(calls[1]) {
		t.Fatalf("got calls %+v, want a cold run, then one on the worker", calls)
	}
	worker := calls[1]
	wantArgs := []string{"--acp", "-m", "m1", "--allowed-mcp-server-names", "gemini-search-mcp-none", "-e", "none"}
	if worker.Stdin != "the prompt" || worker.Dir != calls[0].Dir || !slices.Equal(worker.Args, wantArgs) ||
		worker.PID == calls[0].PID {
		t.Errorf("the worker got %+v , want the prompt in the config folder %s with args %q", worker, calls[0].Dir, wantArgs)
	}
	if !reflect.DeepEqual(results[0], results[1]) {
		t.Errorf("cold %+v\nwarm %+v", results[0], results[1])
	}
	if cold, warm := events[0].all(), events[1].all(); !reflect.DeepEqual(cold, warm) || len(cold) == 0 {
		t.Errorf("events: cold %+v\nwarm %+v", cold, warm)
	}
}

// One worker runs prompts side by side, up to WarmMax: the fake answers none until it has all four.
func TestACPConcurrentPromptsInOneProcess(t *testing.T) {
	t.Parallel()
	fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
	r := newACPRunner(t, fake, func(c *gemini.Config) {
		c.WarmMax = 4
		c.ExtraEnv = append(c.ExtraEnv, geminitest.EnvTogether+"=4")
	})
	if _, err := run(t, r, backend.Request{}); err != nil {
		t.Fatal(err)
	}
	waitReady(t, r)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			res, err := run(t, r, backend.Request{})
			if err == nil && res.Text != geminitest.DefaultAnswer {
				err = errors.New("got " + res.Text)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	calls := fake.Calls()
	worker := calls[1].PID
	for _, c := range calls[1:] {
		if c.PID != worker {
			t.Errorf("a prompt ran in %d, want all in the worker %d", c.PID, worker)
		}
	}
	if n := len(fake.Started()); n != 2 {
		t.Errorf("%d CLIs started, want the cold run's and one worker", n)
	}
}

// A cancelled call and a call past its time limit send session/cancel: the worker stops the prompt and goes on
// serving.
func TestACPCancelAndTimeLimit(t *testing.T) {
	t.Parallel()
	fake := geminitest.NewLocal(t, geminitest.ScenarioScript)
	script := geminitest.ScriptEnv(t, geminitest.Step{Scenario: geminitest.ScenarioOK}, geminitest.Step{Scenario: geminitest.ScenarioHang},
		geminitest.Step{Scenario: geminitest.ScenarioHang}, geminitest.Step{Scenario: geminitest.ScenarioOK})
	r := newACPRunner(t, fake, func(c *gemini.Config) { c.ExtraEnv = append(c.ExtraEnv, script) })
	if _, err := run(t, r, backend.Request{}); err != nil {
		t.Fatal(err)
	}
	waitReady(t, r)

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	_, err := r.Run(ctx, backend.Request{Prompt: "cancel me", OnEvent: func(ev backend.Event) {
		if ev.Kind == backend.EventText {
			cancel() // the answer has begun: the prompt is running in the worker
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want the cancel", err)
	}

	waitReady(t, r)
	res, err := run(t, r, backend.Request{Prompt: "time me out", Timeout: testkit.FirstWordsLimit})
	if e := asError(t, err); e.Code != backend.CodeTimeout || !strings.Contains(res.Text, "Partial answer") {
		t.Fatalf("got %+v, %v; want a timeout with the partial answer", res, err)
	}

	waitReady(t, r)
	if res, err := run(t, r, backend.Request{}); err != nil || res.Text != geminitest.DefaultAnswer {
		t.Fatalf("got %q, %v; want the worker to go on serving", res.Text, err)
	}
	calls := fake.Calls()
	if len(calls) != 4 || !isACP(calls[1]) || calls[1].PID != calls[3].PID || calls[2].PID != calls[3].PID {
		t.Errorf("got calls %+v, want the last three in one worker", calls)
	}
}

// A prompt whose cancel the worker ignores retires the worker but ends no other prompt: here the one it was serving
// beside it (slow: it answers 2 s after it came) answers from the worker, which then ends.
func TestACPStuckCancelEndsNoOtherPrompt(t *testing.T) {
	t.Parallel()
	fake := geminitest.NewLocal(t, geminitest.ScenarioScript)
	script := geminitest.ScriptEnv(t, geminitest.Step{Scenario: geminitest.ScenarioOK}, geminitest.Step{Scenario: geminitest.ScenarioSlow},
		geminitest.Step{Scenario: geminitest.ScenarioIgnoreCancel})
	r := newACPRunner(t, fake, func(c *gemini.Config) {
		c.WarmMax = 2
		c.ExtraEnv = append(c.ExtraEnv, script, geminitest.EnvDelay+"=2s")
		c.KillGrace = testGrace // the cancel is ignored: its grace runs out, however long it is
	})
	if _, err := run(t, r, backend.Request{}); err != nil {
		t.Fatal(err)
	}
	waitReady(t, r)

	type outcome struct {
		res backend.Result
		err error
	}
	other := make(chan outcome, 1)
	go func() {
		res, err := r.Run(t.Context(), backend.Request{Prompt: "the other one"})
		other <- outcome{res, err}
	}()
	testkit.WaitFor(t, "the other prompt in the worker", func() bool { return len(fake.Calls()) == 2 })

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	_, err := r.Run(ctx, backend.Request{Prompt: "stuck", OnEvent: func(ev backend.Event) {
		if ev.Kind == backend.EventText {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("stuck: got %v, want the cancel", err)
	}
	if o := <-other; o.err != nil || o.res.Text != geminitest.DefaultAnswer {
		t.Errorf("the other prompt: got %q, %v; want its answer", o.res.Text, o.err)
	}
	calls := fake.Calls()
	if len(calls) != 3 || !isACP(calls[1]) || !isACP(calls[2]) {
		t.Fatalf("got calls %+v, want both prompts on the worker and no cold run", calls)
	}
	testkit.WaitFor(t, "the retired worker gone", func() bool { return !slices.Contains(fake.LivePIDs(), calls[1].PID) })
}

// A worker that stops reading its input holds a prompt no longer than its time limit: here a prompt too long for the
// pipe, sent while the worker is deaf, ends in a timeout, and the worker is retired.
func TestACPWriteToADeafWorkerTimesOut(t *testing.T) {
	t.Parallel()
	fake := geminitest.NewLocal(t, geminitest.ScenarioScript)
	script := geminitest.ScriptEnv(t, geminitest.Step{Scenario: geminitest.ScenarioOK}, geminitest.Step{Scenario: geminitest.ScenarioDeaf})
	r := newACPRunner(t, fake, func(c *gemini.Config) {
		c.WarmMax = 2
		c.ExtraEnv = append(c.ExtraEnv, script)
	})
	if _, err := run(t, r, backend.Request{}); err != nil {
		t.Fatal(err)
	}
	waitReady(t, r)

	deafCtx, cancelDeaf := context.WithCancel(t.Context())
	deaf := make(chan error, 1)
	go func() {
		_, err := r.Run(deafCtx, backend.Request{Prompt: "make it deaf"})
		deaf <- err
	}()
	testkit.WaitFor(t, "the worker deaf", func() bool { return len(fake.Calls()) == 2 })

	_, err := run(t, r, backend.Request{Prompt: strings.Repeat("a long prompt ", 1<<16), Timeout: time.Second})
	if e := asError(t, err); e.Code != backend.CodeTimeout {
		t.Errorf("got %+v, want a timeout", e)
	}
	cancelDeaf()
	if err := <-deaf; !errors.Is(err, context.Canceled) {
		t.Errorf("the deaf prompt: got %v, want the cancel", err)
	}
	worker := fake.Calls()[1].PID
	testkit.WaitFor(t, "the deaf worker gone", func() bool { return !slices.Contains(fake.LivePIDs(), worker) })
}

// A permission the CLI asks for is refused (its reject_once option), and the tool it was for is a failed tool of the result.
func TestACPRefusesPermissions(t *testing.T) {
	t.Parallel()
	fake := geminitest.NewLocal(t, geminitest.ScenarioPermission)
	r := newACPRunner(t, fake, nil)
	if _, err := run(t, r, backend.Request{}); err != nil {
		t.Fatal(err)
	}
	waitReady(t, r)
	res, err := run(t, r, backend.Request{})
	if err != nil || res.Text != geminitest.DefaultAnswer {
		t.Fatalf("got %q, %v; want the answer", res.Text, err)
	}
	if got := fake.Permissions(); len(got) != 1 || got[0] != `{"outcome":{"optionId":"cancel","outcome":"selected"}}` {
		t.Errorf("the fake got %q, want one permission refused with its reject_once option", got)
	}
	if len(res.ToolErrors) != 1 || res.ToolErrors[0].Tool != "web_fetch" || slices.Contains(res.URLs, geminitest.FakeURL) {
		t.Errorf("got tool errors %+v and URLs %q, want the refused fetch failed and not read", res.ToolErrors, res.URLs)
	}
}

// A worker that dies in the middle of a prompt leaves the search to a cold run, which answers; the next search
// starts another worker.
func TestACPCrashFallsBackToAColdRun(t *testing.T) {
	t.Parallel()
	for _, scenario := range []string{geminitest.ScenarioCrash, geminitest.ScenarioKilled} {
		t.Run(scenario, func(t *testing.T) {
			t.Parallel()
			fake := geminitest.NewLocal(t, geminitest.ScenarioScript)
			script := geminitest.ScriptEnv(t, geminitest.Step{Scenario: geminitest.ScenarioOK}, geminitest.Step{Scenario: scenario},
				geminitest.Step{Scenario: geminitest.ScenarioOK})
			r := newACPRunner(t, fake, func(c *gemini.Config) { c.ExtraEnv = append(c.ExtraEnv, script) })
			if _, err := run(t, r, backend.Request{}); err != nil {
				t.Fatal(err)
			}
			waitReady(t, r)
			res, err := run(t, r, backend.Request{})
			if err != nil || res.Text != geminitest.DefaultAnswer {
				t.Fatalf("got %q, %v; want the cold run's answer", res.Text, err)
			}
			calls := fake.Calls()
			if len(calls) != 3 || !isACP(calls[1]) || isACP(calls[2]) {
				t.Fatalf("got calls %+v, want the prompt on the worker, then cold", calls)
			}
			testkit.WaitFor(t, "the dead worker gone", func() bool { return !slices.Contains(fake.LivePIDs(), calls[1].PID) })
			if _, err := run(t, r, backend.Request{}); err != nil {
				t.Fatal(err)
			}
			waitReady(t, r)
		})
	}
}

// A worker is replaced once it has opened ACPMaxSessions sessions, which the CLI never frees: the spent one ends.
func TestACPRecyclesAfterSessions(t *testing.T) {
	t.Parallel()
	fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
	r := newACPRunner(t, fake, func(c *gemini.Config) { c.ACPMaxSessions = 3 })
	workers := map[int]int{} // pid → prompts
	var order []int
	for range 8 {
		if len(fake.Started()) > 0 {
			waitReady(t, r)
		}
		if _, err := run(t, r, backend.Request{}); err != nil {
			t.Fatal(err)
		}
		if c := fake.Calls()[len(fake.Calls())-1]; isACP(c) {
			if workers[c.PID] == 0 {
				order = append(order, c.PID)
			}
			workers[c.PID]++
		}
	}
	if len(order) < 2 {
		t.Fatalf("prompts by worker %v, want a second worker after the first was spent", workers)
	}
	for pid, n := range workers {
		if n > 3 {
			t.Errorf("worker %d ran %d prompts, more than its 3 sessions", pid, n)
		}
	}
	testkit.WaitFor(t, "the spent worker gone", func() bool { return !slices.Contains(fake.LivePIDs(), order[0]) })
}

// Without KeepWarm, and after Cool, searches run cold and nothing stays behind.
func TestACPOnlyWhileKeptWarm(t *testing.T) {
	t.Parallel()
	fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
	r := newRunner(t, fake, nil)
	t.Cleanup(r.Close)
	for range 2 {
		if _, err := run(t, r, backend.Request{}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(fake.Started()); n != 2 || r.Warm() != 0 {
		t.Fatalf("%d starts and %d warm, want two cold runs and nothing warm", n, r.Warm())
	}
	r.KeepWarm(1)
	if _, err := run(t, r, backend.Request{}); err != nil {
		t.Fatal(err)
	}
	waitReady(t, r)
	r.Cool()
	testkit.WaitFor(t, "the worker gone", func() bool { return r.Warm() == 0 && len(fake.LivePIDs()) == 0 })
	if _, err := run(t, r, backend.Request{}); err != nil {
		t.Fatal(err)
	}
	if calls := fake.Calls(); isACP(calls[len(calls)-1]) || len(fake.Started()) != 5 {
		t.Errorf("after Cool: got %+v, want a cold run", calls[len(calls)-1])
	}
}

// A worker stops after WarmIdle without a search, and the next search (which runs cold) starts another.
func TestACPIdleWorkerStops(t *testing.T) {
	t.Parallel()
	fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
	r := newACPRunner(t, fake, func(c *gemini.Config) { c.WarmIdle = 300 * time.Millisecond })
	if _, err := run(t, r, backend.Request{}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "a worker started, then gone idle", func() bool {
		return len(fake.Started()) == 2 && r.Warm() == 0 && len(fake.LivePIDs()) == 0
	})
	if _, err := run(t, r, backend.Request{}); err != nil {
		t.Fatal(err)
	}
	if isACP(fake.Calls()[1]) {
		t.Error("the search after the idle stop ran on a worker, want cold")
	}
	testkit.WaitFor(t, "another worker", func() bool { return len(fake.Started()) == 4 })
}

// A run with folders runs cold (a session cannot carry them) and starts no worker, which could never serve it; the
// first search without folders does.
func TestACPFoldersRunCold(t *testing.T) {
	t.Parallel()
	fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
	r := newACPRunner(t, fake, nil)
	if _, err := run(t, r, backend.Request{Dirs: []string{t.TempDir()}}); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, r, backend.Request{}); err != nil {
		t.Fatal(err)
	}
	waitReady(t, r)
	if _, err := run(t, r, backend.Request{Dirs: []string{filepath.Join(t.TempDir())}}); err != nil {
		t.Fatal(err)
	}
	calls := fake.Calls()
	for _, c := range calls {
		if isACP(c) {
			t.Errorf("a run ran on the worker: %+v", c)
		}
	}
	if n := len(fake.Started()); n != len(calls)+1 {
		t.Errorf("%d CLIs started for %d cold runs, want one worker besides", n, len(calls))
	}
}

// A run whose events are read slowly holds up no other prompt of the worker: here the first run's reader waits
// until the second run has ended.
func TestACPSlowEventReaderHoldsUpNoOtherPrompt(t *testing.T) {
	t.Parallel()
	fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
	r := newACPRunner(t, fake, func(c *gemini.Config) {
		c.WarmMax = 2
		c.ExtraEnv = append(c.ExtraEnv, geminitest.EnvTogether+"=2")
	})
	if _, err := run(t, r, backend.Request{}); err != nil {
		t.Fatal(err)
	}
	waitReady(t, r)
	secondDone := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var once sync.Once
		res, err := run(t, r, backend.Request{OnEvent: func(backend.Event) { once.Do(func() { <-secondDone }) }})
		if err != nil || res.Text != geminitest.DefaultAnswer {
			t.Errorf("slow reader: got %q, %v", res.Text, err)
		}
	})
	res, err := run(t, r, backend.Request{})
	close(secondDone)
	wg.Wait()
	if err != nil || res.Text != geminitest.DefaultAnswer {
		t.Errorf("got %q, %v", res.Text, err)
	}
	if calls := fake.Calls(); !isACP(calls[1]) || !isACP(calls[2]) {
		t.Errorf("got calls %+v, want both on the worker", calls)
	}
}

// A prompt the worker fails is classified as a one-shot run's failure is; a quota refused at once goes to a cold
// run, which alone tells a daily quota (on which auto switches to the API) from a rate limit; a 429 that came late,
// after the CLI's retries, is a rate limit, returned as it is (a cold run would retry as long again).
func TestACPFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		scenario string
		code     backend.Code
		cold     bool // the failing search ended in a one-shot run
	}{
		{geminitest.ScenarioAuth401, backend.CodeAuth, false},
		{geminitest.ScenarioEmpty, backend.CodeEmpty, false},
		{geminitest.ScenarioQuota, backend.CodeQuota, true},
		{geminitest.ScenarioRateLimited, backend.CodeQuota, false},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			t.Parallel()
			fake := geminitest.NewLocal(t, geminitest.ScenarioScript)
			script := geminitest.ScriptEnv(t, geminitest.Step{Scenario: geminitest.ScenarioOK}, geminitest.Step{Scenario: tt.scenario})
			r := newACPRunner(t, fake, func(c *gemini.Config) { c.ExtraEnv = append(c.ExtraEnv, script) })
			if _, err := run(t, r, backend.Request{}); err != nil {
				t.Fatal(err)
			}
			waitReady(t, r)
			_, err := run(t, r, backend.Request{})
			e := asError(t, err)
			if e.Code != tt.code || tt.code == backend.CodeQuota && e.Daily != tt.cold {
				t.Errorf("got %+v, want %s (daily: %v)", e, tt.code, tt.cold)
			}
			if tt.scenario == geminitest.ScenarioRateLimited && e.Message != backend.MessagePerMinuteQuota {
				t.Errorf("got %q, want the per-minute rate limit", e.Message)
			}
			calls := fake.Calls()
			if !isACP(calls[1]) || isACP(calls[len(calls)-1]) != !tt.cold {
				t.Errorf("got calls %+v; want the worker first, then cold: %v", calls, tt.cold)
			}
		})
	}
}

// While Firecrawl is on no --acp worker starts (the CLI would start a Firecrawl MCP server for every session and
// never end one): a search that succeeded starts a one-shot process instead, the next search runs on it, and each
// run reports Firecrawl as its own CLI found it.
func TestACPNotWithFirecrawl(t *testing.T) {
	t.Parallel()
	fake := geminitest.NewLocal(t, geminitest.ScenarioNoFirecrawl)
	r := newACPRunner(t, fake, func(c *gemini.Config) {
		c.ExtraEnv = append(c.ExtraEnv, "DEBUG=false")
		c.Firecrawl = true
	})
	if r.Config().Warm != gemini.WarmOneShot {
		t.Errorf("warm mode %q with Firecrawl, want %q", r.Config().Warm, gemini.WarmOneShot)
	}
	if n := len(fake.Started()); n != 0 {
		t.Fatalf("%d CLIs started before any search, want none", n)
	}
	cold, err := run(t, r, backend.Request{Model: "m1"})
	if err != nil || cold.FirecrawlDown == "" {
		t.Fatalf("cold: FirecrawlDown %q, %v; want it said", cold.FirecrawlDown, err)
	}
	waitWarm(t, r, fake, 1, 2)
	waiting := fake.Started()[1]
	warm, err := run(t, r, backend.Request{Model: "m1"})
	if err != nil || warm.Text != geminitest.DefaultAnswer || warm.FirecrawlDown != cold.FirecrawlDown {
		t.Fatalf("warm: %q, FirecrawlDown %q, %v; want the answer and %q", warm.Text, warm.FirecrawlDown, err, cold.FirecrawlDown)
	}
	waitWarm(t, r, fake, 1, 3) // refilled, and nothing else started
	calls := fake.Calls()
	if len(calls) != 2 || calls[1].PID != waiting || isACP(calls[0]) || isACP(calls[1]) {
		t.Errorf("got calls %+v, want a cold run, then one on the waiting process %d", calls, waiting)
	}
}

// Refresh (the settings changed) retires the worker: the next search runs cold with the new settings and starts
// the next one.
func TestACPRefresh(t *testing.T) {
	t.Parallel()
	fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
	r := newACPRunner(t, fake, nil)
	if _, err := run(t, r, backend.Request{}); err != nil {
		t.Fatal(err)
	}
	waitReady(t, r)
	r.Refresh()
	testkit.WaitFor(t, "the worker gone", func() bool { return r.Warm() == 0 && len(fake.LivePIDs()) == 0 })
	if _, err := run(t, r, backend.Request{}); err != nil {
		t.Fatal(err)
	}
	if isACP(fake.Calls()[1]) {
		t.Error("the search after Refresh ran on a worker, want cold")
	}
	waitReady(t, r)
	if n := len(fake.Started()); n != 4 {
		t.Errorf("%d CLIs started, want two cold runs and two workers", n)
	}
}
