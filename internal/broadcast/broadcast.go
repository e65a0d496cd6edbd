// Package broadcast tells any number of waiters that something changed: the activity registry, the HTTP server
// and the tray's views all use one Signal type for it.
package broadcast

import (
	"context"
	"sync"
)

// Signal broadcasts "something changed": Changed returns a channel that the next Notify closes. A waiter takes
// the channel before it looks at the state, so a change after the look closes the channel it waits on. The zero
// value is ready to use; a Signal is safe for concurrent use and must not be copied.
type Signal struct {
	mu sync.Mutex
	ch chan struct{}
}

// Changed returns a channel that is closed at the next Notify.
func (s *Signal) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch == nil {
		s.ch = make(chan struct{})
	}
	return s.ch
}

// Notify wakes every waiter of the channels Changed has returned so far.
func (s *Signal) Notify() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch != nil {
		close(s.ch)
		s.ch = nil // the next Changed makes a new channel
	}
}

// Follow notifies s at each change of a source (its Changed func) until ctx ends, from a goroutine of its own. It
// takes the source's first channel before it returns, so a change right after the call is passed on too; and it
// takes the source's next channel before notifying, so a change that lands while s's waiters look is passed on
// rather than slipping between the notification and the next wait.
func (s *Signal) Follow(ctx context.Context, changed func() <-chan struct{}) {
	ch := changed()
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-ch:
				ch = changed()
				s.Notify()
			}
		}
	}()
}
