package broadcast

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

func TestNotifyWakesEveryWaiterOnce(t *testing.T) {
	t.Parallel()
	var s Signal
	a, b := s.Changed(), s.Changed()
	s.Notify()
	for _, ch := range []<-chan struct{}{a, b} {
		select {
		case <-ch:
		default:
			t.Fatal("a waiter was not woken")
		}
	}
	next := s.Changed()
	select {
	case <-next:
		t.Fatal("the channel taken after Notify is closed already")
	default:
	}
	s.Notify()
	<-next
}

// TestFollowLosesNoChange: a change of a source that lands while Follow passes the previous one on must still
// reach the views. The source here changes once more exactly while Follow asks it for its next channel, after
// the view has already looked (if Follow notified first) or not at all (if it asks first).
func TestFollowLosesNoChange(t *testing.T) {
	t.Parallel()
	var views, src Signal
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
			src.Notify()
		}
		return src.Changed()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	view := views.Changed()
	views.Follow(ctx, changed)
	<-firstCall
	version.Store(1)
	src.Notify()

	// The view: on each notification it takes the next channel, then looks at the source.
	deadline := time.After(testkit.WaitLimit)
	shown := int32(0)
	for shown != 2 {
		select {
		case <-view:
		case <-deadline:
			t.Fatalf("the view shows version %d, want 2: a change of the source was not passed on", shown)
		}
		view = views.Changed()
		shown = version.Load()
		lookedOnce.Do(func() { close(looked) })
	}
}

// TestFollowTakesTheFirstChangeAtOnce: a change of the source right after Follow returns reaches the views; Follow
// does not wait for its goroutine to start listening.
func TestFollowTakesTheFirstChangeAtOnce(t *testing.T) {
	t.Parallel()
	var views, src Signal
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	view := views.Changed()
	views.Follow(ctx, src.Changed)
	src.Notify()
	select {
	case <-view:
	case <-time.After(testkit.WaitLimit):
		t.Fatal("a change right after Follow returned was not passed on")
	}
}
