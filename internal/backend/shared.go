package backend

import (
	"context"
	"fmt"
	"time"
)

// What both backends say in the same situation: a user reads one message and one fix, whichever backend ran.
const (
	MessageDailyQuota     = "The Gemini API daily quota for this model is exhausted (429)."
	MessagePerMinuteQuota = "The Gemini API per-minute rate limit for this model was exceeded (429)."

	HintServer  = "The Gemini API is having trouble; try again in a few minutes."
	HintEmpty   = "Retry, narrow the query, or set GEMINI_MODEL to another model."
	HintTooLong = "Ask for a shorter answer or narrow the query."
	HintModel   = "Check the model name in GEMINI_MODEL (or the call's model argument), e.g. gemini-2.5-flash, " +
		"or an alias: pro, flash, flash-lite."
)

// Timeout is the failure of a run whose own time limit ran out: code is CodeTimeout or CodeAPITimeout; variable
// sets the limit.
func Timeout(code Code, limit time.Duration, variable string, cause error) *Error {
	return &Error{
		Code:     code,
		Message:  fmt.Sprintf("Research exceeded the timeout of %s.", limit),
		Hint:     "Increase " + variable + " or narrow the query.",
		ExitCode: -1,
		Cause:    cause,
	}
}

// WithTimeout is context.WithTimeout for a run's time limit, where 0 means none.
func WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}
