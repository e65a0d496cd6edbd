package mcpserver

import (
	"context"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
)

// mcp-go (v1.2.1) runs a tool called as an MCP task with the context of the request that created the task, and
// cancels that context as soon as the "task created" answer is sent: every task would be cancelled at once. So a
// task's research runs detached from its request, and tasks/cancel reaches it through the task's id, which the
// OnTaskCreated hook writes into a slot the HTTP layer put into the request's context.

// A task's result is kept until its TTL runs out; mcp-go keeps a task without one for good, and grants any TTL.
const (
	defaultTaskTTL = time.Hour      // for a task that asks for none
	maxTaskTTL     = 24 * time.Hour // the most a task may ask for
)

// boundTaskTTL gives every task call a TTL within maxTaskTTL, defaultTaskTTL when it asks for none, before mcp-go
// creates the task: the TTL granted is the one the client reads in the created task. The hook sees every
// transport's calls.
func boundTaskTTL() *server.Hooks {
	h := &server.Hooks{}
	h.AddBeforeCallTool(func(_ context.Context, _ any, req *mcp.CallToolRequest) {
		if req.Params.Task == nil {
			return
		}
		ttl := defaultTaskTTL.Milliseconds()
		if asked := req.Params.Task.TTL; asked != nil && *asked > 0 {
			ttl = min(*asked, maxTaskTTL.Milliseconds())
		}
		req.Params.Task.TTL = &ttl
	})
	return h
}

// taskSlot receives the id of the task a tools/call request creates.
type taskSlot struct {
	mu sync.Mutex
	id string
}

type taskSlotKey struct{}

func withTaskSlot(ctx context.Context) context.Context {
	return context.WithValue(ctx, taskSlotKey{}, &taskSlot{})
}

func (s *taskSlot) get() string {
	if s == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.id
}

// tasks tracks the detached runs of task calls, by task id.
type tasks struct {
	lifetime context.Context // ends when the server shuts down; nil: never
	mu       sync.Mutex
	cancels  map[string]context.CancelFunc
}

func (t *tasks) hooks() *server.TaskHooks {
	h := &server.TaskHooks{}
	h.AddOnTaskCreated(func(ctx context.Context, m server.TaskMetrics) {
		if slot, ok := ctx.Value(taskSlotKey{}).(*taskSlot); ok {
			slot.mu.Lock()
			slot.id = m.TaskID
			slot.mu.Unlock()
		}
	})
	h.AddOnTaskCancelled(func(_ context.Context, m server.TaskMetrics) {
		t.mu.Lock()
		cancel := t.cancels[m.TaskID]
		t.mu.Unlock()
		if cancel != nil {
			cancel()
		}
	})
	return h
}

// detach returns the context a task call's research runs with: it keeps ctx's values, ends with the server
// (Options.Lifetime), on tasks/cancel, or when the app ends the calls of the server or of the session (the
// activity registry), and is released by the returned func.
func (t *tasks) detach(ctx context.Context) (context.Context, context.CancelFunc) {
	runCtx, cancel := activity.TrackerFrom(ctx).Detach(ctx)
	stop := func() bool { return false }
	if t.lifetime != nil {
		stop = context.AfterFunc(t.lifetime, cancel)
	}
	slot, _ := ctx.Value(taskSlotKey{}).(*taskSlot)
	id := slot.get()
	if id != "" {
		t.mu.Lock()
		if t.cancels == nil {
			t.cancels = map[string]context.CancelFunc{}
		}
		t.cancels[id] = cancel
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
