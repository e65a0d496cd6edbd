// Package tasks makes tools called as MCP tasks (protocol 2025-11-25) behave as the spec says, on top of mcp-go's
// own tasks: the transport (internal/mcpserver) adds its hooks to the server and wraps every tool's handler in
// Outcome.
package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools"
)

// mcp-go (v1.2.1) creates the tasks, runs their handlers and keeps
// their results; this file makes them behave as the spec says where mcp-go alone does not:
//   - mcp-go cancels the context of the request that created a task as soon as the "task created" answer is sent,
//     on every transport: every task would be cancelled at once. So a task's research runs detached from its
//     request, and tasks/cancel reaches it through the task's id.
//   - A handler is not told its task's id. The BeforeCallTool hook puts a slot into the request, which the
//     OnTaskCreated hook fills, matched through the request's context (the same one for both hooks).
//   - mcp-go ends every task whose handler returned a result completed. A tool's error result ends the task failed
//     (the spec), with the error as its status message; a cancelled call ends it cancelled, with the reason.
//   - tasks/result of a cancelled task has no content; the AfterTaskResult hook gives it a CANCELLED error result.
//   - mcp-go grants any TTL, keeps a task without one for good, and keeps any number of results, each until its TTL
//     runs out: it has no way to drop one sooner. So a task's result is kept here, where it can be dropped (the
//     oldest first, when there are too many, or when its session ends), and mcp-go keeps an empty placeholder,
//     which the AfterTaskResult hook replaces.
//   - mcp-go runs a tool that does not support tasks at once when it is called as one, instead of refusing.
//   - mcp-go does not offer the tasks extension of protocol 2026-07-28 (it answers tasks/* with "method not found"
//     there), yet its discover result still announces the tasks capability: the AfterDiscover hook removes it.

const (
	defaultTTL = time.Hour        // for a task that asks for none
	MinTTL     = 30 * time.Minute // the least granted: longer than a call may run by default (deadline.go)
	maxTTL     = 24 * time.Hour   // the most a task may ask for
)

// Bounds on what tasks hold. A session is refused a task when it holds MaxSessionTasks already; the results of all
// sessions together are bounded by dropping the oldest, so that what other sessions hold never refuses it, short of
// maxTasks.
const (
	// MaxSessionTasks bounds the tasks one session holds until their TTLs run out, running or finished: far more
	// than a client runs in an hour, since a task is research that takes minutes.
	MaxSessionTasks = 100
	// maxKeptResults and maxKeptResultBytes bound the results kept, all sessions together (a report is some tens
	// of KB, held twice: as text and as structured content): past either, the ones kept longest are dropped.
	maxKeptResults     = 500
	maxKeptResultBytes = 8 << 20
	// maxTasks bounds the tasks held, all sessions together, ended sessions' too, for memory: mcp-go keeps a record
	// and a goroutine of each until its TTL runs out (a few KB). Only a client that opens session after session to
	// get round its own cap reaches it.
	maxTasks = 10000
)

// taskSlotMeta is where the BeforeCallTool hook puts a task call's slot in its request's _meta. The request is
// never encoded again, so the slot does not reach the client.
const taskSlotMeta = "gemini-search-mcp/task"

// taskSlot receives the id of the task a tools/call request creates.
type taskSlot struct {
	ttl time.Duration // granted by the BeforeCallTool hook

	mu sync.Mutex
	id string
}

func (s *taskSlot) get() string {
	if s == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.id
}

// taskSlotOf is the slot of req, a call running as a task; nil for any other call.
func taskSlotOf(req mcp.CallToolRequest) *taskSlot {
	if req.Params.Task == nil || req.Params.Meta == nil {
		return nil
	}
	slot, _ := req.Params.Meta.AdditionalFields[taskSlotMeta].(*taskSlot)
	return slot
}

// Tasks tracks the task calls of a server.
type Tasks struct {
	lifetime  context.Context // ends when the server shuts down; nil: never
	taskTools map[string]bool // the tools that may run as tasks
	now       func() time.Time

	mu      sync.Mutex
	pending map[context.Context]*taskSlot // task calls whose task is being created, by their request's context
	cancels map[string]context.CancelFunc // the detached runs of task calls, by task id
	stored  map[string]*storedTask        // the tasks mcp-go keeps, by id, until their TTL runs out
}

type storedTask struct {
	session   string
	expires   time.Time
	result    *mcp.CallToolResult // the tool's result, for tasks/result; nil until it answers, or once dropped
	kept      time.Time           // when result was kept
	size      int                 // result's bytes, about
	ended     bool                // its session ended: nobody can read its result
	cancelled *tools.Error        // why the task was cancelled; nil unless it was
}

