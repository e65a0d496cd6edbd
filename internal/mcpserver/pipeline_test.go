package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

// newPipelineServer serves the real engine over a fake CLI with the given settings and options.
func newPipelineServer(t *testing.T, scenario string, s research.Settings, o Options, timeout time.Duration) (*server.MCPServer, *geminitest.Fake) {
	t.Helper()
	fake := geminitest.New(t, scenario)
	runner := gemini.NewRunner(gemini.Config{Command: fake.Command(), Dir: t.TempDir(), Timeout: timeout, KillGrace: 300 * time.Millisecond})
	engine, err := research.New(runner, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	o.Version = "test"
	return New(engine, o), fake
}

func call(ctx context.Context, t *testing.T, c *client.Client, tool string, args map[string]any, progressToken any) *mcp.CallToolResult {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	if progressToken != nil {
		req.Params.Meta = &mcp.Meta{ProgressToken: progressToken}
	}
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("tools/call %s: %v", tool, err)
	}
	return res
}

func decodeBody(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(resultText(t, res)), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestDeepSearchTool(t *testing.T) {
	s, fake := newPipelineServer(t, "ok", research.Settings{MaxRounds: 3}, Options{}, 30*time.Second)
	c := connect(t, s)
	res := call(context.Background(), t, c, "deep_search", map[string]any{"topic": "go 1.26"}, nil)
	if res.IsError {
		t.Fatalf("deep_search failed: %s", resultText(t, res))
	}
	body := decodeBody(t, res)
	meta := body["metadata"].(map[string]any)
	if meta["depth"] != "detailed" || meta["rounds"] != float64(2) {
		t.Errorf("metadata = %v, want depth detailed (the default) and 2 rounds (the fake's verify answer has no gaps)", meta)
	}
	if len(fake.Calls()) != 2 {
		t.Errorf("CLI ran %d times, want a research and a verification round", len(fake.Calls()))
	}

	res = call(context.Background(), t, c, "deep_search", map[string]any{"topic": "x", "depth": "huge"}, nil)
	if !res.IsError || !strings.Contains(resultText(t, res), `depth must be one of \"concise\", \"detailed\"`) {
		t.Errorf("bad depth: %s", resultText(t, res))
	}
}

// notifications collects a client's progress notifications.
type notifications struct {
	mu   sync.Mutex
	msgs []string
}

func (n *notifications) listen(c *client.Client) {
	c.OnNotification(func(note mcp.JSONRPCNotification) {
		if note.Method != "notifications/progress" {
			return
		}
		n.mu.Lock()
		defer n.mu.Unlock()
		msg, _ := note.Params.AdditionalFields["message"].(string)
		n.msgs = append(n.msgs, msg)
	})
}

func (n *notifications) all() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.msgs)
}

func TestProgressNotifications(t *testing.T) {
	t.Setenv(geminitest.EnvDelay, "700ms")
	s, _ := newPipelineServer(t, "slow", research.Settings{}, Options{Heartbeat: 200 * time.Millisecond}, 30*time.Second)
	c := connect(t, s)
	var got notifications
	got.listen(c)

	call(context.Background(), t, c, "search", map[string]any{"query": "no token"}, nil)
	if n := got.all(); len(n) != 0 {
		t.Errorf("a call without a progressToken got notifications %q", n)
	}

	call(context.Background(), t, c, "search", map[string]any{"query": "with token"}, "tok-1")
	msgs := got.all()
	for _, want := range []string{"researching", "searching: " + geminitest.FakeQuery, "reading: " + geminitest.FakeURL} {
		if !slices.Contains(msgs, want) {
			t.Errorf("notifications %q lack %q", msgs, want)
		}
	}
	if !slices.ContainsFunc(msgs, func(m string) bool { return strings.HasPrefix(m, "researching (elapsed ") }) {
		t.Errorf("notifications %q lack a heartbeat with the elapsed time", msgs)
	}
}

func TestQueueTimeoutAndPosition(t *testing.T) {
	q := research.NewQueue(1)
	s, _ := newPipelineServer(t, "hang", research.Settings{Queue: q, QueueTimeout: 300 * time.Millisecond}, Options{}, 30*time.Second)
	c := connect(t, s)
	var got notifications
	got.listen(c)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		req := mcp.CallToolRequest{}
		req.Params.Name = "search"
		req.Params.Arguments = map[string]any{"query": "holds the only slot"}
		c.CallTool(ctx, req)
	}()
	testkit.WaitFor(t, "the first call to take the only slot", func() bool { running, _ := q.Active(); return running == 1 })

	res := call(context.Background(), t, c, "search", map[string]any{"query": "waits"}, "tok")
	if body := decodeBody(t, res); !res.IsError || body["error"].(map[string]any)["code"] != research.CodeQueueTimeout {
		t.Errorf("second call: %v, want QUEUE_TIMEOUT", body)
	}
	if !slices.Contains(got.all(), "queued: position 1") {
		t.Errorf("notifications %q lack the queue position", got.all())
	}
}

