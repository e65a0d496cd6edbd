package app

import (
	"testing"
	"time"
)

// endCalls waits for the calls' answers, and never past its bound.
func TestAnsweringWaitsForTheAnswers(t *testing.T) {
	t.Parallel()
	var g answering
	g.wait(time.Hour) // nothing in progress: returns at once

	answered := g.begin()
	start := time.Now()
	g.wait(10 * time.Millisecond) // bounded
	if time.Since(start) < 10*time.Millisecond {
		t.Error("wait returned while a call was answering")
	}
	waited := make(chan struct{})
	go func() {
		g.wait(time.Hour)
		close(waited)
	}()
	answered()
	<-waited // returns once the call has answered

	g.begin()() // and counts again after
	g.wait(time.Hour)
}
