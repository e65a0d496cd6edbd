package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/mcpserver/tasks"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools"
)

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
	res, err := testkit.Client.Do(req)
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
	s, _ := newPipelineServer(t, "slow", research.Settings{MaxRounds: 2}, tools.Options{}, 30*time.Second)
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
func hangingTask(t *testing.T, o tools.Options) (url, session, taskID string, fake *geminitest.Fake) {
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
	url, session, taskID, fake := hangingTask(t, tools.Options{})
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
	url, session, taskID, fake := hangingTask(t, tools.Options{Activity: reg})
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
	s, _ := newPipelineServer(t, "ok", research.Settings{}, tools.Options{}, 30*time.Second)
	srv := httptest.NewServer(HTTPHandler(s, HTTPOptions{}))
	defer srv.Close()
	url := srv.URL + "/mcp"
	session := rpcSession(t, url)
	for i, tt := range []struct {
		task map[string]any
		want float64
	}{
		{map[string]any{}, float64(time.Hour.Milliseconds())},
		{map[string]any{"ttl": 600000}, float64(tasks.MinTTL.Milliseconds())}, // shorter than a run may take
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

func TestDeepSearchTaskWritesOutputFile(t *testing.T) {
	dir := t.TempDir()
	s, _ := newPipelineServer(t, "ok", research.Settings{MaxRounds: 2}, tools.Options{OutputDir: func() string { return dir }}, 30*time.Second)
	srv := httptest.NewServer(HTTPHandler(s, HTTPOptions{}))
	defer srv.Close()
	url := srv.URL + "/mcp"
	session := rpcSession(t, url)
	created := rpc(t, url, session, 2, "tools/call", map[string]any{"name": "deep_search",
		"arguments": map[string]any{"topic": "task topic", "output_file": "task.md"}, "task": map[string]any{}})
	taskID := created["task"].(map[string]any)["taskId"].(string)

	testkit.WaitFor(t, "the task to complete", func() bool {
		return rpc(t, url, session, 3, "tasks/get", map[string]any{"taskId": taskID})["status"] == "completed"
	})
	result := rpc(t, url, session, 4, "tasks/result", map[string]any{"taskId": taskID})
	structured, _ := result["structuredContent"].(map[string]any)
	status, _ := structured["output_file"].(map[string]any)
	if structured["success"] != true || status["written"] != true || status["path"] != filepath.Join(dir, "task.md") {
		t.Fatalf("task result = %v, want the report written to task.md", result)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "task.md")); err != nil || string(got) != structured["report"] {
		t.Errorf("task.md holds %q (%v), want the report", got, err)
	}
}

// TestResearchOutlivesItsSession: research whose call answered running goes on after its client ends its session,
// and research_result from another session returns its report.
func TestResearchOutlivesItsSession(t *testing.T) {
	t.Setenv(geminitest.EnvDelay, "1s")
	reg := activity.New()
	s, _ := newPipelineServer(t, "slow", research.Settings{}, tools.Options{Activity: reg}, 30*time.Second)
	srv := httptest.NewServer(HTTPHandler(s, HTTPOptions{SessionEnded: func(id string) {
		reg.CancelSession(id, "the client ended its MCP session", "Call again in a new session.")
	}}))
	defer srv.Close()
	url := srv.URL + "/mcp"
	first := rpcSession(t, url)
	running := rpc(t, url, first, 2, "tools/call", map[string]any{"name": "search",
		"arguments": map[string]any{"query": "outlives its session", "wait_seconds": 0}})
	body, _ := running["structuredContent"].(map[string]any)
	id, _ := body["research_id"].(string)
	if body["status"] != "running" || id == "" {
		t.Fatalf("tools/call = %v, want status running with a research_id", running)
	}
	req, _ := http.NewRequest(http.MethodDelete, url, nil)
	req.Header.Set("Mcp-Session-Id", first)
	if res, err := testkit.Client.Do(req); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("DELETE the session: %v, %v", res, err)
	}

	result := rpc(t, url, rpcSession(t, url), 2, "tools/call", map[string]any{"name": "research_result",
		"arguments": map[string]any{"research_id": id, "wait_seconds": 600}})
	if report, _ := result["structuredContent"].(map[string]any); report["success"] != true || report["report"] == nil {
		t.Errorf("research_result from another session = %v, want the report", result)
	}
}