// New tracks the task calls of a server that ends with lifetime (nil: never), whose tools that may run as tasks
// are those taskTools marks.
func New(lifetime context.Context, taskTools map[string]bool) *Tasks {
	return &Tasks{lifetime: lifetime, taskTools: taskTools, now: time.Now, pending: map[context.Context]*taskSlot{},
		cancels: map[string]context.CancelFunc{}, stored: map[string]*storedTask{}}
}

// Hooks are the server hooks of task calls.
func (t *Tasks) Hooks() *server.Hooks {
	h := &server.Hooks{}
	h.AddOnRequestInitialization(func(ctx context.Context, _ any, message any) error {
		raw, _ := message.(json.RawMessage)
		return t.admit(tools.SessionOf(ctx), raw)
	})
	h.AddBeforeCallTool(func(ctx context.Context, _ any, req *mcp.CallToolRequest) {
		if req.Params.Task == nil {
			return
		}
		slot := &taskSlot{ttl: grantedTTL(req.Params.Task.TTL)}
		ttl := slot.ttl.Milliseconds()
		req.Params.Task.TTL = &ttl // what mcp-go keeps the task for, and what the client reads in the created task
		if req.Params.Meta == nil {
			req.Params.Meta = &mcp.Meta{}
		}
		if req.Params.Meta.AdditionalFields == nil {
			req.Params.Meta.AdditionalFields = map[string]any{}
		}
		req.Params.Meta.AdditionalFields[taskSlotMeta] = slot
		t.mu.Lock()
		t.pending[ctx] = slot
		t.mu.Unlock()
	})
	forget := func(ctx context.Context) {
		t.mu.Lock()
		delete(t.pending, ctx)
		t.mu.Unlock()
	}
	h.AddAfterCallTool(func(ctx context.Context, _ any, _ *mcp.CallToolRequest, _ any) { forget(ctx) })
	h.AddOnError(func(ctx context.Context, _ any, method mcp.MCPMethod, _ any, _ error) {
		if method == mcp.MethodToolsCall {
			forget(ctx)
		}
	})
	h.AddAfterTaskResult(func(_ context.Context, _ any, req *mcp.TaskResultRequest, res *mcp.TaskResultResult) {
		if res != nil {
			t.fill(req.Params.TaskId, res)
		}
	})
	h.AddOnUnregisterSession(func(_ context.Context, s server.ClientSession) { t.sessionEnded(s.SessionID()) })
	h.AddAfterDiscover(func(_ context.Context, _ any, _ *mcp.DiscoverRequest, res *mcp.DiscoverResult) {
		res.Capabilities.Tasks = nil
	})
	return h
}

// grantedTTL is the TTL a task that asks for asked gets: defaultTTL when it asks for none, else what it asks
// within MinTTL and maxTTL. A task is gone when its TTL runs out, and its run ends then: a shorter TTL would
// end a deep search before it could finish, and let a client start runs faster than MaxSessionTasks counts them.
func grantedTTL(asked *int64) time.Duration {
	switch {
	case asked == nil || *asked <= 0:
		return defaultTTL
	case *asked >= maxTTL.Milliseconds(): // compared in milliseconds: a huge one would overflow a Duration
		return maxTTL
	}
	return max(time.Duration(*asked)*time.Millisecond, MinTTL)
}

// admit refuses, before mcp-go creates a task, a tools/call of session that asks to run as a task when its tool
// does not support tasks, when the session holds MaxSessionTasks, or when the server holds maxTasks. mcp-go answers
// the error with code -32600 (Invalid Request): its request hook has no other. Calls of one session that arrive
// together may pass the count together: the caps are bounds, not exact.
func (t *Tasks) admit(session string, raw json.RawMessage) error {
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Name string          `json:"name"`
			Task json.RawMessage `json:"task"`
		} `json:"params"`
	}
	if json.Unmarshal(raw, &msg) != nil || msg.Method != string(mcp.MethodToolsCall) ||
		len(msg.Params.Task) == 0 || string(msg.Params.Task) == "null" {
		return nil
	}
	if _, known := t.taskTools[msg.Params.Name]; known && !t.taskTools[msg.Params.Name] {
		return fmt.Errorf("tool %q does not support tasks (its execution.taskSupport is forbidden): call it "+
			"without params.task; it answers in seconds", msg.Params.Name)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	mine := 0
	var next, nextOfMine time.Time // when the first task held, and the first of session's, expires
	for _, st := range t.stored {
		if next.IsZero() || st.expires.Before(next) {
			next = st.expires
		}
		if st.session == session {
			mine++
			if nextOfMine.IsZero() || st.expires.Before(nextOfMine) {
				nextOfMine = st.expires
			}
		}
	}
	switch {
	case mine >= MaxSessionTasks:
		return fmt.Errorf("this session holds %d tasks, the most one session may, until their TTLs run out; the "+
			"next one's runs out in %v. Call %s without params.task meanwhile", MaxSessionTasks,
			nextOfMine.Sub(t.now()).Round(time.Second), msg.Params.Name)
	case len(t.stored) >= maxTasks:
		return fmt.Errorf("the server holds %d tasks, the most it keeps, until their TTLs run out; the next one's "+
			"runs out in %v. Call %s without params.task meanwhile", maxTasks, next.Sub(t.now()).Round(time.Second),
			msg.Params.Name)
	}
	return nil
}

