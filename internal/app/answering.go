package app

import (
	"net/http"
	"sync"
	"time"
)

// answering counts the HTTP requests in progress that will answer a call, so that EndCalls can wait for the answers
// of the calls it cancelled. GET requests are left out: they are listening streams, which answer no call and end
// only with the server. The zero value is ready.
type answering struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed when n drops to 0; nil while none was ever made
}

// count has h's requests counted.
func (g *answering) count(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			h.ServeHTTP(w, r)
			return
		}
		g.add(1)
		defer g.add(-1)
		h.ServeHTTP(w, r)
	})
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
