package app

import (
	"context"
	"runtime/debug"
	"slices"
	"sync"
	"time"
)

// sweepEvery is how often the stores that keep things for a while (the research cache, the parts of long reports,
// task results, idle sessions and the events of answered streams) drop what is past its time.
const sweepEvery = time.Minute

// releaseAfter is how much less the stores must hold than at their peak since memory was last handed back for a
// sweep to hand it back to the OS at once (when no call runs): else the runtime takes two of its collections,
// about four minutes after the load, to do it.
const releaseAfter = 4 << 20

// sweeper runs the sweeps of the stores every sweepEvery (tools.Sweeper), so that what they keep goes when the
// traffic stops too, not only when new traffic comes, and hands the memory freed back to the OS.
type sweeper struct {
	idle    func() bool // no call runs
	release func()      // hands the memory freed back: debug.FreeOSMemory

	mu     sync.Mutex
	sweeps []func(now time.Time) (held int)
	peak   int // the most the stores held, at the end of a sweep, since memory was last handed back
}

func newSweeper(idle func() bool) *sweeper {
	return &sweeper{idle: idle, release: debug.FreeOSMemory}
}

// Add adds a store's sweep, which drops what is past its time at now and returns the bytes the store still holds.
func (s *sweeper) Add(sweep func(now time.Time) (held int)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweeps = append(s.sweeps, sweep)
}

// run sweeps every sweepEvery until ctx ends.
func (s *sweeper) run(ctx context.Context) {
	t := time.NewTicker(sweepEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			s.sweep(now)
		}
	}
}

// sweep runs every sweep at now, in the order they were added, and hands the memory back to the OS once the stores
// hold releaseAfter less than at their peak and no call runs.
func (s *sweeper) sweep(now time.Time) {
	s.mu.Lock()
	sweeps := slices.Clone(s.sweeps)
	s.mu.Unlock()
	held := 0
	for _, sweep := range sweeps {
		held += sweep(now)
	}
	s.mu.Lock()
	s.peak = max(s.peak, held)
	release := s.peak-held >= releaseAfter && s.idle()
	if release {
		s.peak = held
	}
	s.mu.Unlock()
	if release {
		s.release()
	}
}
