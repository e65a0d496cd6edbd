package activity

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestRunsAndFailures(t *testing.T) {
	t.Parallel()
	r := New()
	clock := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	r.now = func() time.Time { return clock }

	changed := r.Changed()
	a := beginRun(r, "search", "first")
	select {
	case <-changed:
	default:
		t.Fatal("Begin did not signal a change")
	}
	b := beginRun(r, "deep_search", "second")
	b.Stage("searching: go 1.26")

	s := r.Snapshot()
	if len(s.Running) != 2 || s.Running[0].Query != "first" || s.Running[1].Stage != "searching: go 1.26" {
		t.Fatalf("running = %+v", s.Running)
	}

	a.End(nil)
	b.End(&Failure{Code: "QUOTA_ERROR", Message: "daily quota"})
	b.End(&Failure{Code: "IGNORED"}) // a second End does nothing
	s = r.Snapshot()
	if len(s.Running) != 0 {
		t.Errorf("running = %+v, want none", s.Running)
	}
	want := Failure{Time: clock, Tool: "deep_search", Query: "second", Code: "QUOTA_ERROR", Message: "daily quota"}
	if len(s.Failures) != 1 || s.Failures[0] != want {
		t.Errorf("failures = %+v, want [%+v]", s.Failures, want)
	}
	r.ClearFailures()
	if got := r.Snapshot().Failures; len(got) != 0 {
		t.Errorf("failures after Clear = %+v", got)
	}
}

func TestKeepsTheTenMostRecentFailures(t *testing.T) {
	t.Parallel()
	r := New()
	for i := range 15 {
		beginRun(r, "search", "q").End(&Failure{Code: fmt.Sprint(i)})
	}
	f := r.Snapshot().Failures
	if len(f) != MaxFailures || f[0].Code != "14" || f[MaxFailures-1].Code != "5" {
		t.Errorf("failures = %+v, want codes 14 down to 5", f)
	}
}

// A warning about a call that succeeded is kept among the failures, as a warning.
func TestAWarningIsKeptAsOne(t *testing.T) {
	t.Parallel()
	r := New()
	beginRun(r, "search", "q").End(&Failure{Code: "FIRECRAWL_UNAVAILABLE", Message: "without Firecrawl", Warning: true})
	beginRun(r, "search", "q").End(&Failure{Code: "QUOTA_ERROR"})
	f := r.Snapshot().Failures
	if len(f) != 2 || f[0].Warning || !f[1].Warning || f[1].Tool != "search" || f[1].Query != "q" {
		t.Errorf("failures = %+v, want the quota error, then the warning", f)
	}
	if got := r.Snapshot().Warnings(); got != 1 {
		t.Errorf("got %d warnings, want 1", got)
	}
}

func TestNilTrackerAndContext(t *testing.T) {
	t.Parallel()
	var tr *Tracker
	tr.Stage("x")
	tr.End(nil)
	if TrackerFrom(context.Background()) != nil {
		t.Error("empty context has a tracker")
	}
	r := New()
	ctx, real := r.Begin(context.Background(), "", "search", "q")
	if TrackerFrom(ctx) != real {
		t.Error("tracker lost through the context")
	}
}

func beginRun(r *Registry, tool, query string) *Tracker {
	_, t := r.Begin(context.Background(), "", tool, query)
	return t
}

