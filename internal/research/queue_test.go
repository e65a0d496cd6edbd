package research

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

func TestQueueIsFIFOAndBounded(t *testing.T) {
	t.Parallel()
	q := NewQueue(1)
	first, err := q.Acquire(context.Background(), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu        sync.Mutex
		order     []int
		positions = map[int][]int{}
	)
	var wg sync.WaitGroup
	for i := 1; i <= 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			release, err := q.Acquire(context.Background(), 0, func(p int) {
				mu.Lock()
				positions[i] = append(positions[i], p)
				mu.Unlock()
			})
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			release()
		}()
		testkit.WaitFor(t, "the queue", func() bool { _, w := q.Active(); return w == i }) // enqueue in a known order
	}
	first()
	wg.Wait()
	if len(order) != 3 || order[0] != 1 || order[1] != 2 || order[2] != 3 {
		t.Errorf("admitted in order %v, want [1 2 3]", order)
	}
	if got := positions[3]; len(got) == 0 || got[0] != 3 || got[len(got)-1] != 1 {
		t.Errorf("third waiter saw positions %v, want 3 down to 1", got)
	}
	if r, w := q.Active(); r != 0 || w != 0 {
		t.Errorf("after all: %d running, %d waiting", r, w)
	}
}

func TestQueueTimeoutAndCancel(t *testing.T) {
	t.Parallel()
	q := NewQueue(1)
	release, _ := q.Acquire(context.Background(), 0, nil)
	defer release()

	_, err := q.Acquire(context.Background(), 50*time.Millisecond, nil)
	var qt *QueueTimeoutError
	if !errors.As(err, &qt) {
		t.Errorf("err = %v, want a QueueTimeoutError", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := q.Acquire(ctx, 0, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if _, w := q.Active(); w != 0 {
		t.Errorf("%d waiters left behind", w)
	}
}

func TestQueueSetLimitAdmitsWaiters(t *testing.T) {
	t.Parallel()
	q := NewQueue(1)
	release, _ := q.Acquire(context.Background(), 0, nil)
	defer release()
	got := make(chan func(), 1)
	go func() {
		r, _ := q.Acquire(context.Background(), 0, nil)
		got <- r
	}()
	testkit.WaitFor(t, "the queue", func() bool { _, w := q.Active(); return w == 1 })
	q.SetLimit(2)
	select {
	case r := <-got:
		r()
	case <-time.After(testkit.WaitLimit):
		t.Fatal("raising the limit did not admit the waiter")
	}
}
