package tools

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
)

// Error is a failed call as its client reads it: a code, what went wrong, and what to do.
type Error struct {
	Code    backend.Code `json:"code"`
	Message string       `json:"message"`
	Details string       `json:"details,omitempty"`

	run *runMeta // how the research run that failed went, for _meta; nil for a call refused before any ran
}

// ErrorBody is the structured content of a failed call.
type ErrorBody struct {
	Success bool  `json:"success"`
	Error   Error `json:"error"`
}

// Error is the error on one line, as a task's status message gives it.
func (e *Error) Error() string {
	if e.Details == "" {
		return string(e.Code) + ": " + e.Message
	}
	return string(e.Code) + ": " + e.Message + " — " + e.Details
}

// CallToolResult is the error result of the call that failed with e.
func (e *Error) CallToolResult() *mcp.CallToolResult {
	res := structured(ErrorBody{Error: *e})
	res.IsError = true
	if e.run != nil {
		res.Meta = e.run.meta()
	}
	return res
}

// ResultError is the error of res, a result of the tools; nil when res is no error result of theirs.
func ResultError(res *mcp.CallToolResult) *Error {
	if body, ok := res.StructuredContent.(ErrorBody); ok && res.IsError {
		return &body.Error
	}
	return nil
}

// AsError is err, a tool's, as the tools report it: the *Error it is, or an internal error.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: backend.CodeInternal, Message: err.Error()}
}

// researchError is the error of a research run made with ctx for model that failed with err after starting at
// start.
func researchError(ctx context.Context, start time.Time, model string, err error) *Error {
	e := &Error{Code: backend.CodeResearchFailed, Message: err.Error()}
	var (
		f       *research.Failure
		stopped *activity.StoppedError
	)
	switch {
	case errors.As(err, &f):
		e = &Error{Code: f.Code, Message: f.Message, Details: f.Details}
	case errors.As(context.Cause(ctx), &stopped): // the app ended the call, not the client
		e = &Error{Code: backend.CodeCancelled, Message: "the search was cancelled before it finished: " + stopped.Why,
			Details: stopped.Fix}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		e = &Error{Code: backend.CodeCancelled, Message: "the search was cancelled before it finished"}
	}
	e.run = &runMeta{durationMS: time.Since(start).Milliseconds(), model: model}
	if f != nil {
		e.run.backend, e.run.backendReason = f.Backend, f.Reason
	}
	return e
}

// invalidArguments is the error of a call of tool whose arguments err finds wrong.
func invalidArguments(tool string, err error) *Error {
	return &Error{Code: backend.CodeInvalidArgument, Message: "invalid arguments for " + tool + ": " + err.Error()}
}

// blankArgument is the error of a call whose argument arg of tool holds nothing but white space.
func blankArgument(tool, arg string) *Error {
	return &Error{Code: backend.CodeInvalidArgument,
		Message: fmt.Sprintf("invalid arguments for %s: %s must contain text, not only white space", tool, arg)}
}
