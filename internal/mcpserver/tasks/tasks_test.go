package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

// createTask makes tasks record task id of session as mcp-go does when it creates one.
func createTask(tasks *Tasks, id, session string) {
	tasks.TaskHooks().OnTaskCreated[0](context.Background(), server.TaskMetrics{TaskID: id, SessionID: session})
}

// clientSession is a session as mcp-go's hooks are told of it.
type clientSession string

func (clientSession) Initialize()                                         {}
func (clientSession) Initialized() bool                                   { return true }
func (clientSession) NotificationChannel() chan<- mcp.JSONRPCNotification { return nil }
func (s clientSession) SessionID() string                                 { return string(s) }

// A session holding MaxSessionTasks tasks is refused one more, with what to do, until one expires; another session
// is not.
func TestTasksAreBoundedPerSession(t *testing.T) {
	t.Parallel()
	tasks := New(nil, map[string]bool{"ask": true})
	call := json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","task":{}}}`)
	for i := range MaxSessionTasks {
		if err := tasks.admit("greedy", call); err != nil {
			t.Fatalf("task %d: %v", i, err)
		}
		createTask(tasks, fmt.Sprint(i), "greedy")
	}
	err := tasks.admit("greedy", call)
	if err == nil || !strings.Contains(err.Error(), "this session holds 100 tasks") ||
		!strings.Contains(err.Error(), "without params.task") {
		t.Fatalf("task %d of one session: %v, want a refusal that says what to do", MaxSessionTasks+1, err)
	}
	if plain := json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}}`); tasks.admit("greedy", plain) != nil {
		t.Error("a call that is no task was refused")
	}
	if err := tasks.admit("other", call); err != nil {
		t.Errorf("another session: %v", err)
	}
	tasks.expire("0")
	if err := tasks.admit("greedy", call); err != nil {
		t.Errorf("after a task of the session expired: %v", err)
	}
}

// Past maxKeptResults, all sessions together, the result kept longest is dropped and tasks/result says so; the
// results of a session that ends are dropped too.
func TestOldestTaskResultsAreDropped(t *testing.T) {
	t.Parallel()
	tasks := New(nil, map[string]bool{"ask": true})
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	tasks.now = func() time.Time { return now }
	for i := range maxKeptResults + 1 {
		id := fmt.Sprint(i)
		createTask(tasks, id, fmt.Sprint("session ", i%7))
		tasks.keep(id, mcp.NewToolResultText("report "+id))
		now = now.Add(time.Second)
	}
	read := func(id string) string {
		res := &mcp.TaskResultResult{}
		tasks.fill(id, res)
		return fmt.Sprint(res.IsError, res.Content, res.StructuredContent)
	}
	if got := read("0"); !strings.Contains(got, "true") || !strings.Contains(got, string(backend.CodeResultDropped)) {
		t.Errorf("tasks/result of the oldest: %s, want a %s error", got, backend.CodeResultDropped)
	}
	for _, id := range []string{"1", fmt.Sprint(maxKeptResults)} {
		if got := read(id); !strings.Contains(got, "report "+id) {
			t.Errorf("tasks/result of task %s: %s, want its report", id, got)
		}
	}
	sessionEnded := tasks.Hooks().OnUnregisterSession[0]
	sessionEnded(context.Background(), clientSession("session 1"))
	if got := read("1"); !strings.Contains(got, string(backend.CodeResultDropped)) {
		t.Errorf("tasks/result of a task whose session ended: %s, want a %s error", got, backend.CodeResultDropped)
	}
	createTask(tasks, "late", "session 1")
	sessionEnded(context.Background(), clientSession("session 1"))
	tasks.keep("late", mcp.NewToolResultText("report late")) // its run ended after its session
	if got := read("late"); strings.Contains(got, "report late") {
		t.Errorf("a result that came after its session ended was kept: %s", got)
	}
}

// Past maxKeptResultBytes, all sessions together, the results kept longest are dropped too, however few they are;
// a result larger than the bound is still kept, alone.
func TestTaskResultsAreBoundedInBytes(t *testing.T) {
	t.Parallel()
	tasks := New(nil, map[string]bool{"ask": true})
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	tasks.now = func() time.Time { return now }
	keep := func(id string, size int) {
		createTask(tasks, id, "s1")
		report := strings.Repeat("x", size)
		tasks.keep(id, mcp.NewToolResultStructured(map[string]string{"report": report}, `{"report": "`+report+`"}`))
		now = now.Add(time.Second)
	}
	kept := func(id string) bool {
		res := &mcp.TaskResultResult{}
		tasks.fill(id, res)
		return !res.IsError
	}
	const size = maxKeptResultBytes/8 - 100 // held twice, as text and as structured content, with its JSON around
	for i := range 5 {
		keep(fmt.Sprint(i), size)
	}
	if kept("0") || !kept("1") || !kept("4") {
		t.Errorf("kept 0: %v, 1: %v, 4: %v; want all but the oldest", kept("0"), kept("1"), kept("4"))
	}
	if held := tasks.Held(now); held > maxKeptResultBytes || held < 3*maxKeptResultBytes/4 {
		t.Errorf("%d bytes held, want at most %d", held, maxKeptResultBytes)
	}
	keep("huge", maxKeptResultBytes)
	if !kept("huge") || kept("4") {
		t.Errorf("kept huge: %v, 4: %v; want only the huge one", kept("huge"), kept("4"))
	}
}

// When a task's TTL runs out mcp-go forgets it, and its run ends too: nobody could read its result.
func TestExpiredTaskEndsItsRun(t *testing.T) {
	tasks := New(nil, map[string]bool{"ask": true})
	ctx := context.Background()
	slot := &taskSlot{ttl: 10 * time.Millisecond}
	tasks.pending[ctx] = slot
	tasks.TaskHooks().OnTaskCreated[0](ctx, server.TaskMetrics{TaskID: "t1"})
	run, release := tasks.detach(ctx, slot)
	defer release()
	select {
	case <-run.Done():
	case <-time.After(testkit.WaitLimit):
		t.Fatal("the run outlived its task's TTL")
	}
}
