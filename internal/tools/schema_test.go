package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	mg "github.com/gemini-search-mcp/gemini-search-mcp/internal/mockgemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools/clientpath/clientpathtest"
)

// TestResultsMatchTheirOutputSchemas: every tool declares an output schema, and each kind of result it returns
// (a report, a report in parts, a partial report, one cut off at MAX_TOKENS, one researched without Firecrawl, each
// error) validates against the schema the tool declares in tools/list. The check is stricter than the schema: a
// field the schema does not describe fails it too, so a new field cannot reach clients undocumented.
func TestResultsMatchTheirOutputSchemas(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("Line of a long report.\n", 40)
	answer, _ := json.Marshal(map[string]any{"success": true, "report": long})
	ok := connect(t, localServer(t, geminitest.ScenarioOK, 30*time.Second, geminitest.EnvAnswer+"=```json\n"+string(answer)+"\n```"))
	failing := connect(t, localServer(t, geminitest.ScenarioQuota, 30*time.Second))
	timingOut := connect(t, localServer(t, geminitest.ScenarioHang, time.Second))
	hanging := connect(t, localServer(t, geminitest.ScenarioHang, 30*time.Second))
	running := call(context.Background(), t, hanging, "search", map[string]any{"query": "still running", "wait_seconds": 0}, nil)
	researchID, _ := decodeBody(t, running)["research_id"].(string)
	if decodeBody(t, running)["status"] != "running" || researchID == "" {
		t.Fatalf("a search that outlasts its wait answered %s, not status running with its id", resultText(t, running))
	}
	dir := t.TempDir()
	clientpathtest.Mkdir(t, filepath.Join(dir, "taken"))
	writing := connect(t, localServerWith(t, geminitest.ScenarioOK, 30*time.Second, Options{OutputDir: func() string { return dir }}))

	pinged := connect(t, localServerWith(t, geminitest.ScenarioOK, time.Second, Options{Status: func() Status {
		return Status{Status: "ok", Version: "1.2.3", GeminiCLI: "/usr/bin/gemini", CLISignedIn: true, Backend: "api",
			BackendMode: "auto", BackendReason: "the Gemini CLI is not signed in", WarmWorkers: 1, RunningSearches: 2}
	}}))
	withoutFirecrawl := connect(t, newServer(cliEngine(t, geminitest.ScenarioNoFirecrawl, "FIRECRAWL_API_KEY=fc-test-key"),
		Options{Version: "test"}))
	mock := mg.New()
	mock.Handle(mg.KindSearch, mg.Always(mg.MaxTokens("Der Föhn ist ein warmer")))
	cutOff := connect(t, newServer(apiEngine(t, mock), Options{Version: "test"}))
	schemas := declaredSchemas(t, ok)
	report := call(context.Background(), t, ok, "search", map[string]any{"query": "q"}, nil)
	chunks, _ := decodeBody(t, report)["chunks"].(map[string]any)
	if chunks == nil {
		t.Fatalf("the long report came in one piece: %s", resultText(t, report))
	}
	id := chunks["id"].(string)
	results := []struct {
		name, tool string
		res        *mcp.CallToolResult
	}{
		{"a report in parts", "search", report},
		{"a deep report", "deep_search", call(context.Background(), t, ok, "deep_search", map[string]any{"topic": "t", "depth": "concise"}, nil)},
		{"a quota error", "search", call(context.Background(), t, failing, "search", map[string]any{"query": "q"}, nil)},
		{"a deep search error", "deep_search", call(context.Background(), t, failing, "deep_search", map[string]any{"topic": "t"}, nil)},
		{"a partial report", "search", call(context.Background(), t, timingOut, "search", map[string]any{"query": "q"}, nil)},
		{"a report cut off at MAX_TOKENS", "search", call(context.Background(), t, cutOff, "search", map[string]any{"query": "q"}, nil)},
		{"a report without Firecrawl", "search", call(context.Background(), t, withoutFirecrawl, "search", map[string]any{"query": "q"}, nil)},
		{"a raw search without Firecrawl", "search", call(context.Background(), t, withoutFirecrawl, "search", map[string]any{"query": "raw q", "raw": true}, nil)},
		{"invalid arguments", "search", call(context.Background(), t, ok, "search", map[string]any{"query": ""}, nil)},
		{"a report written to a file", "search", call(context.Background(), t, writing, "search", map[string]any{"query": "q", "output_file": "r.md"}, nil)},
		{"a report whose file failed", "deep_search", call(context.Background(), t, writing, "deep_search", map[string]any{"topic": "t", "output_file": "taken"}, nil)},
		{"a refused output_file", "search", call(context.Background(), t, ok, "search", map[string]any{"query": "q", "output_file": "r.md"}, nil)},
		{"a part", "fetch_chunk", call(context.Background(), t, ok, "fetch_chunk", map[string]any{"id": id, "index": 2}, nil)},
		{"an unknown part", "fetch_chunk", call(context.Background(), t, ok, "fetch_chunk", map[string]any{"id": "0123456789abcdef", "index": 2}, nil)},
		{"the status", "ping", call(context.Background(), t, pinged, "ping", nil, nil)},
		{"a raw search", "search", call(context.Background(), t, ok, "search", map[string]any{"query": "raw q", "raw": true, "limit": 1}, nil)},
		{"an answer", "ask", call(context.Background(), t, ok, "ask", map[string]any{"prompt": "p"}, nil)},
		{"a missing folder", "ask", call(context.Background(), t, ok, "ask", map[string]any{"prompt": "p", "workingDirectory": "/nonexistent"}, nil)},
		{"a search still running", "search", running},
		{"a research cancelled", "research_cancel", call(context.Background(), t, hanging, "research_cancel", map[string]any{"research_id": researchID}, nil)},
		{"the library", "list_research", call(context.Background(), t, ok, "list_research", map[string]any{"query": "go"}, nil)},
		{"a bad since", "list_research", call(context.Background(), t, ok, "list_research", map[string]any{"since": "2026-13-45"}, nil)},
		{"an unknown research", "research_cancel", call(context.Background(), t, ok, "research_cancel", map[string]any{"research_id": "0123456789abcdef"}, nil)},
		{"a follow-up of unknown research", "follow_up", call(context.Background(), t, ok, "follow_up", map[string]any{"research_id": "0123456789abcdef", "question": "q"}, nil)},
		{"a page", "fetch", call(context.Background(), t, ok, "fetch", map[string]any{"url": "http://93.184.215.14/page"}, nil)},
		{"a page of this machine", "fetch", call(context.Background(), t, ok, "fetch", map[string]any{"url": "http://127.0.0.1:3000/"}, nil)},
	}
	// What these results must carry for the check to hold them to the fields' descriptions at all.
	says := map[string]string{"a report cut off at MAX_TOKENS": "finish_reason", "a report without Firecrawl": "firecrawl",
		"a raw search without Firecrawl": "firecrawl"}
	for _, r := range results {
		if field := says[r.name]; field != "" {
			if m, _ := decodeBody(t, r.res)["metadata"].(map[string]any); m[field] == nil {
				t.Errorf("%s: metadata %v, without %s", r.name, m, field)
			}
		}
	}
	covered := map[string]bool{}
	for _, r := range results {
		covered[r.tool] = true
		t.Run(r.name, func(t *testing.T) {
			if r.res.StructuredContent == nil {
				t.Fatalf("%s returned no structured content: %s", r.tool, resultText(t, r.res))
			}
			b, _ := json.Marshal(r.res.StructuredContent)
			inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			if err := schemas[r.tool].Validate(inst); err != nil {
				t.Errorf("%s's result does not match its output schema: %v\n%s", r.tool, err, b)
			}
		})
	}
	for tool := range schemas {
		if !covered[tool] {
			t.Errorf("no result of %s is checked against its output schema", tool)
		}
	}
}

