// Package activity records what the server is doing: the research runs in progress, with their stage, the most
// recent failures, and, apart from them, the warnings about results. The tray menu, the /status page and the logs are
// views of one Registry.
package activity

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/broadcast"
)

// MaxFailures is how many recent failures a Registry keeps. Warnings are kept apart, so that a warning that comes
// with every call (Firecrawl down) never pushes a failure out.
const MaxFailures = 10

// MaxWarnings is how many different warnings a Registry keeps: one like a kept warning (the same Code and Message)
// is counted in it, not kept again.
const MaxWarnings = 3

// Run is a tool call in progress.
type Run struct {
	ID       uint64
	Tool     string
	Query    string
	Stage    string
	Started  time.Time
	Research string // the research job the call runs as, whose id research_result takes; "" for none
}

// Elapsed is how long the run has been going at now, as mm:ss (minutes keep counting past 59), as the menu and the
// status page show it.
func (r Run) Elapsed(now time.Time) string {
	s := int(max(now.Sub(r.Started), 0) / time.Second)
	return fmt.Sprintf("%02d:%02d", s/60, s%60)
}

// Failure is a tool call that ended in an error, or, as a Warning, one that succeeded with something its user
// should know (its research went without Firecrawl, which did not start).
type Failure struct {
	Time    time.Time
	Tool    string
	Query   string // what the call was about (its query, topic or prompt); "" for a failure of the app itself
	Code    backend.Code
	Message string
	Details string // the fix, in words: the details the tool returned
	Warning bool   // the call succeeded: this is a warning about its result, not a failure
	// Count is how many calls a warning was about: its repeats since it was first kept, the newest giving Time,
	// Tool and Query. 1 for a failure.
	Count int
}

// Snapshot is the registry's state at one moment.
type Snapshot struct {
	Running  []Run     // oldest first
	Failures []Failure // newest first; no warnings
	Warnings []Failure // calls that succeeded with something to know, which no view counts as failed; newest first
}

// Registry is safe for concurrent use. The zero value is not usable; call New.
type Registry struct {
	mu       sync.Mutex
	nextID   uint64
	runs     map[uint64]*Run
	cancels  map[uint64]cancelable // each run's, for CancelAll and CancelSession
	failures []Failure             // newest first
	warnings []Failure             // newest first, each with its repeats counted
	changed  broadcast.Signal
	now      func() time.Time
}

// New returns an empty registry.
func New() *Registry {
	return &Registry{runs: map[uint64]*Run{}, cancels: map[uint64]cancelable{}, now: time.Now}
}

// cancelable is how a run in progress is cancelled, and the MCP session that made the call ("" for none).
type cancelable struct {
	cancel  context.CancelCauseFunc
	session string
}

// Begin records the start of a tool call made with ctx by the MCP session session ("" for none). The call is to run
// with the returned context, which carries the Tracker (TrackerFrom) and is cancelled by CancelAll and by
// CancelSession of its session; the caller must call End on the Tracker.
func (r *Registry) Begin(ctx context.Context, session, tool, query string) (context.Context, *Tracker) {
	ctx, cancel := context.WithCancelCause(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.nextID++
	r.runs[r.nextID] = &Run{ID: r.nextID, Tool: tool, Query: query, Stage: "starting", Started: r.now()}
	r.cancels[r.nextID] = cancelable{cancel, session}
	r.notifyLocked()
	t := &Tracker{r: r, id: r.nextID}
	return context.WithValue(ctx, trackerKey{}, t), t
}

// StoppedError is why the app itself cancelled the calls in progress (CancelAll): "the server was stopped from the
// tray menu", and what the client can do. It is the cause of their contexts (context.Cause), so that their clients
// learn both.
type StoppedError struct {
	Why, Fix string
	Cause    error // what stopped it, when it says more (backend.ErrServerStopping); nil: nothing more
}

func (e *StoppedError) Error() string { return e.Why }

// Unwrap is the cause, if any.
func (e *StoppedError) Unwrap() error { return e.Cause }

// Is makes a StoppedError a context.Canceled, which is what it is to the code that ends a run.
func (e *StoppedError) Is(target error) bool { return target == context.Canceled }

// CancelAll cancels every call in progress, with a *StoppedError saying why and the fix as the cause.
func (r *Registry) CancelAll(why, fix string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.cancels {
		c.cancel(&StoppedError{Why: why, Fix: fix})
	}
}

// CancelSession cancels the calls in progress of the MCP session session, with a *StoppedError saying why and the
// fix as the cause: the session ended, and nobody is left to read their answers.
func (r *Registry) CancelSession(session, why, fix string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.cancels {
		if c.session == session {
			c.cancel(&StoppedError{Why: why, Fix: fix})
		}
	}
}

// Working reports whether the MCP session session has a call in progress: a request, or the run of a task call,
// which outlives its request.
func (r *Registry) Working(session string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.cancels {
		if c.session == session {
			return true
		}
	}
	return false
}

// Snapshot returns a copy of the current state.
func (r *Registry) Snapshot() Snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := Snapshot{Failures: slices.Clone(r.failures), Warnings: slices.Clone(r.warnings)}
	for _, run := range r.runs {
		s.Running = append(s.Running, *run)
	}
	slices.SortFunc(s.Running, func(a, b Run) int { return cmp.Compare(a.ID, b.ID) })
	return s
}

