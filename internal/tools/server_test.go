package tools

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools/clientpath"
)

var update = flag.Bool("update", false, "rewrite the tool schema snapshots in testdata/")

func TestMain(m *testing.M) {
	geminitest.Main()
	os.Exit(m.Run())
}

// newTestServer serves the real engine and runner over a fake Gemini CLI playing scenario.
func newTestServer(t *testing.T, scenario string) (*server.MCPServer, *geminitest.Fake) {
	t.Helper()
	fake := geminitest.New(t, scenario)
	runner := gemini.NewRunner(gemini.Config{
		Command:   fake.Command(),
		Dir:       t.TempDir(),
		Timeout:   30 * time.Second,
		KillGrace: 300 * time.Millisecond,
	})
	engine, err := research.New(runner, research.Settings{JSONMaxRetries: 1, MaxIterations: 5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return newServer(engine, Options{Version: "test"}), fake
}

// connect returns an initialized in-process MCP client.
func connect(t *testing.T, s *server.MCPServer) *client.Client {
	t.Helper()
	c, err := client.NewInProcessClientWithOptions(s, client.WithLegacyProtocolOnly())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	testkit.Initialize(t, ctx, c)
	return c
}

func callSearch(ctx context.Context, t *testing.T, c *client.Client, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = "search"
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("tools/call: %v", err)
	}
	return res
}

func resultText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("got %d content items, want 1", len(res.Content))
	}
	tc, ok := mcp.AsTextContent(res.Content[0])
	if !ok {
		t.Fatalf("content is %T, want text", res.Content[0])
	}
	return tc.Text
}

func TestToolSchemasSnapshot(t *testing.T) {
	s, _ := newTestServer(t, "ok")
	c := connect(t, s)
	list, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) == 0 {
		t.Fatal("no tools listed")
	}
	for _, tool := range list.Tools {
		got, err := json.MarshalIndent(tool, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", "toolsnaps", tool.Name+".json")
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -update to create the snapshot)", err)
		}
		if strings.TrimSpace(string(want)) != string(got) {
			t.Errorf("tool %s changed its public schema; review and run go test -update:\ngot:\n%s", tool.Name, got)
		}
	}
}

