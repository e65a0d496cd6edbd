package tools

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/jobs"
)

// defaultHeartbeat is how often a running call tells a client that asked for progress that it is still working.
const defaultHeartbeat = 15 * time.Second

// progress forwards a call's stages to the activity registry and, when the client sent a progressToken, to the
// client as notifications/progress, with a heartbeat carrying the elapsed time in between.
type progress struct {
	ctx     context.Context
	token   mcp.ProgressToken // nil: the client did not ask
	task    Task              // the call's task; nil unless it runs as one
	job     *jobs.Job[Result] // the job the call runs as, told of each stage; nil unless it runs as one
	tracker *activity.Tracker
	start   time.Time
	stopped chan struct{}

	mu    sync.Mutex
	count int
	stage string
	done  bool
}

// startProgress reports the stages of a call that started at start (for the heartbeat's elapsed time).
func startProgress(ctx context.Context, heartbeat time.Duration, start time.Time) *progress {
	p := &progress{ctx: ctx, token: progressToken(ctx), tracker: activity.TrackerFrom(ctx), task: taskOf(ctx),
		job: jobFrom(ctx), start: start, stopped: make(chan struct{}), stage: "starting"}
	if p.token != nil {
		go p.beat(heartbeat)
	}
	return p
}

// report is the research.Progress of a call.
func (p *progress) report(stage string) {
	p.tracker.Stage(stage)
	if p.job != nil {
		p.job.SetStage(stage)
	}
	p.mu.Lock()
	p.stage = stage
	p.mu.Unlock()
	p.notify(stage)
}

func (p *progress) beat(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-p.stopped:
			return
		case <-t.C:
			p.mu.Lock()
			stage := p.stage
			p.mu.Unlock()
			p.notify(fmt.Sprintf("%s (elapsed %s)", stage, time.Since(p.start).Round(time.Second)))
		}
	}
}

func (p *progress) notify(message string) {
	if p.token == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock() // keeps notifications in order, with increasing progress values
	if p.done {
		return
	}
	p.count++
	params := mcp.NotificationParams{AdditionalFields: map[string]any{
		"progressToken": p.token, "progress": p.count, "message": message}}
	if id := taskID(p.task); id != "" { // the spec relates a task's messages to it
		params.Meta = map[string]any{mcp.RelatedTaskMetaKey: mcp.RelatedTaskMeta(id)}
	}
	p.send(mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{Method: string(mcp.MethodNotificationProgress), Params: params}})
}

// send sends n to the call's client as mcp-go's SendNotificationToClient does, which would drop n's _meta. It does
// not mark an HTTP session for streams, as that does: with the event log, mcp-go streams the call that sends n
// anyway, and a session so marked would stream, and keep a stream record of, every later request until it ends.
// Best effort: a client that went away reads the call's answer from the event log, or calls again.
func (p *progress) send(n mcp.JSONRPCNotification) {
	session := server.ClientSessionFromContext(p.ctx)
	if session == nil || !session.Initialized() {
		return
	}
	select {
	case session.NotificationChannel() <- n:
	default:
	}
}

// stop ends the heartbeat; nothing is sent after it returns.
func (p *progress) stop() {
	p.mu.Lock()
	p.done = true
	p.mu.Unlock()
	close(p.stopped)
}