// TestCancelAllSaysWhy: the app's own cancellation reaches every call in progress with its reason, is a
// context.Canceled to the code that ends the run, and reaches no call that has ended.
func TestCancelAllSaysWhy(t *testing.T) {
	t.Parallel()
	r := New()
	ended, endedRun := r.Begin(context.Background(), "", "search", "done")
	endedRun.End(nil)
	a, _ := r.Begin(context.Background(), "", "search", "a")
	b, _ := r.Begin(context.Background(), "s2", "deep_search", "b")
	r.CancelAll("the server was stopped from the tray menu", "Start it again.")
	for _, ctx := range []context.Context{a, b} {
		var stopped *StoppedError
		if !errors.As(context.Cause(ctx), &stopped) || stopped.Why != "the server was stopped from the tray menu" {
			t.Errorf("cause = %v, want the StoppedError", context.Cause(ctx))
		}
		if !errors.Is(context.Cause(ctx), context.Canceled) || ctx.Err() != context.Canceled {
			t.Errorf("err = %v, cause %v: not a context.Canceled", ctx.Err(), context.Cause(ctx))
		}
	}
	if cause := context.Cause(ended); errors.As(cause, new(*StoppedError)) {
		t.Errorf("an ended call's cause = %v, want no StoppedError", cause)
	}
}

func TestRecordIsNotARun(t *testing.T) {
	t.Parallel()
	r := New()
	changed := r.Changed()
	r.Record(Failure{Tool: "settings.json", Code: "SETTINGS_ERROR", Message: "line 3: invalid JSON"})
	<-changed
	s := r.Snapshot()
	if len(s.Running) != 0 || len(s.Failures) != 1 || s.Failures[0].Tool != "settings.json" || s.Failures[0].Time.IsZero() {
		t.Errorf("snapshot = %+v, want one stamped failure and nothing running", s)
	}
}

func TestElapsed(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	for d, want := range map[time.Duration]string{0: "00:00", 59 * time.Second: "00:59", 61 * time.Second: "01:01", 75 * time.Minute: "75:00", -time.Second: "00:00"} {
		if got := (Run{Started: start}).Elapsed(start.Add(d)); got != want {
			t.Errorf("Elapsed after %v = %s, want %s", d, got, want)
		}
	}
}

// TestCancelSession: the end of a session cancels its calls, and no other.
func TestCancelSession(t *testing.T) {
	t.Parallel()
	r := New()
	mine, _ := r.Begin(context.Background(), "s1", "search", "mine")
	other, _ := r.Begin(context.Background(), "s2", "search", "other")
	r.CancelSession("s1", "the client ended its session", "Call again in a new session.")
	var stopped *StoppedError
	if !errors.As(context.Cause(mine), &stopped) || stopped.Why != "the client ended its session" {
		t.Errorf("the session's call: cause %v", context.Cause(mine))
	}
	if other.Err() != nil {
		t.Errorf("another session's call was cancelled: %v", context.Cause(other))
	}
}

// TestWorking: a session works while a call of its own is in progress, a detached run included.
func TestWorking(t *testing.T) {
	t.Parallel()
	r := New()
	ctx, tracker := r.Begin(context.Background(), "s1", "deep_search", "task")
	if !r.Working("s1") || r.Working("s2") || r.Working("") {
		t.Fatal("want s1 working, and no other session")
	}
	_, release := tracker.Detach(ctx)
	if !r.Working("s1") {
		t.Error("s1 not working while its detached run goes on")
	}
	tracker.End(nil)
	release()
	if r.Working("s1") {
		t.Error("s1 still working after its run ended")
	}
}

// TestDetach: a run that outlives its call (an MCP task) no longer ends with the call's context, but still with
// the app's cancellation, whose reason it gets.
func TestDetach(t *testing.T) {
	t.Parallel()
	r := New()
	call, cancelCall := context.WithCancel(context.Background())
	ctx, tracker := r.Begin(call, "s1", "deep_search", "task")
	run, release := tracker.Detach(ctx)
	defer release()
	cancelCall()
	if run.Err() != nil {
		t.Fatal("the detached run ended with its call")
	}
	r.CancelSession("s1", "the client ended its MCP session", "Call again in a new session.")
	var stopped *StoppedError
	if !errors.As(context.Cause(run), &stopped) || stopped.Fix != "Call again in a new session." {
		t.Errorf("cause %v, want the session's end", context.Cause(run))
	}
	var none *Tracker
	if run, release := none.Detach(context.Background()); run.Err() != nil {
		t.Error("a nil tracker's detached context is done")
	} else {
		release()
	}
}