func TestIdenticalRequestsShareOneRun(t *testing.T) {
	t.Setenv(geminitest.EnvDelay, "1s")
	s, fake := newPipelineServer(t, "slow", research.Settings{Joins: &research.Joins{}}, Options{}, 30*time.Second)
	c := connect(t, s)

	var wg sync.WaitGroup
	reports := make([]string, 3)
	for i, q := range []string{"Go  generics", "go generics", "rust traits"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := mcp.CallToolRequest{}
			req.Params.Name = "search"
			req.Params.Arguments = map[string]any{"query": q}
			if res, err := c.CallTool(context.Background(), req); err == nil && len(res.Content) == 1 {
				reports[i] = res.Content[0].(mcp.TextContent).Text
			}
		}()
	}
	wg.Wait()
	if n := len(fake.Calls()); n != 2 {
		t.Errorf("CLI ran %d times, want 2: the two spellings of one query share a run", n)
	}
	for i, r := range reports {
		if !strings.Contains(r, "# Fake report") {
			t.Errorf("call %d: %s", i, r)
		}
	}
}

func TestLongReportComesInChunks(t *testing.T) {
	long := strings.Repeat("Line of a long report.\n", 40) // 920 characters
	answer, _ := json.Marshal(map[string]any{"success": true, "report": long})
	t.Setenv(geminitest.EnvAnswer, "```json\n"+string(answer)+"\n```")
	s, _ := newPipelineServer(t, "ok", research.Settings{}, Options{ResponseLimit: func() int { return 300 }}, 30*time.Second)
	c := connect(t, s)

	body := decodeBody(t, call(context.Background(), t, c, "search", map[string]any{"query": "q"}, nil))
	chunks, ok := body["chunks"].(map[string]any)
	if !ok {
		t.Fatalf("no chunks in %v", body)
	}
	id, count := chunks["id"].(string), int(chunks["count"].(float64))
	first := body["report"].(string)
	if count < 4 || !strings.Contains(first, fmt.Sprintf("part 1 of %d", count)) || !strings.Contains(first, id) {
		t.Fatalf("first part %q, %d parts", first, count)
	}
	whole := first[:strings.Index(first, "\n\n[Report continues")]
	for i := 2; i <= count; i++ {
		part := decodeBody(t, call(context.Background(), t, c, "fetch_chunk", map[string]any{"id": id, "index": i}, nil))
		whole += part["text"].(string)
	}
	if whole != long {
		t.Errorf("reassembled report differs from the original:\n%q", whole)
	}

	res := call(context.Background(), t, c, "fetch_chunk", map[string]any{"id": "0123456789abcdef", "index": 2}, nil)
	if body := decodeBody(t, res); !res.IsError || body["error"].(map[string]any)["code"] != codeChunkNotFound {
		t.Errorf("unknown id: %v", body)
	}
	// A part past the last one: the id is good, so the fix is another index, not another search.
	res = call(context.Background(), t, c, "fetch_chunk", map[string]any{"id": id, "index": count + 1}, nil)
	e, _ := decodeBody(t, res)["error"].(map[string]any)
	if !res.IsError || e["code"] != codeInvalidArgument || !strings.Contains(e["message"].(string), fmt.Sprintf("parts 1 to %d", count)) ||
		strings.Contains(e["details"].(string), "search again") {
		t.Errorf("index past the end: %v", e)
	}
}

// rpcSession initializes a session of the HTTP MCP endpoint at url with raw JSON-RPC and returns its id.
func rpcSession(t *testing.T, url string) string {
	t.Helper()
	init := rpc(t, url, "", 1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "t", "version": "1"}})
	return init["_session"].(string)
}

