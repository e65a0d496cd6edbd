package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools"
)

func TestMain(m *testing.M) {
	geminitest.Main()
	os.Exit(m.Run())
}

// newServer serves the tools over engine, with options o, as the app does.
func newServer(engine tools.Engine, o tools.Options) *server.MCPServer {
	return New(tools.New(engine, o), Options{Version: o.Version})
}

// newEngine is the real engine, with settings s, over a fake CLI playing scenario.
func newEngine(t *testing.T, scenario string, s research.Settings, timeout time.Duration) (*research.Engine, *geminitest.Fake) {
	t.Helper()
	fake := geminitest.New(t, scenario)
	runner := gemini.NewRunner(gemini.Config{Command: fake.Command(), Dir: t.TempDir(), Timeout: timeout, KillGrace: 300 * time.Millisecond})
	engine, err := research.New(runner, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return engine, fake
}

// newPipelineServer serves the real engine over a fake CLI with the given settings and options.
func newPipelineServer(t *testing.T, scenario string, s research.Settings, o tools.Options, timeout time.Duration) (*server.MCPServer, *geminitest.Fake) {
	t.Helper()
	engine, fake := newEngine(t, scenario, s, timeout)
	o.Version = "test"
	return newServer(engine, o), fake
}

// newTestServer serves the real engine and runner over a fake Gemini CLI playing scenario.
func newTestServer(t *testing.T, scenario string) (*server.MCPServer, *geminitest.Fake) {
	return newPipelineServer(t, scenario, research.Settings{JSONMaxRetries: 1, MaxIterations: 5}, tools.Options{}, 30*time.Second)
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

// connectStdio serves s through ServeStdio over pipes and returns a client of it.
func connectStdio(t *testing.T, s *server.MCPServer) *client.Client {
	t.Helper()
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- ServeStdio(ctx, s, serverIn, serverOut, nil) }()
	c := client.NewClient(transport.NewIO(clientIn, clientOut, nil))
	t.Cleanup(func() {
		c.Close()
		cancel()
		serverOut.Close()
		if err := <-served; err != nil {
			t.Errorf("ServeStdio: %v", err)
		}
	})
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	testkit.Initialize(t, ctx, c)
	return c
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

func decodeBody(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(resultText(t, res)), &m); err != nil {
		t.Fatal(err)
	}
	return m
}
