package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
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
	return newServer(engine, o), fake
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
	if body := decodeBody(t, res); !res.IsError || body["error"].(map[string]any)["code"] != string(backend.CodeQueueTimeout) {
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
	if body := decodeBody(t, res); !res.IsError || body["error"].(map[string]any)["code"] != string(backend.CodeChunkNotFound) {
		t.Errorf("unknown id: %v", body)
	}
	// A part past the last one: the id is good, so the fix is another index, not another search.
	res = call(context.Background(), t, c, "fetch_chunk", map[string]any{"id": id, "index": count + 1}, nil)
	e, _ := decodeBody(t, res)["error"].(map[string]any)
	if !res.IsError || e["code"] != string(backend.CodeInvalidArgument) || !strings.Contains(e["message"].(string), fmt.Sprintf("parts 1 to %d", count)) ||
		strings.Contains(e["details"].(string), "search again") {
		t.Errorf("index past the end: %v", e)
	}
}
