package tools

import "context"

// Task is a call running as an MCP task, as the transport that runs it tells the call's tool: the run outlives the
// request that created the task.
type Task interface {
	// ID is the task's id; "" until the transport knows it.
	ID() string
	// Detach returns the context the run goes on with once its request has answered, and the func that releases
	// it. ctx is the call's, with its activity tracker.
	Detach(ctx context.Context) (context.Context, context.CancelFunc)
}

type taskKey struct{}

// WithTask marks ctx as the context of a call that runs as task.
func WithTask(ctx context.Context, task Task) context.Context {
	return context.WithValue(ctx, taskKey{}, task)
}

// taskOf is the task the call made with ctx runs as; nil for a call that is no task.
func taskOf(ctx context.Context) Task {
	task, _ := ctx.Value(taskKey{}).(Task)
	return task
}

// taskID is task's id; "" for no task.
func taskID(task Task) string {
	if task == nil {
		return ""
	}
	return task.ID()
}