// TestPing: ping answers at once with the status the server is given, and runs no research.
func TestPing(t *testing.T) {
	t.Parallel()
	fake := geminitest.NewLocal(t, geminitest.ScenarioHang)
	runner := gemini.NewRunner(gemini.Config{Command: fake.Command(), Dir: t.TempDir(), ExtraEnv: fake.Env()})
	engine, err := research.New(runner, research.Settings{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Status{Status: "ok", Version: "9.9.9", GeminiCLI: "missing", Backend: "api", BackendMode: "auto",
		BackendReason: "the Gemini CLI is not installed", QueuedSearches: 1}
	c := connect(t, newServer(engine, Options{Version: "9.9.9", Status: func() Status { return want }}))
	res := call(context.Background(), t, c, "ping", nil, nil)
	var got Status
	if b, _ := json.Marshal(res.StructuredContent); res.IsError || json.Unmarshal(b, &got) != nil || got != want {
		t.Errorf("ping: %+v, want %+v", res.StructuredContent, want)
	}
	if n := len(fake.Started()); n != 0 {
		t.Errorf("ping started %d CLI runs", n)
	}
}

// TestAskWorkingDirectory: workingDirectory must name an existing folder by an absolute path, or the call is
// refused before anything runs, saying why; a good one reaches the CLI.
func TestAskWorkingDirectory(t *testing.T) {
	t.Parallel()
	fake := geminitest.NewLocal(t, geminitest.ScenarioPlain)
	runner := gemini.NewRunner(gemini.Config{Command: fake.Command(), Dir: t.TempDir(), ExtraEnv: fake.Env()})
	engine, err := research.New(runner, research.Settings{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.EvalSymlinks(t.TempDir()) // over HTTP the CLI gets the folder with its links resolved
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, newServer(engine, Options{Version: "test", Workspace: func() clientpath.Workspace { return clientpath.Workspace{Roots: []string{dir}} }}))
	file := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for arg, want := range map[string]string{
		"relative/dir":                `workingDirectory "relative/dir" is not an absolute path`,
		filepath.Join(dir, "missing"): "does not exist",
		file:                          "is not a folder",
	} {
		res := call(context.Background(), t, c, "ask", map[string]any{"prompt": "p", "workingDirectory": arg}, nil)
		e, _ := decodeBody(t, res)["error"].(map[string]any)
		if msg, _ := e["message"].(string); !res.IsError || e["code"] != "INVALID_ARGUMENT" || !strings.Contains(msg, want) {
			t.Errorf("%s: got %s, want INVALID_ARGUMENT saying %q", arg, resultText(t, res), want)
		}
	}
	if n := len(fake.Calls()); n != 0 {
		t.Fatalf("%d CLI runs for refused calls", n)
	}
	res := call(context.Background(), t, c, "ask", map[string]any{"prompt": "Explain @f.txt", "workingDirectory": dir}, nil)
	if res.IsError || !slices.Contains(fake.Calls()[0].Args, dir) || decodeBody(t, res)["parse_warning"] != nil {
		t.Errorf("got %s, args %q", resultText(t, res), fake.Calls()[0].Args)
	}
}

// TestRawSearch: raw gives the report's text and its sources (titles, snippets), at most limit of them, instead of
// a report; a limit out of range is refused before anything runs.
func TestRawSearch(t *testing.T) {
	t.Parallel()
	answer := "```json\n" + `{"success": true, "report": "Two facts [1][2].", "metadata": {"sources": [
  {"url": "https://a.example/1", "title": "A", "snippet": "one"}, {"url": "https://b.example/2", "title": "B"}]}}` + "\n```"
	c := connect(t, localServer(t, geminitest.ScenarioOK, 30*time.Second, geminitest.EnvAnswer+"="+answer))
	res := call(context.Background(), t, c, "search", map[string]any{"query": "q", "raw": true, "limit": 1}, nil)
	b := decodeBody(t, res)
	sources, _ := b["sources"].([]any)
	// The summary cites no source past the limit: its marker of the second one is gone with it.
	if res.IsError || b["summary"] != "Two facts [1]." || b["report"] != nil || len(sources) != 1 ||
		sources[0].(map[string]any)["title"] != "A" || sources[0].(map[string]any)["snippet"] != "one" {
		t.Errorf("got %s", resultText(t, res))
	}
	for _, limit := range []int{0, 21} {
		res := call(context.Background(), t, c, "search", map[string]any{"query": "q", "limit": limit}, nil)
		if !res.IsError || !strings.Contains(resultText(t, res), "limit") {
			t.Errorf("limit %d: got %s, want it refused", limit, resultText(t, res))
		}
	}
	res = call(context.Background(), t, c, "search", map[string]any{"query": "q", "exclude_domains": []string{"not a domain"}}, nil)
	if !res.IsError || !strings.Contains(resultText(t, res), `exclude_domains: \"not a domain\" is not a domain`) {
		t.Errorf("a bad domain: got %s, want it refused, named", resultText(t, res))
	}
	for args, want := range map[string]map[string]any{
		"give recency, or after and before, not both": {"query": "q", "recency": "week", "after": "2026-01-01"},
		"before must be after after":                  {"query": "q", "after": "2026-02-01", "before": "2026-01-01"},
		`after: \"2026-02-30\" is not a date`:         {"query": "q", "after": "2026-02-30"},
		`language: \"not a tag!\" is not a BCP 47`:    {"query": "q", "language": "not a tag!"},
		`country: \"ZZ\" is not an ISO 3166 country`:  {"query": "q", "country": "ZZ"},
	} {
		if res := call(context.Background(), t, c, "search", want, nil); !res.IsError || !strings.Contains(resultText(t, res), args) {
			t.Errorf("%v: got %s, want %q", want, resultText(t, res), args)
		}
	}
	res = call(context.Background(), t, c, "search", map[string]any{"query": "q", "raw": true, "include_domains": []string{"https://www.B.example/x"}}, nil)
	if b := decodeBody(t, res); res.IsError || b["summary"] != "Two facts [1]." || len(b["sources"].([]any)) != 1 ||
		b["sources"].([]any)[0].(map[string]any)["title"] != "B" {
		t.Errorf("include_domains b.example: got %s, want the second source alone, numbered 1", resultText(t, res))
	}
}

func TestSearchAnnotations(t *testing.T) {
	tool := searchTool()
	a := tool.Annotations
	if a.ReadOnlyHint == nil || *a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint ||
		a.OpenWorldHint == nil || !*a.OpenWorldHint {
		t.Errorf("annotations = %+v, want not read-only (output_file writes a file), not destructive, open world", a)
	}
}

func TestSearchReturnsStructuredReport(t *testing.T) {
	s, fake := newTestServer(t, "ok")
	c := connect(t, s)
	res := callSearch(context.Background(), t, c, map[string]any{"query": "what is {depth}?", "model": "gemini-2.5-pro"})
	if res.IsError {
		t.Fatalf("isError set: %s", resultText(t, res))
	}

	var text research.Report
	if err := json.Unmarshal([]byte(resultText(t, res)), &text); err != nil {
		t.Fatalf("text content is not the JSON report: %v", err)
	}
	structured, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var rep research.Report
	if err := json.Unmarshal(structured, &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.Success || !strings.HasPrefix(rep.Report, "# Fake report") || text.Report != rep.Report {
		t.Errorf("report = %+v, want the fake's report in both text and structuredContent", rep)
	}
	m := rep.Metadata
	if m.Topic != "what is {depth}?" || m.Model != "gemini-2.5-pro" || m.Timestamp == "" || m.Iterations < 1 {
		t.Errorf("metadata = %+v", m)
	}
	if !slices.Contains(m.SourcesVisited, "https://example.com/a") || len(m.SearchQueriesUsed) == 0 {
		t.Errorf("sources %v, queries %v: want the agent's sources and queries", m.SourcesVisited, m.SearchQueriesUsed)
	}
	if res.Meta == nil || res.Meta.AdditionalFields["model"] != "gemini-2.5-pro" || res.Meta.AdditionalFields["partial"] != false {
		t.Errorf("_meta = %+v, want model and partial", res.Meta)
	}
	if _, ok := res.Meta.AdditionalFields["durationMs"]; !ok {
		t.Error("_meta lacks durationMs")
	}

	calls := fake.Calls()
	if len(calls) != 1 {
		t.Fatalf("CLI ran %d times, want 1", len(calls))
	}
	if !strings.Contains(calls[0].Stdin, "what is {depth}?") {
		t.Error("the query's {depth} was substituted; want it literal in the prompt")
	}
	if !hasFlag(calls[0].Args, "-m", "gemini-2.5-pro") {
		t.Errorf("args %v lack -m gemini-2.5-pro", calls[0].Args)
	}
}

func TestSearchErrorsAreResults(t *testing.T) {
	tests := []struct {
		scenario string
		wantCode string
	}{
		{"quota", "QUOTA_ERROR"},
		{"auth", "AUTH_ERROR"},
		{"untrusted", "UNTRUSTED_WORKSPACE"},
		{"empty", "EMPTY_RESPONSE"},
		{"crash", "CLI_ERROR"},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			s, _ := newTestServer(t, tt.scenario)
			res := callSearch(context.Background(), t, connect(t, s), map[string]any{"query": "q"})
			if !res.IsError {
				t.Fatal("isError not set")
			}
			var body struct {
				Success bool
				Error   struct{ Code, Message, Details string }
			}
			if err := json.Unmarshal([]byte(resultText(t, res)), &body); err != nil {
				t.Fatal(err)
			}
			if body.Success || body.Error.Code != tt.wantCode || body.Error.Message == "" {
				t.Errorf("got %+v, want success false and code %s with a message", body, tt.wantCode)
			}
		})
	}
}

func TestSearchRejectsBadArguments(t *testing.T) {
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"missing query", map[string]any{}, "query is required"},
		{"empty query", map[string]any{"query": ""}, "query must not be empty"},
		{"blank query", map[string]any{"query": "   "}, "query must contain text, not only white space"},
		{"too long", map[string]any{"query": strings.Repeat("x", maxQueryLen+1)}, "query must be at most 10000 characters long (got 10001)"},
		{"wrong type", map[string]any{"query": 42}, "query must be a string, not a number"},
		{"model like a flag", map[string]any{"query": "q", "model": "--yolo"}, `model \"--yolo\" is not valid`},
	}
	s, fake := newTestServer(t, "ok")
	c := connect(t, s)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := callSearch(context.Background(), t, c, tt.args)
			if !res.IsError {
				t.Fatal("isError not set")
			}
			if text := resultText(t, res); !strings.Contains(text, tt.want) {
				t.Errorf("error %q does not mention %q", text, tt.want)
			}
		})
	}
	if n := len(fake.Calls()); n != 0 {
		t.Errorf("the CLI ran %d times for invalid calls, want 0", n)
	}
}

