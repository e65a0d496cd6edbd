package research

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"
)

// Queue admits at most a limited number of CLI runs at once, first come, first served. One Queue is shared by every
// engine of a server, so the limit holds across configuration reloads.
type Queue struct {
	mu      sync.Mutex
	limit   int
	active  int
	waiting []*waiter
	gen     uint64 // numbers the snapshots of places in line, so an older one is never told after a newer
}

type waiter struct {
	ready    chan struct{} // closed when the waiter got a slot
	position func(int)     // told the waiter's place in line whenever it changes; may be nil

	mu   sync.Mutex
	told uint64 // the snapshot last told
}

// admitted makes sure no place in line is told after the waiter got its slot.
func (w *waiter) admitted() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.told = math.MaxUint64
}

// tell reports place from snapshot gen, unless a newer snapshot was told already.
func (w *waiter) tell(gen uint64, place int) {
	if w.position == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if gen > w.told {
		w.told = gen
		w.position(place)
	}
}

// NewQueue returns a queue admitting limit runs at once (at least one).
func NewQueue(limit int) *Queue {
	return &Queue{limit: max(limit, 1)}
}

// SetLimit changes the number of concurrent runs; waiters are admitted at once when it grows.
func (q *Queue) SetLimit(limit int) {
	q.mu.Lock()
	q.limit = max(limit, 1)
	tell := q.admitLocked()
	q.mu.Unlock()
	tell()
}

// Active returns the number of admitted runs and the number waiting.
func (q *Queue) Active() (running, waiting int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.active, len(q.waiting)
}

// QueueTimeoutError is returned by Acquire when no slot freed up in time.
type QueueTimeoutError struct {
	Waited time.Duration
	// Limit and Variable, when set, are the call's time limit and the variable that sets it, which ran out while
	// the call waited (before GEMINI_QUEUE_TIMEOUT could).
	Limit    time.Duration
	Variable string
}

func (e *QueueTimeoutError) Error() string {
	if e.Variable != "" {
		return fmt.Sprintf("no research slot freed up before the call's time limit of %s (%s) ran out", e.Limit, e.Variable)
	}
	return fmt.Sprintf("no research slot freed up within %s", e.Waited)
}

// Acquire waits for a slot, up to timeout (0: no limit), and returns the function that frees it. position, if not
// nil, is called with the caller's place in line (1 = next) whenever it changes while waiting.
func (q *Queue) Acquire(ctx context.Context, timeout time.Duration, position func(int)) (release func(), err error) {
	q.mu.Lock()
	if q.active < q.limit && len(q.waiting) == 0 {
		q.active++
		q.mu.Unlock()
		return q.releaseFunc(), nil
	}
	w := &waiter{ready: make(chan struct{}), position: position}
	q.waiting = append(q.waiting, w)
	q.gen++
	gen, place := q.gen, len(q.waiting)
	q.mu.Unlock()
	w.tell(gen, place)

	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	select {
	case <-w.ready:
		return q.releaseFunc(), nil
	case <-ctx.Done():
		err = ctx.Err()
	case <-expired:
		err = &QueueTimeoutError{Waited: timeout}
	}
	q.mu.Lock()
	var tell func()
	select {
	case <-w.ready: // admitted while giving up: hand the slot on
		q.active--
		tell = q.admitLocked()
	default:
		q.waiting = slices.DeleteFunc(q.waiting, func(x *waiter) bool { return x == w })
		tell = q.positionsLocked()
	}
	q.mu.Unlock()
	tell()
	return nil, err
}

func (q *Queue) releaseFunc() func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			q.mu.Lock()
			q.active--
			tell := q.admitLocked()
			q.mu.Unlock()
			tell()
		})
	}
}

// admitLocked hands free slots to the longest waiters. It returns the function that tells the others their new
// places, to be called after unlocking: position callbacks may take their own locks or send messages.
func (q *Queue) admitLocked() (tell func()) {
	admitted := 0
	for q.active < q.limit && len(q.waiting) > 0 {
		q.waiting[0].admitted()
		close(q.waiting[0].ready)
		q.waiting = q.waiting[1:]
		q.active++
		admitted++
	}
	if admitted == 0 {
		return func() {}
	}
	return q.positionsLocked()
}

// positionsLocked snapshots every waiter's place in line and returns the function that reports them.
func (q *Queue) positionsLocked() (tell func()) {
	q.gen++
	gen, waiting := q.gen, slices.Clone(q.waiting)
	return func() {
		for i, w := range waiting {
			w.tell(gen, i+1)
		}
	}
}
