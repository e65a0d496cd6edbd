package app

import (
	"testing"
	"time"
)

// The sweeps run in the order they were added, with the sweeper's now; memory is handed back to the OS once the
// stores hold releaseAfter less than at their peak and no call runs, and not again until they do once more.
func TestSweeperHandsMemoryBackOnceTheStoresLetGo(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	busy, released := false, 0
	s := newSweeper(func() bool { return !busy })
	s.release = func() { released++ }
	var order []string
	events, cache := 0, 0
	s.Add(func(at time.Time) int {
		if !at.Equal(now) {
			t.Errorf("swept at %v, want %v", at, now)
		}
		order = append(order, "events")
		return events
	})
	s.Add(func(time.Time) int { order = append(order, "cache"); return cache })

	for _, step := range []struct {
		name          string
		events, cache int
		busy          bool
		want          int // releases so far
	}{
		{"under load", 2 * releaseAfter, 2 * releaseAfter, true, 0},
		{"the events go while a call runs", 0, 2 * releaseAfter, true, 0},
		{"no call runs", 0, 2 * releaseAfter, false, 1},
		{"again: nothing more went", 0, 2 * releaseAfter, false, 1},
		{"a little went", 0, 2*releaseAfter - releaseAfter/2, false, 1},
		{"the cache went", 0, 0, false, 2},
	} {
		events, cache, busy = step.events, step.cache, step.busy
		order = nil
		s.sweep(now)
		if released != step.want {
			t.Errorf("%s: released %d times, want %d", step.name, released, step.want)
		}
		if len(order) != 2 || order[0] != "events" || order[1] != "cache" {
			t.Errorf("%s: swept %v, want events then cache", step.name, order)
		}
	}
}
