package app

import (
	"sync"
	"time"
)

// answering counts the HTTP requests in progress that call a tool (mcpserver.HTTPOptions.Answering), so that
// endCalls can wait for the answers of the calls it cancelled. The zero value is ready.
type answering struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed when n drops to 0; nil while none was ever made
}

// begin counts one request until the returned func is called, once it has answered.
func (g *answering) begin() (answered func()) {
	g.add(1)
	return func() { g.add(-1) }
}

func (g *answering) add(d int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.n == 0 && d > 0 {
		g.idle = make(chan struct{})
	}
	if g.n += d; g.n == 0 {
		close(g.idle)
	}
}

// wait returns once no counted request is in progress, or after at most d.
func (g *answering) wait(d time.Duration) {
	g.mu.Lock()
	idle := g.idle
	busy := g.n > 0
	g.mu.Unlock()
	if !busy {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
	}
}
