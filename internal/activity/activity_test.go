package activity

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
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
	want := Failure{Time: clock, Tool: "deep_search", Query: "second", Code: "QUOTA_ERROR", Message: "daily quota", Count: 1}
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
		beginRun(r, "search", "q").End(&Failure{Code: backend.Code(fmt.Sprint(i))})
	}
	f := r.Snapshot().Failures
	if len(f) != MaxFailures || f[0].Code != "14" || f[MaxFailures-1].Code != "5" {
		t.Errorf("failures = %+v, want codes 14 down to 5", f)
	}
}

// A warning about a call that succeeded is kept apart from the failures.
func TestAWarningIsKeptApart(t *testing.T) {
	t.Parallel()
	r := New()
	beginRun(r, "search", "q").End(&Failure{Code: "FIRECRAWL_UNAVAILABLE", Message: "without Firecrawl", Warning: true})
	beginRun(r, "search", "q").End(&Failure{Code: "QUOTA_ERROR"})
	s := r.Snapshot()
	if len(s.Failures) != 1 || s.Failures[0].Code != "QUOTA_ERROR" {
		t.Errorf("failures = %+v, want the quota error alone", s.Failures)
	}
	if w := s.Warnings; len(w) != 1 || !w[0].Warning || w[0].Tool != "search" || w[0].Query != "q" || w[0].Count != 1 {
		t.Errorf("warnings = %+v, want the Firecrawl warning once", w)
	}
	r.ClearFailures()
	if s := r.Snapshot(); len(s.Failures)+len(s.Warnings) != 0 {
		t.Errorf("after Clear: %+v", s)
	}
}

// A warning that comes with every call (Firecrawl down) never pushes a failure out, and is kept once, with the
// number of calls it was about and the newest one's time, tool and query; at most MaxWarnings different ones are
// kept, the oldest going first.
func TestWarningsNeverPushFailuresOut(t *testing.T) {
	t.Parallel()
	r := New()
	clock := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	r.now = func() time.Time { return clock }
	beginRun(r, "search", "failed").End(&Failure{Code: "QUOTA_ERROR"})
	warn := func(query, message string) {
		clock = clock.Add(time.Second)
		beginRun(r, "deep_search", query).End(&Failure{Code: "FIRECRAWL_UNAVAILABLE", Message: message, Warning: true})
	}
	for i := range 3 * MaxFailures {
		warn(fmt.Sprint("q", i), "down: timed out")
	}
	s := r.Snapshot()
	if len(s.Failures) != 1 || s.Failures[0].Code != "QUOTA_ERROR" {
		t.Errorf("failures = %+v, want the quota error kept", s.Failures)
	}
	last := fmt.Sprint("q", 3*MaxFailures-1)
	if w := s.Warnings; len(w) != 1 || w[0].Count != 3*MaxFailures || w[0].Query != last || !w[0].Time.Equal(clock) {
		t.Errorf("warnings = %+v, want one for %d calls, the last %q at %v", w, 3*MaxFailures, last, clock)
	}

	for i := range MaxWarnings + 1 { // other reasons: each a warning of its own, the oldest dropped past MaxWarnings
		warn("other", fmt.Sprint("down: reason ", i))
	}
	warn("again", fmt.Sprint("down: reason ", MaxWarnings)) // the newest again: counted, still first
	w := r.Snapshot().Warnings
	if len(w) != MaxWarnings || w[0].Message != fmt.Sprint("down: reason ", MaxWarnings) || w[0].Count != 2 ||
		w[0].Query != "again" || w[MaxWarnings-1].Message != "down: reason 1" {
		t.Errorf("warnings = %+v, want reasons %d (twice) down to 1", w, MaxWarnings)
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
