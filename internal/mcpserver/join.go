package mcpserver

import (
	"cmp"
	"context"
	"sync"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
)

// joiner lets identical requests that arrive while one is running share its run instead of starting a second
// agent. The shared run lives as long as at least one caller still waits for it.
type joiner struct {
	mu      sync.Mutex
	flights map[string]*flight
}

type flight struct {
	done    chan struct{}
	rep     research.Report
	err     error
	cancel  context.CancelFunc
	waiters int // guarded by joiner.mu

	mu        sync.Mutex // guards the subscribers and the last stage
	subs      map[int]research.Progress
	nextSub   int
	lastStage string
}

// do returns the result of run for key, starting it unless an identical request is already running. progress
// receives the shared run's stages. When every caller has gone, the run is cancelled.
func (j *joiner) do(ctx context.Context, key string, progress research.Progress,
	run func(context.Context, research.Progress) (research.Report, error)) (rep research.Report, joined bool, err error) {
	j.mu.Lock()
	if j.flights == nil {
		j.flights = map[string]*flight{}
	}
	f, joined := j.flights[key]
	if !joined {
		f = &flight{done: make(chan struct{}), subs: map[int]research.Progress{}}
		j.flights[key] = f
	}
	f.waiters++
	sub := f.subscribe(progress, joined)
	if !joined {
		// Detached from this caller: a joiner may outlive it. Values (the MCP session, say) stay.
		runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		f.cancel = cancel
		go func() {
			defer cancel()
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
			f.cancel()
			j.forgetLocked(key, f) // a new identical request must not join a run being cancelled
		}
		j.mu.Unlock()
		return research.Report{}, joined, ctx.Err()
	}
}

func (j *joiner) forget(key string, f *flight) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.forgetLocked(key, f)
}

func (j *joiner) forgetLocked(key string, f *flight) {
	if j.flights[key] == f {
		delete(j.flights, key)
	}
}

// subscribe adds p to the run's progress listeners and tells a joiner the current stage.
func (f *flight) subscribe(p research.Progress, joined bool) int {
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
