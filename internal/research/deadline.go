package research

import (
	"context"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

// A call has one time limit for the whole of it: its wait for a queue slot, its run, the quota fallback's run, JSON
// corrections and deep_search's rounds all share it, so that a user can tell how long a call may take at most:
// GEMINI_SEARCH_TIMEOUT for search, GEMINI_DEEP_SEARCH_TIMEOUT for deep_search, GEMINI_ASK_TIMEOUT for ask and
// structured. It is not the context's deadline: a run that runs out of time must tell its timeout (with what it
// wrote so far) from the caller going away.
type deadline struct {
	at       time.Time
	limit    time.Duration
	variable string // the variable that sets limit
}

type deadlineKey struct{}

// withDeadline starts the deadline of a call, limit (0: none) from now, set by variable.
func withDeadline(ctx context.Context, limit time.Duration, variable string) context.Context {
	if limit <= 0 {
		return ctx
	}
	return context.WithValue(ctx, deadlineKey{}, deadline{at: time.Now().Add(limit), limit: limit, variable: variable})
}

func deadlineOf(ctx context.Context) (deadline, bool) {
	d, ok := ctx.Value(deadlineKey{}).(deadline)
	return d, ok
}

// bound makes req, a run of the call of ctx, end by the call's deadline.
func bound(ctx context.Context, req backend.Request) backend.Request {
	if d, ok := deadlineOf(ctx); ok {
		req.Deadline, req.Timeout, req.TimeoutVar = d.at, d.limit, d.variable
	}
	return req
}

// minRunLeft is the least time left to a call for another run (a fallback, a correction, a round) to start: one
// given less would start a CLI only to stop it.
const minRunLeft = 2 * time.Second

// queueWait is how long the call of ctx may wait for a queue slot: at most wait (0: no limit), and never past the
// call's deadline, in which case byDeadline says so.
func queueWait(ctx context.Context, wait time.Duration) (d time.Duration, byDeadline bool) {
	dl, ok := deadlineOf(ctx)
	if !ok {
		return wait, false
	}
	left := max(time.Until(dl.at), time.Millisecond) // 0 would mean no limit
	if wait == 0 || left < wait {
		return left, true
	}
	return wait, false
}

// timeLeft reports whether the call of ctx has time for another run (a fallback, a correction, a round).
func timeLeft(ctx context.Context) bool {
	d, ok := deadlineOf(ctx)
	return !ok || time.Until(d.at) >= minRunLeft
}
