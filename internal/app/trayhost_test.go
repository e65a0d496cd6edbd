package app

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestForwardLosesNoChange: a change of a source that lands while forward passes the previous one on must still
// reach the views. The source here changes once more exactly while forward asks it for its next channel, after
// the view has already looked (if forward notified first) or not at all (if it asks first).
func TestForwardLosesNoChange(t *testing.T) {
	t.Parallel()
	h := &trayHost{}
	h.changes.ch = make(chan struct{})

	var src notifier
	src.ch = make(chan struct{})
	var version atomic.Int32 // what the source shows
	looked := make(chan struct{})
	var lookedOnce sync.Once
	var calls atomic.Int32
	firstCall := make(chan struct{})
	changed := func() <-chan struct{} {
		switch calls.Add(1) {
		case 1:
			close(firstCall)
		case 2:
			// The second change lands now: after the view looked, if it was told of the first one already.
			select {
			case <-looked:
			case <-time.After(200 * time.Millisecond):
			}
			version.Store(2)
			src.notify()
		}
		return src.wait()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	view := h.Changed()
	go h.forward(ctx, changed)
	<-firstCall
	version.Store(1)
	src.notify()

	// The view: on each notification it takes the next channel, then looks at the source.
	deadline := time.After(5 * time.Second)
	shown := int32(0)
	for shown != 2 {
		select {
		case <-view:
		case <-deadline:
			t.Fatalf("the view shows version %d, want 2: a change of the source was not passed on", shown)
		}
		view = h.Changed()
		shown = version.Load()
		lookedOnce.Do(func() { close(looked) })
	}
}
