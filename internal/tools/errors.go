package tools

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
)

// Error codes the MCP layer adds to the engine's.
const (
	CodeInvalidArgument = "INVALID_ARGUMENT"
	CodeCancelled       = "CANCELLED"
	CodeChunkNotFound   = "CHUNK_NOT_FOUND"
	CodeResultDropped   = "RESULT_DROPPED" // tasks/result of a task whose result is no longer kept
)

// ErrorBody is the structured content of a failed call.
type ErrorBody struct {
	Success bool  `json:"success"`
	Error   Error `json:"error"`
}

// Error is a failed call as its client reads it: a code, what went wrong, and what to do.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Details string `json:"details,omitempty"`
}

// String is the error on one line, as a task's status message gives it.
func (e Error) String() string {
	if e.Details == "" {
		return e.Code + ": " + e.Message
	}
	return e.Code + ": " + e.Message + " — " + e.Details
}

// ErrorOf is the error of res, an error result of ours.
func ErrorOf(res *mcp.CallToolResult) Error {
	var body ErrorBody
	if b, err := json.Marshal(res.StructuredContent); err == nil {
		_ = json.Unmarshal(b, &body)
	}
	return body.Error
}

// errorResult is the result of a call made with ctx that failed with err after starting at start.
func errorResult(ctx context.Context, start time.Time, model string, err error) *mcp.CallToolResult {
	info := Error{Code: research.CodeResearchFailed, Message: err.Error()}
	var (
		f       *research.Failure
		stopped *activity.StoppedError
	)
	switch {
	case errors.As(err, &f):
		info = Error{Code: f.Code, Message: f.Message, Details: f.Details}
	case errors.As(context.Cause(ctx), &stopped): // the app ended the call, not the client
		info = Error{Code: CodeCancelled, Message: "the search was cancelled before it finished: " + stopped.Why,
			Details: stopped.Fix}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		info = Error{Code: CodeCancelled, Message: "the search was cancelled before it finished"}
	}
	res := ErrorResult(info)
	res.Meta = meta(time.Since(start).Milliseconds(), model, false)
	if f != nil {
		addBackend(res.Meta, f.Backend, f.Reason)
	}
	return res
}

// ErrorResult is the result of a call that failed with info.
func ErrorResult(info Error) *mcp.CallToolResult {
	res := structured(ErrorBody{Error: info})
	res.IsError = true
	return res
}