// TaskHooks are the task hooks of the server.
func (t *Tasks) TaskHooks() *server.TaskHooks {
	h := &server.TaskHooks{}
	h.AddOnTaskCreated(func(ctx context.Context, m server.TaskMetrics) {
		t.mu.Lock()
		defer t.mu.Unlock()
		slot := t.pending[ctx]
		ttl := defaultTTL
		if slot != nil {
			slot.mu.Lock()
			slot.id = m.TaskID
			slot.mu.Unlock()
			ttl = slot.ttl
		}
		t.stored[m.TaskID] = &storedTask{session: m.SessionID, expires: t.now().Add(ttl)}
		// mcp-go forgets the task when its TTL runs out, and cancels its request's context, which the detached run
		// does not see: end the run too, since nobody could read its result.
		time.AfterFunc(ttl, func() { t.expire(m.TaskID) })
	})
	// mcp-go runs this hook holding its tasks lock: it must not call back into mcp-go.
	h.AddOnTaskCancelled(func(_ context.Context, m server.TaskMetrics) {
		t.mu.Lock()
		if st := t.stored[m.TaskID]; st != nil && st.cancelled == nil {
			st.cancelled = &tools.Error{Code: backend.CodeCancelled, Message: "the task was cancelled (tasks/cancel) before it finished"}
		}
		t.mu.Unlock()
		t.cancel(m.TaskID)
	})
	return h
}

// expire forgets task id, whose TTL ran out, and ends its run.
func (t *Tasks) expire(id string) {
	t.mu.Lock()
	delete(t.stored, id)
	t.mu.Unlock()
	t.cancel(id)
}

// keep keeps res, the result of task id, for tasks/result; past maxKeptResults or maxKeptResultBytes, the results
// kept longest are dropped. res itself stays, whatever its size.
func (t *Tasks) keep(id string, res *mcp.CallToolResult) {
	t.mu.Lock()
	defer t.mu.Unlock()
	st := t.stored[id]
	if st == nil || st.ended { // expired, or nobody can read it
		return
	}
	st.result, st.kept, st.size = res, t.now(), resultBytes(res)
	var older []*storedTask
	kept := st.size
	for _, o := range t.stored {
		if o.result != nil && o != st {
			older = append(older, o)
			kept += o.size
		}
	}
	slices.SortFunc(older, func(a, b *storedTask) int { return a.kept.Compare(b.kept) })
	for len(older) > 0 && (len(older)+1 > maxKeptResults || kept > maxKeptResultBytes) {
		older[0].result = nil
		kept -= older[0].size
		older = older[1:]
	}
}

// resultBytes is about what res holds: its text, and the structured content the text encodes.
func resultBytes(res *mcp.CallToolResult) int {
	n := 0
	for _, c := range res.Content {
		if text, ok := c.(mcp.TextContent); ok {
			n += len(text.Text)
		}
	}
	if res.StructuredContent != nil {
		n *= 2
	}
	return n
}

// Held is the sweep of the task results: they go when their tasks' TTLs run out (mcp-go's timers) or make room,
// so it drops nothing and returns the bytes kept.
func (t *Tasks) Held(time.Time) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, st := range t.stored {
		if st.result != nil {
			n += st.size
		}
	}
	return n
}

// sessionEnded drops the results of the tasks of session, which has ended: no other session may read them.
func (t *Tasks) sessionEnded(session string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, st := range t.stored {
		if st.session == session {
			st.ended, st.result = true, nil
		}
	}
}

