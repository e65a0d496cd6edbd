package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/mcpserver/tasks"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools"
)

// stdioPeer is a client speaking raw JSON-RPC to a server over stdio, as a client that uses tasks would.
type stdioPeer struct {
	t    *testing.T
	in   io.Writer
	msgs chan map[string]any

	mu            sync.Mutex
	notifications []map[string]any
}

func serveStdioPeer(t *testing.T, s *server.MCPServer) *stdioPeer {
	t.Helper()
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- ServeStdio(ctx, s, serverIn, serverOut, nil) }()
	p := &stdioPeer{t: t, in: clientOut, msgs: make(chan map[string]any, 100)}
	go func() {
		lines := bufio.NewScanner(clientIn)
		lines.Buffer(nil, 1<<24)
		for lines.Scan() {
			var msg map[string]any
			if json.Unmarshal(lines.Bytes(), &msg) == nil {
				p.msgs <- msg
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		clientOut.Close()
		serverOut.Close()
		if err := <-served; err != nil {
			t.Errorf("ServeStdio: %v", err)
		}
	})
	p.call(1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "t", "version": "1"}})
	return p
}

// call sends a request and returns its response, keeping the notifications that come before it.
func (p *stdioPeer) call(id int, method string, params any) map[string]any {
	p.t.Helper()
	line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if _, err := p.in.Write(append(line, '\n')); err != nil {
		p.t.Fatal(err)
	}
	timeout := time.After(testkit.WaitLimit)
	for {
		select {
		case msg := <-p.msgs:
			if msg["id"] == nil {
				p.mu.Lock()
				p.notifications = append(p.notifications, msg)
				p.mu.Unlock()
				continue
			}
			if msg["id"] == float64(id) {
				return msg
			}
		case <-timeout:
			p.t.Fatalf("%s: no response in 30 s", method)
		}
	}
}

// result is call's result, failing the test on an error response.
func (p *stdioPeer) result(id int, method string, params any) map[string]any {
	p.t.Helper()
	msg := p.call(id, method, params)
	res, ok := msg["result"].(map[string]any)
	if !ok {
		p.t.Fatalf("%s: %v, want a result", method, msg)
	}
	return res
}

func taskID(t *testing.T, created map[string]any) string {
	t.Helper()
	task, _ := created["task"].(map[string]any)
	id, _ := task["taskId"].(string)
	if id == "" {
		t.Fatalf("tools/call as a task returned %v, want a task", created)
	}
	return id
}

// Over stdio too, tasks/cancel stops the research of a task (its CLI ends), the task ends cancelled, tasks/result
// says so, and the task's progress names the task.
func TestCancellingATaskOverStdio(t *testing.T) {
	s, fake := newPipelineServer(t, "hang", research.Settings{}, tools.Options{Heartbeat: 50 * time.Millisecond}, 60*time.Second)
	p := serveStdioPeer(t, s)
	id := taskID(t, p.result(2, "tools/call", map[string]any{"name": "deep_search",
		"arguments": map[string]any{"topic": "never ends"}, "task": map[string]any{},
		"_meta": map[string]any{"progressToken": "tok"}}))
	testkit.WaitFor(t, "the fake CLI to start", func() bool { return len(fake.LivePIDs()) > 0 })
	n := 10
	testkit.WaitFor(t, "a progress notification", func() bool {
		n++
		p.call(n, "ping", nil) // collects the notifications sent before its answer
		p.mu.Lock()
		defer p.mu.Unlock()
		return len(p.notifications) > 0
	})
	p.mu.Lock()
	related := fmt.Sprint(p.notifications[0]["params"])
	p.mu.Unlock()
	if !strings.Contains(related, mcp.RelatedTaskMetaKey) || !strings.Contains(related, id) {
		t.Errorf("progress %s, want it related to task %s", related, id)
	}

	p.result(3, "tasks/cancel", map[string]any{"taskId": id})
	testkit.WaitFor(t, "every fake CLI process to end", func() bool { return len(fake.LivePIDs()) == 0 })
	if task := p.result(4, "tasks/get", map[string]any{"taskId": id}); task["status"] != "cancelled" {
		t.Errorf("task %v, want cancelled", task)
	}
	res := p.result(5, "tasks/result", map[string]any{"taskId": id})
	if res["isError"] != true || !strings.Contains(fmt.Sprint(res["structuredContent"]), "CANCELLED") ||
		!strings.Contains(fmt.Sprint(res["content"]), "tasks/cancel") {
		t.Errorf("tasks/result %v, want a CANCELLED error result that says tasks/cancel ended it", res)
	}
}

// A tool that fails ends its task failed, not completed, with the error (its code and fix) as the status message,
// which tasks/result returns as the error.
func TestFailedToolEndsTaskFailed(t *testing.T) {
	s, _ := newPipelineServer(t, "quota", research.Settings{}, tools.Options{}, 30*time.Second)
	p := serveStdioPeer(t, s)
	id := taskID(t, p.result(2, "tools/call", map[string]any{"name": "ask",
		"arguments": map[string]any{"prompt": "explain"}, "task": map[string]any{}}))
	var task map[string]any
	n := 10
	testkit.WaitFor(t, "the task to end", func() bool {
		n++
		task = p.result(n, "tasks/get", map[string]any{"taskId": id})
		return task["status"] != "working"
	})
	if task["status"] != "failed" || !strings.Contains(fmt.Sprint(task["statusMessage"]), "QUOTA_ERROR") {
		t.Errorf("task %v, want failed with the QUOTA_ERROR error as its status message", task)
	}
	msg := p.call(3, "tasks/result", map[string]any{"taskId": id})
	if !strings.Contains(fmt.Sprint(msg["error"]), "QUOTA_ERROR") {
		t.Errorf("tasks/result %v, want the error", msg)
	}
}

