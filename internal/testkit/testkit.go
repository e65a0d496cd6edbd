// Package testkit holds the small helpers the tests of several packages share.
package testkit

import (
	"bytes"
	"sync"
	"testing"
	"time"
)

// WaitLimit is how long WaitFor waits.
const WaitLimit = 10 * time.Second

// WaitFor polls cond until it holds, and fails the test naming what it waited for after WaitLimit.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(WaitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", WaitLimit, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// SyncBuffer is a bytes.Buffer that a process's output (or a logger) and the test can share.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