// fill puts into res, mcp-go's answer to tasks/result of task id, what the task ended with: the tool's result, why
// it was cancelled, or why its result is no longer kept.
func (t *Tasks) fill(id string, res *mcp.TaskResultResult) {
	t.mu.Lock()
	var out *mcp.CallToolResult
	switch st := t.stored[id]; {
	case st == nil: // its TTL ran out as mcp-go answered
		out = (&tools.Error{Code: backend.CodeResultDropped, Message: "the task's TTL ran out: its result is " +
			"no longer kept", Details: "Call the tool again."}).CallToolResult()
	case st.result != nil:
		out = st.result
	case st.cancelled != nil:
		out = st.cancelled.CallToolResult()
	default: // its result was dropped
		out = (&tools.Error{Code: backend.CodeResultDropped, Message: fmt.Sprintf("the task's result was "+
			"dropped to make room for newer ones: the server keeps at most %d task results and %d MiB of them, "+
			"all sessions together, and drops the oldest first", maxKeptResults, maxKeptResultBytes>>20),
			Details: "Call the tool again (its report may come from the cache), and read a task's result soon " +
				"after it ends."}).CallToolResult()
	}
	t.mu.Unlock()
	res.Content, res.StructuredContent, res.IsError = out.Content, out.StructuredContent, out.IsError
	if out.Meta == nil {
		return
	}
	if res.Meta == nil {
		res.Meta = &mcp.Meta{}
	}
	if res.Meta.AdditionalFields == nil {
		res.Meta.AdditionalFields = map[string]any{}
	}
	for k, v := range out.Meta.AdditionalFields { // as mcp-go merges a result's _meta into tasks/result's
		if k != mcp.RelatedTaskMetaKey {
			res.Meta.AdditionalFields[k] = v
		}
	}
}

// cancel ends the run of task id, if it runs.
func (t *Tasks) cancel(id string) {
	t.mu.Lock()
	cancel := t.cancels[id]
	t.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// taskRun is the run of a task call, as its tool sees it.
type taskRun struct {
	tasks *Tasks
	slot  *taskSlot
}

func (r taskRun) ID() string { return r.slot.get() }
func (r taskRun) Detach(ctx context.Context) (context.Context, context.CancelFunc) {
	return r.tasks.detach(ctx, r.slot)
}

// detach returns the context the research of a task call, whose slot is slot, runs with: it keeps ctx's values,
// ends with the server (Options.Lifetime), on tasks/cancel, or when the app ends the calls of the server or of the
// session (the activity registry), and is released by the returned func.
func (t *Tasks) detach(ctx context.Context, slot *taskSlot) (context.Context, context.CancelFunc) {
	runCtx, cancel := activity.TrackerFrom(ctx).Detach(ctx)
	stop := func() bool { return false }
	if t.lifetime != nil {
		stop = context.AfterFunc(t.lifetime, cancel)
	}
	id := slot.get()
	if id != "" {
		t.mu.Lock()
		t.cancels[id] = cancel
		if st := t.stored[id]; st != nil && st.cancelled != nil { // tasks/cancel came before the run began
			cancel()
		}
		t.mu.Unlock()
	}
	return runCtx, func() {
		stop()
		cancel()
		if id != "" {
			t.mu.Lock()
			delete(t.cancels, id)
			t.mu.Unlock()
		}
	}
}

// Outcome keeps the result of a task call here, giving mcp-go an empty placeholder, and ends a task call whose tool
// answered with an error result as the spec says, instead of completed: a cancelled call's task cancelled, with the
// reason kept for tasks/result, and any other failed, with the error as its status message (which tasks/result
// returns as a JSON-RPC error: mcp-go keeps no result of a failed task).
func (t *Tasks) Outcome(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		slot := taskSlotOf(req)
		if slot == nil {
			return next(ctx, req)
		}
		res, err := next(tools.WithTask(ctx, taskRun{t, slot}), req)
		if err != nil || res == nil {
			return res, err
		}
		if !res.IsError {
			t.keep(slot.get(), res)
			// Not nil, which mcp-go fails; it has no content to validate either, since the server does not
			// validate results against output schemas.
			return &mcp.CallToolResult{}, nil
		}
		info := tools.ResultError(res)
		if info == nil { // every error result of the tools is theirs; this is a safety net
			info = &tools.Error{Code: backend.CodeInternal, Message: "the tool failed"}
		}
		if info.Code != backend.CodeCancelled {
			return nil, info
		}
		t.mu.Lock()
		if st := t.stored[slot.get()]; st != nil && st.cancelled == nil {
			st.cancelled = info
		}
		t.mu.Unlock()
		return nil, cancelledTask{info}
	}
}

// cancelledTask is the error of a task call that was cancelled: mcp-go ends a task cancelled, with the error's text
// as its status message, when its handler fails with context.Canceled.
type cancelledTask struct{ info *tools.Error }

func (e cancelledTask) Error() string        { return e.info.Error() }
func (e cancelledTask) Is(target error) bool { return target == context.Canceled }