// rpc posts one JSON-RPC request to an HTTP MCP endpoint and returns the decoded result.
func rpc(t *testing.T, url, session string, id int, method string, params any) map[string]any {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if i := bytes.LastIndex(raw, []byte("data: ")); bytes.HasPrefix(bytes.TrimSpace(raw), []byte("event:")) || i >= 0 && !bytes.HasPrefix(raw, []byte("{")) {
		raw = raw[i+len("data: "):] // an SSE response: the result is the last event
	}
	var msg struct {
		Result map[string]any `json:"result"`
		Error  map[string]any `json:"error"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(raw), &msg); err != nil || msg.Error != nil {
		t.Fatalf("%s: %s (%v)", method, raw, err)
	}
	if method == "initialize" {
		msg.Result["_session"] = res.Header.Get("Mcp-Session-Id")
	}
	return msg.Result
}

func TestDeepSearchAsTaskOverHTTP(t *testing.T) {
	t.Setenv(geminitest.EnvDelay, "500ms")
	s, _ := newPipelineServer(t, "slow", research.Settings{MaxRounds: 2}, Options{}, 30*time.Second)
	srv := httptest.NewServer(HTTPHandler(s, HTTPOptions{}))
	defer srv.Close()
	url := srv.URL + "/mcp"

	session := rpcSession(t, url)
	created := rpc(t, url, session, 2, "tools/call", map[string]any{"name": "deep_search",
		"arguments": map[string]any{"topic": "task topic"}, "task": map[string]any{"ttl": 600000}})
	task, ok := created["task"].(map[string]any)
	if !ok {
		t.Fatalf("tools/call as a task returned %v, want a task", created)
	}
	taskID := task["taskId"].(string)

	deadline := time.Now().Add(testkit.WaitLimit)
	for status := task["status"]; status != "completed"; {
		if time.Now().After(deadline) || status == "failed" || status == "cancelled" {
			t.Fatalf("task status %v", status)
		}
		time.Sleep(100 * time.Millisecond)
		status = rpc(t, url, session, 3, "tasks/get", map[string]any{"taskId": taskID})["status"]
	}
	result := rpc(t, url, session, 4, "tasks/result", map[string]any{"taskId": taskID})
	structured, _ := result["structuredContent"].(map[string]any)
	if structured["success"] != true || !strings.Contains(structured["report"].(string), "# Fake report") {
		t.Errorf("task result = %v", result)
	}
}

// hangingTask starts a deep_search that never ends as an MCP task over HTTP, on a server with o, and returns the
// endpoint, the session and the task's id once its CLI runs.
func hangingTask(t *testing.T, o Options) (url, session, taskID string, fake *geminitest.Fake) {
	t.Helper()
	s, fake := newPipelineServer(t, "hang", research.Settings{}, o, 60*time.Second)
	srv := httptest.NewServer(HTTPHandler(s, HTTPOptions{}))
	t.Cleanup(srv.Close)
	url = srv.URL + "/mcp"
	session = rpcSession(t, url)
	created := rpc(t, url, session, 2, "tools/call", map[string]any{"name": "deep_search",
		"arguments": map[string]any{"topic": "never ends"}, "task": map[string]any{}})
	taskID = created["task"].(map[string]any)["taskId"].(string)
	testkit.WaitFor(t, "the fake CLI to start", func() bool { return len(fake.LivePIDs()) > 0 })
	return url, session, taskID, fake
}

func TestCancellingATaskStopsTheCLI(t *testing.T) {
	url, session, taskID, fake := hangingTask(t, Options{})
	rpc(t, url, session, 3, "tasks/cancel", map[string]any{"taskId": taskID})
	testkit.WaitFor(t, "every fake CLI process to end", func() bool { return len(fake.LivePIDs()) == 0 })
	if status := rpc(t, url, session, 4, "tasks/get", map[string]any{"taskId": taskID})["status"]; status != "cancelled" {
		t.Errorf("status %v, want cancelled", status)
	}
}

// A call running as a task outlives its request, but not the app ending the calls (Stop server, a deleted session):
// it stops, and its result says why.
func TestAppEndsTaskCalls(t *testing.T) {
	reg := activity.New()
	url, session, taskID, fake := hangingTask(t, Options{Activity: reg})
	reg.CancelAll("the server was stopped from the tray menu", "Start it again.")
	testkit.WaitFor(t, "every fake CLI process to end", func() bool { return len(fake.LivePIDs()) == 0 })
	testkit.WaitFor(t, "the task to end", func() bool {
		status := rpc(t, url, session, 3, "tasks/get", map[string]any{"taskId": taskID})["status"]
		return status != "working"
	})
	result := rpc(t, url, session, 4, "tasks/result", map[string]any{"taskId": taskID})
	if text := fmt.Sprint(result); !strings.Contains(text, "CANCELLED") || !strings.Contains(text, "the server was stopped from the tray menu") {
		t.Errorf("task result %v, want CANCELLED with the reason", result)
	}
}

// Every task gets a TTL within half an hour and a day, an hour when it asks for none, so that no result is kept
// for good and no run is forgotten before it could end: the client reads the TTL granted in the created task.
func TestTaskTTLIsBounded(t *testing.T) {
	s, _ := newPipelineServer(t, "ok", research.Settings{}, Options{}, 30*time.Second)
	srv := httptest.NewServer(HTTPHandler(s, HTTPOptions{}))
	defer srv.Close()
	url := srv.URL + "/mcp"
	session := rpcSession(t, url)
	for i, tt := range []struct {
		task map[string]any
		want float64
	}{
		{map[string]any{}, float64(time.Hour.Milliseconds())},
		{map[string]any{"ttl": 600000}, float64(minTaskTTL.Milliseconds())}, // shorter than a run may take
		{map[string]any{"ttl": 7200000}, 7200000},
		{map[string]any{"ttl": 10 * 365 * 24 * time.Hour.Milliseconds()}, float64(24 * time.Hour.Milliseconds())},
		{map[string]any{"ttl": int64(math.MaxInt64)}, float64(24 * time.Hour.Milliseconds())},
	} {
		created := rpc(t, url, session, 10+i, "tools/call", map[string]any{"name": "deep_search",
			"arguments": map[string]any{"topic": "ttl"}, "task": tt.task})
		task, _ := created["task"].(map[string]any)
		if task["ttl"] != tt.want {
			t.Errorf("task %v: granted ttl %v, want %v", tt.task, task["ttl"], tt.want)
		}
	}
}