// localServer serves the real engine over a fake CLI of its own, so that servers of several scenarios run side by
// side; reports longer than 300 characters come in parts.
func localServer(t *testing.T, scenario string, timeout time.Duration, env ...string) *server.MCPServer {
	t.Helper()
	return localServerWith(t, scenario, timeout, Options{ResponseLimit: func() int { return 300 }}, env...)
}

// localServerWith is localServer with options o.
func localServerWith(t *testing.T, scenario string, timeout time.Duration, o Options, env ...string) *server.MCPServer {
	t.Helper()
	s, _ := localFakeServer(t, scenario, timeout, o, env...)
	return s
}

// localFakeServer is localServerWith, and its fake CLI.
func localFakeServer(t *testing.T, scenario string, timeout time.Duration, o Options, env ...string) (*server.MCPServer, *geminitest.Fake) {
	t.Helper()
	fake := geminitest.NewLocal(t, scenario)
	runner := gemini.NewRunner(gemini.Config{Command: fake.Command(), Dir: t.TempDir(), Timeout: timeout,
		KillGrace: 300 * time.Millisecond, ExtraEnv: append(fake.Env(), env...)})
	engine, err := research.New(runner, research.Settings{MaxRounds: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	o.Version = "test"
	return newServer(engine, o), fake
}

// declaredSchemas compiles the output schema of each tool c lists, closed to undescribed fields.
func declaredSchemas(t *testing.T, c *client.Client) map[string]*jsonschema.Schema {
	t.Helper()
	list, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*jsonschema.Schema{}
	for _, tool := range list.Tools {
		switch tool.Name {
		case "structured": // its answer follows the caller's schema: TestStructured holds it to that
			continue
		case "research_result": // it answers as the tool that started the research, whose schema holds
			continue
		}
		raw, _ := json.Marshal(tool.OutputSchema)
		if len(tool.RawOutputSchema) > 0 {
			raw = tool.RawOutputSchema
		}
		var doc map[string]any
		if err := json.Unmarshal(raw, &doc); err != nil || doc["type"] != "object" {
			t.Fatalf("%s declares no output schema: %s", tool.Name, raw)
		}
		closeObjects(doc)
		comp := jsonschema.NewCompiler()
		url := fmt.Sprintf("%s-output.json", tool.Name)
		if err := comp.AddResource(url, doc); err != nil {
			t.Fatal(err)
		}
		schemas[tool.Name] = comp.MustCompile(url)
	}
	return schemas
}

// closeObjects forbids properties that an object schema with properties does not describe.
func closeObjects(schema any) {
	m, ok := schema.(map[string]any)
	if !ok {
		return
	}
	if props, ok := m["properties"].(map[string]any); ok {
		if _, set := m["additionalProperties"]; !set {
			m["additionalProperties"] = false
		}
		for _, p := range props {
			closeObjects(p)
		}
	}
	closeObjects(m["items"])
}