// Record adds a failure (or warning) that is not a tool call's (a settings file that does not parse, say) to the
// recent ones.
func (r *Registry) Record(f Failure) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recordLocked(f)
	r.notifyLocked()
}

// recordLocked stamps f and keeps it as the newest of at most MaxFailures failures, or, a warning, of at most
// MaxWarnings warnings, a warning like a kept one taking its place with one more call counted.
func (r *Registry) recordLocked(f Failure) {
	f.Time, f.Count = r.now(), 1
	if !f.Warning {
		r.failures = newest(r.failures, f, MaxFailures)
		return
	}
	if i := slices.IndexFunc(r.warnings, func(w Failure) bool { return w.Code == f.Code && w.Message == f.Message }); i >= 0 {
		f.Count += r.warnings[i].Count
		r.warnings = slices.Delete(r.warnings, i, i+1)
	}
	r.warnings = newest(r.warnings, f, MaxWarnings)
}

// newest puts f first in list and keeps at most n.
func newest(list []Failure, f Failure, n int) []Failure {
	list = slices.Insert(list, 0, f)
	return list[:min(len(list), n)]
}

// ClearFailures forgets the recorded failures and warnings.
func (r *Registry) ClearFailures() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures, r.warnings = nil, nil
	r.notifyLocked()
}

// Changed returns a channel that is closed at the next change, for views that redraw on change.
func (r *Registry) Changed() <-chan struct{} { return r.changed.Changed() }

func (r *Registry) notifyLocked() { r.changed.Notify() }

// Tracker updates one run. A nil *Tracker ignores every call, so code paths without a registry need no checks.
type Tracker struct {
	r    *Registry
	id   uint64
	once sync.Once
}

// Stage sets the run's current stage, e.g. "searching: rust 2024".
func (t *Tracker) Stage(stage string) { t.update(func(run *Run) { run.Stage = stage }) }

// Research names the research job the run is, so that its id shows where the run does.
func (t *Tracker) Research(id string) { t.update(func(run *Run) { run.Research = id }) }

// update changes the run, while it runs, and tells the views.
func (t *Tracker) update(change func(*Run)) {
	if t == nil {
		return
	}
	t.r.mu.Lock()
	defer t.r.mu.Unlock()
	if run, ok := t.r.runs[t.id]; ok {
		change(run)
		t.r.notifyLocked()
	}
}

// End removes the run; a non-nil failure is recorded among the recent failures, a warning among the warnings
// (Tool, Query, Time and Count are filled in). Calls after the first do nothing.
func (t *Tracker) End(f *Failure) {
	if t == nil {
		return
	}
	t.once.Do(func() {
		t.r.mu.Lock()
		defer t.r.mu.Unlock()
		run := t.r.runs[t.id]
		delete(t.r.runs, t.id)
		t.r.cancels[t.id].cancel(nil) // releases the context's resources; the call is over
		delete(t.r.cancels, t.id)
		if f != nil {
			rec := *f
			rec.Tool, rec.Query = run.Tool, run.Query
			t.r.recordLocked(rec)
		}
		t.r.notifyLocked()
	})
}

// Detach returns the context the rest of the run goes on with when it outlives ctx, its call's (an MCP task's run
// outlives its request): it keeps ctx's values, no longer ends with ctx, but still with CancelAll and
// CancelSession; the returned func releases it. A nil Tracker detaches from ctx alone.
func (t *Tracker) Detach(ctx context.Context) (context.Context, context.CancelFunc) {
	runCtx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	if t != nil {
		t.r.mu.Lock()
		if c, ok := t.r.cancels[t.id]; ok {
			t.r.cancels[t.id] = cancelable{cancel, c.session}
		}
		t.r.mu.Unlock()
	}
	return runCtx, func() { cancel(nil) }
}

type trackerKey struct{}

// TrackerFrom returns the context's Tracker, or nil.
func TrackerFrom(ctx context.Context) *Tracker {
	t, _ := ctx.Value(trackerKey{}).(*Tracker)
	return t
}