// A tool that answers in seconds does not run as a task: asked to, it refuses at once, and no task is made.
func TestToolsWithoutTaskSupportRefuseTasks(t *testing.T) {
	s, _ := newPipelineServer(t, "ok", research.Settings{}, tools.Options{}, 30*time.Second)
	p := serveStdioPeer(t, s)
	for i, name := range []string{"search", "fetch_chunk", "ping"} {
		msg := p.call(2+i, "tools/call", map[string]any{"name": name,
			"arguments": map[string]any{"query": "q", "id": "0123456789abcdef", "index": 1}, "task": map[string]any{}})
		rpcErr, _ := msg["error"].(map[string]any)
		if rpcErr["code"] != float64(mcp.INVALID_REQUEST) || !strings.Contains(fmt.Sprint(rpcErr["message"]), "does not support tasks") {
			t.Errorf("%s as a task: %v, want a refusal", name, msg)
		}
	}
	if list := p.result(9, "tasks/list", map[string]any{}); len(list["tasks"].([]any)) != 0 {
		t.Errorf("tasks/list %v, want no task", list)
	}
}

// rpcError sends one JSON-RPC request of session over HTTP and returns the error it answers; nil for a result.
func rpcError(t *testing.T, url, session string, id int, method string, params any) map[string]any {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	res := post(t, url, body, map[string]string{server.HeaderKeySessionID: session})
	lines := bufio.NewScanner(res.Body) // a JSON body, or an SSE stream
	lines.Buffer(nil, 1<<24)
	for lines.Scan() {
		var msg struct {
			ID    any            `json:"id"`
			Error map[string]any `json:"error"`
		}
		if json.Unmarshal([]byte(strings.TrimPrefix(lines.Text(), "data: ")), &msg) == nil && msg.ID == float64(id) {
			return msg.Error
		}
	}
	t.Fatalf("%s: no response (HTTP %d)", method, res.StatusCode)
	return nil
}

// One client making task after task cannot keep another from starting one: past its own cap it is refused, and
// only it.
func TestOneSessionsTasksDoNotLockOutAnother(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	close(release) // every research call answers at once
	e := blockedEngine{started: make(chan struct{}, 1000), release: release}
	srv := httptest.NewServer(HTTPHandler(newServer(e, tools.Options{Version: "test"}), HTTPOptions{}))
	t.Cleanup(srv.Close)
	url := srv.URL + "/mcp"
	greedy, other := rpcSession(t, url), rpcSession(t, url)
	askTask := map[string]any{"name": "ask", "arguments": map[string]any{"prompt": "p"}, "task": map[string]any{}}
	refused := 0
	for i := range 600 {
		rpcErr := rpcError(t, url, greedy, 2+i, "tools/call", askTask)
		if rpcErr == nil {
			continue
		}
		refused++
		if !strings.Contains(fmt.Sprint(rpcErr["message"]), "this session holds") {
			t.Fatalf("task call %d: %v, want the session's own cap as the reason", i, rpcErr)
		}
	}
	if want := 600 - tasks.MaxSessionTasks; refused != want {
		t.Errorf("%d of 600 task calls refused, want %d", refused, want)
	}
	id := taskID(t, rpc(t, url, other, 2, "tools/call", askTask))
	res := rpc(t, url, other, 3, "tasks/result", map[string]any{"taskId": id})
	if body, _ := res["structuredContent"].(map[string]any); body["success"] != true {
		t.Errorf("tasks/result of the other session's task: %v, want its report", res)
	}
}

// Over stdio, a task call completes with its report.
func TestTaskCompletesOverStdio(t *testing.T) {
	s, _ := newPipelineServer(t, "ok", research.Settings{}, tools.Options{}, 30*time.Second)
	p := serveStdioPeer(t, s)
	id := taskID(t, p.result(2, "tools/call", map[string]any{"name": "ask", "arguments": map[string]any{"prompt": "p"},
		"task": map[string]any{}}))
	res := p.result(3, "tasks/result", map[string]any{"taskId": id}) // waits for the task to end
	if body, _ := res["structuredContent"].(map[string]any); res["isError"] == true || body["success"] != true {
		t.Errorf("tasks/result %v, want the report", res)
	}
	if task := p.result(4, "tasks/get", map[string]any{"taskId": id}); task["status"] != "completed" {
		t.Errorf("task %v, want completed", task)
	}
}

// On protocol 2026-07-28, where mcp-go serves no tasks, the server does not announce them.
func TestModernDiscoverAnnouncesNoTasks(t *testing.T) {
	s, _ := newPipelineServer(t, "ok", research.Settings{}, tools.Options{}, 30*time.Second)
	p := serveStdioPeer(t, s)
	res := p.result(2, string(mcp.MethodServerDiscover), map[string]any{"_meta": map[string]any{
		mcp.MetaKeyProtocolVersion: mcp.ProtocolVersion20260728, mcp.MetaKeyClientCapabilities: map[string]any{},
		mcp.MetaKeyClientInfo: map[string]any{"name": "t", "version": "1"}}})
	caps, _ := res["capabilities"].(map[string]any)
	if caps == nil || caps["tools"] == nil || caps["tasks"] != nil {
		t.Errorf("capabilities %v, want tools and no tasks", res["capabilities"])
	}
}
