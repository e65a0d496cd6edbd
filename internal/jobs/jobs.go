// Package jobs runs research calls as jobs that outlive the calls that started them. Real clients cut a tool call
// at about 60 s while deep research takes minutes: a job runs to its own end (its deadline, a cancel, the server's
// shutdown) whether or not anyone waits, and any call that knows its id can wait on it again. It knows nothing of
// MCP: the tools start jobs and wait on them.
package jobs

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/expiring"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
)

// Finished jobs are kept for Kept after they end, and at most maxKeptBytes of their results (by the sizes the
// Registry is given) and maxKept of them, the oldest going first: long enough for a client that timed out to come
// back for its answer.
const (
	Kept         = 30 * time.Minute
	maxKeptBytes = 8 << 20
	maxKept      = 500
)

// Job is one research call running, or its outcome: R is its result.
type Job[R any] struct {
	ID      string
	Tool    string // the tool that started it
	Topic   string // what it is about: the query, topic or prompt
	Started time.Time

	ctx    context.Context // its run's
	cancel context.CancelCauseFunc
	done   chan struct{} // closed once res and err are set

	mu        sync.Mutex
	stage     string
	draft     string // what the job has made so far, that stands: the last complete round's report
	followers map[int]func(stage string)
	next      int // the key of the next follower
	res       R
	err       error
	ended     time.Time
}

// Stage is what the job is doing now ("searching: …").
func (j *Job[R]) Stage() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.stage
}

// Draft is what the job has made so far that stands, in Markdown (SetDraft); "" for nothing yet.
func (j *Job[R]) Draft() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.draft
}

// SetDraft records draft as what the job has made so far that stands, in place of the one before: what a caller
// that stops waiting can show before the job's result.
func (j *Job[R]) SetDraft(draft string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.draft = draft
}

// SetStage records what the job is doing now and tells each follower, in order.
func (j *Job[R]) SetStage(stage string) {
	j.mu.Lock()
	defer j.mu.Unlock() // held while the followers are told, so that each hears the stages in order
	j.stage = stage
	for _, f := range j.followers {
		f(stage)
	}
}

// Follow has f told of the job's stage now, then of every stage it sets, until stop is called: a follower that
// comes late, or a stage set before the follower came, loses nothing but stages already past. f must not block:
// the job's run waits for it.
func (j *Job[R]) Follow(f func(stage string)) (stop func()) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.followers == nil {
		j.followers = map[int]func(string){}
	}
	key := j.next
	j.next++
	j.followers[key] = f
	f(j.stage)
	return func() {
		j.mu.Lock()
		defer j.mu.Unlock()
		delete(j.followers, key)
	}
}

// Done is closed when the job has ended.
func (j *Job[R]) Done() <-chan struct{} { return j.done }

// Outcome is the job's result and error, once Done is closed.
func (j *Job[R]) Outcome() (R, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.res, j.err
}

// Cancel ends the job, with cause as its context's cause; a job that has ended stays as it ended.
func (j *Job[R]) Cancel(cause error) { j.cancel(cause) }

// Cause is why the job's run was cancelled (Cancel's cause, the registry's lifetime's), or nil while it was not.
func (j *Job[R]) Cause() error { return context.Cause(j.ctx) }

// Registry holds the jobs of one server: the running ones, and the finished ones for Kept.
type Registry[R any] struct {
	lifetime context.Context // ends at the server's shutdown, and every job with it
	opts     Options[R]
	now      func() time.Time

	wg       sync.WaitGroup // the runs of the jobs started
	mu       sync.Mutex
	running  map[string]*Job[R]
	finished *expiring.Map[string, *Job[R]]
}

// Options configure a Registry.
type Options[R any] struct {
	Size       func(R) int // about how many bytes a result holds, for the bound on the finished jobs kept
	MaxRunning int         // how many jobs may run at once; 0: no bound
	// Ended, when set, is told how each job ended (its error; nil: done), on the job's goroutine, before Done is
	// closed: a run that panicked included.
	Ended func(j *Job[R], err error)
}

// ErrFull is Start's error when Options.MaxRunning jobs run already.
var ErrFull = errors.New("the most research jobs this server runs at once are running")

// ErrHeld is StartAs's error for an id this registry holds a job of.
var ErrHeld = errors.New("a research job with this id is held already")

