package research

import (
	"cmp"
	"context"
	"encoding/json"
	"strings"
	"sync"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

// Joins lets identical requests that arrive while one is running share its run instead of starting a second
// agent. The shared run lives as long as at least one caller still waits for it. Like the Queue, one Joins is
// shared by every engine of a server, so a request joins an identical one started before a configuration change.
// The zero value is ready to use.
type Joins struct {
	mu      sync.Mutex
	flights map[string]*flight
}

type flight struct {
	done    chan struct{}
	rep     Report
	err     error
	cancel  context.CancelCauseFunc
	waiters int // guarded by Joins.mu

	mu        sync.Mutex // guards the subscribers and the last stage
	subs      map[int]Progress
	nextSub   int
	lastStage string
}

// do returns the result of run for key, starting it unless an identical request is already running. progress
// receives the shared run's stages. When every caller has gone, the run is cancelled, with the last one's cause
// (the server stopping, say).
func (j *Joins) do(ctx context.Context, key string, progress Progress,
	run func(context.Context, Progress) (Report, error)) (rep Report, joined bool, err error) {
	j.mu.Lock()
	if j.flights == nil {
		j.flights = map[string]*flight{}
	}
	f, joined := j.flights[key]
	if !joined {
		f = &flight{done: make(chan struct{}), subs: map[int]Progress{}}
		j.flights[key] = f
	}
	f.waiters++
	sub := f.subscribe(progress, joined)
	if !joined {
		// Detached from this caller: a joiner may outlive it. Values (the MCP session, say) stay.
		runCtx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
		f.cancel = cancel
		go func() {
			defer cancel(nil)
			f.rep, f.err = run(runCtx, f.broadcast)
			j.forget(key, f)
			close(f.done)
		}()
	}
	j.mu.Unlock()

	select {
	case <-f.done:
		return f.rep, joined, f.err
	case <-ctx.Done():
		f.unsubscribe(sub)
		j.mu.Lock()
		if f.waiters--; f.waiters == 0 {
			f.cancel(context.Cause(ctx))
			j.forgetLocked(key, f) // a new identical request must not join a run being cancelled
		}
		j.mu.Unlock()
		return Report{}, joined, ctx.Err()
	}
}

func (j *Joins) forget(key string, f *flight) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.forgetLocked(key, f)
}

func (j *Joins) forgetLocked(key string, f *flight) {
	if j.flights[key] == f {
		delete(j.flights, key)
	}
}

// subscribe adds p to the run's progress listeners and tells a joiner the current stage.
func (f *flight) subscribe(p Progress, joined bool) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextSub++
	f.subs[f.nextSub] = p
	if joined && p != nil {
		p("joined an identical request already running: " + cmp.Or(f.lastStage, "starting"))
	}
	return f.nextSub
}

func (f *flight) unsubscribe(id int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.subs, id)
}

func (f *flight) broadcast(stage string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lastStage = stage
	for _, p := range f.subs {
		if p != nil {
			p(stage)
		}
	}
}

// joined answers the request identified by key (with the backend in force) from the cache unless fresh is set,
// else joins the identical one already running, else runs run; a complete report is cached. Requests that differ
// only in case and spacing of their text are identical.
func (e *Engine) joined(ctx context.Context, key []string, fresh bool, progress Progress,
	run func(context.Context, Progress) (Report, error)) (Report, error) {
	return e.answered(ctx, key, fresh, progress, run, true)
}

// cachedOnly answers as joined does, but never joins an identical request running: for a run of Google's agent,
// which each request's job keeps to follow it on after a restart.
func (e *Engine) cachedOnly(ctx context.Context, key []string, fresh bool, progress Progress,
	run func(context.Context, Progress) (Report, error)) (Report, error) {
	return e.answered(ctx, key, fresh, progress, run, false)
}

func (e *Engine) answered(ctx context.Context, key []string, fresh bool, progress Progress,
	run func(context.Context, Progress) (Report, error), join bool) (Report, error) {
	run = e.counted(key[0], run)
	k, _ := json.Marshal(append(key, e.settings.Backend))
	if c := e.settings.Cache; c != nil && !fresh {
		if rep, ok := c.get(string(k)); ok {
			e.log.Info("answered from the cache", "request", key[0], "age_ms", *rep.Metadata.CacheAgeMS)
			return rep, nil
		}
	}
	if e.settings.Joins == nil || !join {
		rep, err := run(ctx, progress)
		return e.kept(string(k), rep, err)
	}
	rep, joined, err := e.settings.Joins.do(ctx, string(k), progress, run)
	if joined {
		e.log.Info("joined an identical request already running", "request", key[0])
	}
	return e.kept(string(k), rep, err)
}

// counted is run, telling Settings.Used what the call spent over all its runs (spending), failed ones too, and
// giving a report that as its usage: once a run, however many identical requests joined it, and never for an
// answer from the cache. Each of its runs asks Settings.Admit first (admit).
func (e *Engine) counted(tool string, run func(context.Context, Progress) (Report, error)) func(context.Context, Progress) (Report, error) {
	return func(ctx context.Context, p Progress) (Report, error) {
		ctx, spending := withSpending(ctx, tool)
		rep, err := run(ctx, p)
		spent := spending.so()
		if err == nil {
			rep.Metadata.Usage = total(spent)
		}
		for _, sp := range spent {
			if e.settings.Used != nil {
				e.settings.Used(sp)
			}
		}
		return rep, err
	}
}

// admit asks Settings.Admit whether the call of ctx may make another run (a *Failure when it may not), given what
// it spent so far: a deep_search's rounds and a search's corrections are held to the limits as they go.
func (e *Engine) admit(ctx context.Context) error {
	s := spendingOf(ctx)
	if e.settings.Admit == nil || s == nil {
		return nil
	}
	var so backend.Usage
	if sum := total(s.so()); sum != nil {
		so = *sum
	}
	return e.settings.Admit(s.tool, so)
}

// kept puts a finished report in the cache, if there is one, and passes it on.
func (e *Engine) kept(key string, rep Report, err error) (Report, error) {
	if c := e.settings.Cache; c != nil && err == nil {
		c.put(key, rep)
	}
	return rep, err
}

// normalize makes requests that differ only in case and spacing identical, for joining.
func normalize(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}
