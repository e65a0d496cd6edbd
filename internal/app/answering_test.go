package app

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// EndCalls waits for the calls' answers, not for the listening streams, and never past its bound.
func TestAnsweringWaitsForCallsOnly(t *testing.T) {
	t.Parallel()
	var g answering
	release := make(chan struct{})
	h := g.count(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }))
	g.wait(time.Hour) // nothing in progress: returns at once

	get := make(chan struct{})
	go func() {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/mcp", nil))
		close(get)
	}()
	g.wait(time.Hour) // a listening stream is not waited for

	post := make(chan struct{})
	go func() {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/mcp", nil))
		close(post)
	}()
	for {
		g.mu.Lock()
		n := g.n
		g.mu.Unlock()
		if n == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
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
	close(release)
	<-post
	<-get
	<-waited // returns once the call has answered
}