// New returns a registry whose jobs end at the latest when lifetime does.
func New[R any](lifetime context.Context, o Options[R]) *Registry[R] {
	return &Registry[R]{lifetime: lifetime, opts: o, now: time.Now, running: map[string]*Job[R]{},
		finished: expiring.New[string, *Job[R]](Kept, maxKeptBytes, maxKept)}
}

// Start runs run as a new job of tool about topic, on a goroutine of its own, and returns it at once; ErrFull when
// Options.MaxRunning jobs run already. The job's context keeps ctx's values but not its end: it ends with the
// server (lifetime), with Cancel, or with run.
func (r *Registry[R]) Start(ctx context.Context, tool, topic string, run func(context.Context, *Job[R]) (R, error)) (*Job[R], error) {
	return r.StartAs(ctx, record.NewJobID(), r.now(), tool, topic, run)
}

// StartAs starts a job as Start does, with id, started then: a job a server that stopped began, which this one
// takes on. ErrHeld when a job with id is held already.
func (r *Registry[R]) StartAs(ctx context.Context, id string, started time.Time, tool, topic string,
	run func(context.Context, *Job[R]) (R, error)) (*Job[R], error) {
	r.mu.Lock()
	if r.opts.MaxRunning > 0 && len(r.running) >= r.opts.MaxRunning {
		r.mu.Unlock()
		return nil, ErrFull
	}
	if _, _, done := r.finished.Get(id, r.now()); done || r.running[id] != nil {
		r.mu.Unlock()
		return nil, ErrHeld
	}
	jobCtx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	stop := context.AfterFunc(r.lifetime, func() { cancel(context.Cause(r.lifetime)) })
	j := &Job[R]{ID: id, Tool: tool, Topic: topic, Started: started, ctx: jobCtx, cancel: cancel,
		done: make(chan struct{}), stage: "starting"}
	r.running[j.ID] = j
	r.mu.Unlock()
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer stop()
		res, err := runRecovered(jobCtx, j, run)
		cancel(context.Canceled)
		if r.opts.Ended != nil {
			r.opts.Ended(j, err)
		}
		j.mu.Lock()
		j.res, j.err, j.ended = res, err, r.now()
		j.draft = "" // the result stands now; a finished job is kept by its result's size alone
		j.mu.Unlock()
		r.mu.Lock()
		delete(r.running, j.ID)
		size := 0
		if r.opts.Size != nil {
			size = r.opts.Size(res)
		}
		r.finished.Put(j.ID, j, size, j.ended)
		r.mu.Unlock()
		close(j.done)
	}()
	return j, nil
}

// runRecovered runs run, turning a panic in it into its error: a job runs on a goroutine of its own, where a panic
// would end the whole server.
func runRecovered[R any](ctx context.Context, j *Job[R], run func(context.Context, *Job[R]) (R, error)) (res R, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the research failed unexpectedly: %v", p)
		}
	}()
	return run(ctx, j)
}

// Wait waits until every job started has ended, or ctx ends.
func (r *Registry[R]) Wait(ctx context.Context) {
	done := make(chan struct{})
	go func() {
		r.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// Get is the job id, running or finished within Kept; nil for none.
func (r *Registry[R]) Get(id string) *Job[R] {
	r.mu.Lock()
	defer r.mu.Unlock()
	if j := r.running[id]; j != nil {
		return j
	}
	j, _, _ := r.finished.Get(id, r.now())
	return j
}

// Running is the jobs running now.
func (r *Registry[R]) Running() []*Job[R] {
	r.mu.Lock()
	defer r.mu.Unlock()
	jobs := make([]*Job[R], 0, len(r.running))
	for _, j := range r.running {
		jobs = append(jobs, j)
	}
	return jobs
}

// Sweep drops the finished jobs whose time is over at now and returns the bytes of results still kept.
func (r *Registry[R]) Sweep(now time.Time) (held int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.finished.Expire(now)
}

// Wait waits until the job ends, ctx ends or budget passes, whichever comes first (a negative budget: no bound),
// and reports whether the job has ended.
func (j *Job[R]) Wait(ctx context.Context, budget time.Duration) bool {
	var timeout <-chan time.Time
	if budget >= 0 {
		t := time.NewTimer(budget)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-j.done:
		return true
	case <-ctx.Done():
	case <-timeout:
	}
	select { // a job that ended as the wait did counts as ended
	case <-j.done:
		return true
	default:
		return false
	}
}
