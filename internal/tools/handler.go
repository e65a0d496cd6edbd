package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools/argcheck"
)

// Result is a tool's typed answer.
type Result interface {
	// CallToolResult is the answer as MCP carries it: the structured content, its JSON text, and how it was made
	// in _meta.
	CallToolResult() *mcp.CallToolResult
	// firecrawl says that the research went on without Firecrawl, which did not start ("unavailable: " and why);
	// "" for every other answer.
	firecrawl() string
	// size is about how many bytes the answer holds, for the bound on the answers kept for research_result.
	size() int
}

// resultBytes is about how many bytes r holds; 0 for none.
func resultBytes(r Result) int {
	if r == nil {
		return 0
	}
	return r.size()
}

// handler is the MCP handler of a tool whose typed call is call: decode the arguments, checked against the tool's
// input schema, → call → encode. The progress token of the request reaches the call through its context.
func handler[A any, R Result](t *Tools, tool mcp.Tool, call func(context.Context, A) (R, error)) server.ServerTool {
	check := argcheck.ForTool(tool)
	t.checks[tool.Name] = check
	return server.ServerTool{Tool: tool, Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args A
		if err := decode(tool, check, req.Params.Arguments, &args); err != nil {
			t.refused(ctx, tool.Name, subjectOf(req), err)
			return err.CallToolResult(), nil
		}
		if req.Params.Meta != nil && req.Params.Meta.ProgressToken != nil {
			ctx = context.WithValue(ctx, progressTokenKey{}, req.Params.Meta.ProgressToken)
		}
		res, err := call(ctx, args)
		if err != nil {
			return AsError(err).CallToolResult(), nil
		}
		return res.CallToolResult(), nil
	}}
}

// decode checks args, the arguments of a call of tool as the transport decoded them, with check, and decodes them
// into into. Only the arguments the tool's schema names, as it spells them, are decoded: the JSON decoder would
// also fill a field from a key in other case ("MODEL"), which the schema, knowing no such argument, never checked.
func decode(tool mcp.Tool, check *argcheck.Arguments, args any, into any) *Error {
	if args == nil {
		args = map[string]any{}
	}
	// Through JSON so the validator sees plain JSON whatever the transport decoded.
	raw, err := json.Marshal(args)
	if err == nil {
		err = check.Check(raw)
	}
	if err != nil {
		return invalidArguments(tool.Name, err)
	}
	var named map[string]json.RawMessage // an object: the schema checked
	if err = json.Unmarshal(raw, &named); err == nil {
		for name := range named {
			if _, ok := tool.InputSchema.Properties[name]; !ok {
				delete(named, name)
			}
		}
		if raw, err = json.Marshal(named); err == nil {
			err = json.Unmarshal(raw, into)
		}
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) { // the schema let through what the type cannot hold: a number too large
		err = fmt.Errorf("%s is out of range (%s)", typeErr.Field, typeErr.Value)
	}
	if err != nil {
		return invalidArguments(tool.Name, err)
	}
	return nil
}

// checkArguments checks args, the typed arguments of a call of tool, against the tool's input schema, as its MCP
// handler checks the arguments it decodes, so that every road to a tool (MCP, the REST API, the app) is held to it.
func (t *Tools) checkArguments(tool string, args any) error {
	raw, err := json.Marshal(args)
	if err == nil {
		err = t.checks[tool].Check(raw)
	}
	if err != nil {
		return invalidArguments(tool, err)
	}
	return nil
}

// record runs call as one call of tool, about subject, among the activity: listed while it runs (the context it
// gets carries its tracker, and the app can cancel it with a reason), its failure or warning kept when it ends. A
// cancelled call is not a failure.
func record[R Result](ctx context.Context, t *Tools, tool, subject string, call func(context.Context) (R, error)) (R, error) {
	if t.opts.Activity == nil {
		return call(ctx)
	}
	session, job := SessionOf(ctx), jobFrom(ctx)
	if job != nil { // a job belongs to no session: its client may come back for it from another
		session = ""
	}
	ctx, tracker := t.opts.Activity.Begin(ctx, session, tool, subject)
	if job != nil {
		tracker.Research(job.ID)
	}
	defer func() {
		if p := recover(); p != nil { // not running any more: whoever recovers (the job, mcp-go) says what failed
			tracker.End(failureOf(&Error{Code: backend.CodeInternal, Message: fmt.Sprintf("the research failed "+
				"unexpectedly: %v", p)}))
			panic(p)
		}
	}()
	res, err := call(ctx)
	if err != nil {
		tracker.End(failureOf(AsError(err)))
	} else {
		tracker.End(warningOf(res.firecrawl()))
	}
	return res, err
}

// refused records a call of tool refused for its arguments among the activity's failures.
func (t *Tools) refused(ctx context.Context, tool, subject string, err *Error) {
	_, _ = record(ctx, t, tool, subject, func(context.Context) (Status, error) { return Status{}, err })
}

// research runs one research call, as an MCP task when the transport runs it as one, with progress reporting. Its
// error is an *Error that says how the run went.
func (t *Tools) research(ctx context.Context, model string, run func(context.Context, research.Progress) (research.Report, error)) (research.Report, error) {
	start := time.Now()
	if task := taskOf(ctx); task != nil {
		var release context.CancelFunc
		ctx, release = task.Detach(ctx)
		defer release()
	}
	p := startProgress(ctx, cmp.Or(t.opts.Heartbeat, defaultHeartbeat), start)
	defer p.stop()
	rep, err := run(ctx, p.report)
	if err != nil {
		return rep, researchError(ctx, start, model, err)
	}
	return rep, nil
}

// progressTokenKey marks a call whose client asked for progress notifications, with its token.
type progressTokenKey struct{}

// progressToken is the token of the call's progress notifications; nil when the client asked for none.
func progressToken(ctx context.Context) mcp.ProgressToken {
	return ctx.Value(progressTokenKey{})
}

// textSinkKey marks a call whose answer is streamed as it is written.
type textSinkKey struct{}

// WithTextSink marks ctx as the context of a call whose answer is streamed to sink as it is written.
func WithTextSink(ctx context.Context, sink func(string)) context.Context {
	return context.WithValue(ctx, textSinkKey{}, sink)
}

// textSink is the call's stream of the answer, or nil.
func textSink(ctx context.Context) func(string) {
	sink, _ := ctx.Value(textSinkKey{}).(func(string))
	return sink
}