func TestCancelledSearchStopsTheCLI(t *testing.T) {
	s, fake := newTestServer(t, "hang")
	c := connect(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		req := mcp.CallToolRequest{}
		req.Params.Name = "search"
		req.Params.Arguments = map[string]any{"query": "q"}
		res, _ := c.CallTool(ctx, req)
		done <- res
	}()
	testkit.WaitFor(t, "the fake CLI to start", func() bool { return len(fake.Calls()) == 1 && len(fake.LivePIDs()) > 0 })
	cancel()
	<-done
	testkit.WaitFor(t, "every fake CLI process to end", func() bool { return len(fake.LivePIDs()) == 0 })
}

func hasFlag(args []string, flag, value string) bool {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == flag && args[i+1] == value {
			return true
		}
	}
	return false
}

func TestActivityShowsRunsAndFailures(t *testing.T) {
	fake := geminitest.New(t, "hang") // searches, then hangs until cancelled
	runner := gemini.NewRunner(gemini.Config{Command: fake.Command(), Dir: t.TempDir(), Timeout: 30 * time.Second,
		KillGrace: 300 * time.Millisecond})
	engine, err := research.New(runner, research.Settings{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	reg := activity.New()
	c := connect(t, newServer(engine, Options{Version: "test", Activity: reg}))

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		req := mcp.CallToolRequest{}
		req.Params.Name = "search"
		req.Params.Arguments = map[string]any{"query": "watch me"}
		c.CallTool(ctx, req)
	}()
	testkit.WaitFor(t, "the search to show its stage in the registry", func() bool {
		s := reg.Snapshot()
		return len(s.Running) == 1 && s.Running[0].Tool == "search" && s.Running[0].Query == "watch me" &&
			s.Running[0].Stage == "searching: "+geminitest.FakeQuery
	})
	cancel()
	<-done
	testkit.WaitFor(t, "the search to leave the registry", func() bool { return len(reg.Snapshot().Running) == 0 })
	if f := reg.Snapshot().Failures; len(f) != 0 {
		t.Errorf("failures = %+v: a cancelled call is not a failure", f)
	}

	callSearch(context.Background(), t, c, map[string]any{"query": ""})
	f := reg.Snapshot().Failures
	if len(f) != 1 || f[0].Tool != "search" || f[0].Code != backend.CodeInvalidArgument || !strings.Contains(f[0].Message, "query") {
		t.Errorf("failures = %+v, want the invalid call", f)
	}
}

// A repeated search comes from the server's cache, saying so; fresh researches again.
func TestSearchCacheAndFresh(t *testing.T) {
	fake := geminitest.New(t, geminitest.ScenarioOK)
	runner := gemini.NewRunner(gemini.Config{Command: fake.Command(), Dir: t.TempDir(), Timeout: 30 * time.Second})
	engine, err := research.New(runner, research.Settings{Cache: research.NewCache(time.Minute)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, newServer(engine, Options{Version: "test"}))
	call := func(args map[string]any) *mcp.CallToolResult {
		t.Helper()
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = "search", args
		res, err := c.CallTool(context.Background(), req)
		if err != nil || res.IsError {
			t.Fatalf("got %v, %v", res, err)
		}
		return res
	}
	call(map[string]any{"query": "rust 2024"})
	res := call(map[string]any{"query": "Rust 2024"})
	meta := decodeBody(t, res)["metadata"].(map[string]any)
	if meta["cached"] != true || meta["cache_age_ms"] == nil || res.Meta.AdditionalFields["cached"] != true {
		t.Errorf("the second call: metadata %v, _meta %v; want it cached", meta, res.Meta.AdditionalFields)
	}
	res = call(map[string]any{"query": "rust 2024", "fresh": true})
	if decodeBody(t, res)["metadata"].(map[string]any)["cached"] != nil {
		t.Error("fresh: came from the cache")
	}
	if n := len(fake.Calls()); n != 2 {
		t.Errorf("the CLI ran %d times, want 2 (the first call and the fresh one)", n)
	}
}

// newServer serves the tools over engine, with options o, on a plain MCP server of the library's: the transport
// adds tasks and HTTP rules of its own (internal/mcpserver), which these tests leave out.
func newServer(engine Engine, o Options) *server.MCPServer {
	s := server.NewMCPServer("gemini-search-mcp", o.Version, server.WithToolCapabilities(false))
	s.AddTools(New(engine, o).ServerTools()...)
	return s
}
