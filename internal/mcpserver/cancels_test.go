package mcpserver

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools"
)

// TestTimedOutClientsCancelNothing: a cancel whose reason says the client timed out (as the TypeScript SDK sends
// when its request timeout fires) leaves the call and its research running, over stdio and over HTTP (a client of
// the protocols with sessions, and one of 2026-07-28, whose notifications name no session), while a cancel with any
// other reason ends them.
func TestTimedOutClientsCancelNothing(t *testing.T) {
	for _, transport := range []string{"stdio", "http", "http 2026-07-28"} {
		for reason, cancels := range map[string]bool{
			"McpError: MCP error -32001: Request timed out": false,
			"the user stopped it":                           true,
		} {
			t.Run(transport+"/"+reason, func(t *testing.T) {
				t.Parallel()
				e := blockedEngine{started: make(chan struct{}, 1), release: make(chan struct{})}
				c := connectOver(t, transport, newServer(e, tools.Options{Version: "test"}))
				answered := make(chan *mcp.CallToolResult, 1)
				go func() {
					answered <- call(context.Background(), t, c, "search", map[string]any{"query": "q", "wait_seconds": 600}, nil)
				}()
				<-e.started
				for id := range 10 { // every request this client may have sent
					n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
						Method: "notifications/cancelled",
						Params: mcp.NotificationParams{AdditionalFields: map[string]any{"requestId": id, "reason": reason}}}}
					if transport == "http 2026-07-28" { // its messages name their protocol
						n.Params.Meta = map[string]any{"io.modelcontextprotocol/protocolVersion": mcp.ProtocolVersion20260728}
					}
					if err := c.GetTransport().SendNotification(context.Background(), n); err != nil {
						t.Fatal(err)
					}
				}
				if err := c.Ping(context.Background()); err != nil { // answered once the cancels before it are handled
					t.Fatal(err)
				}
				if !cancels {
					close(e.release) // the research ends on its own: the call answers with its report
				}
				res := <-answered
				if got := res.IsError && strings.Contains(resultText(t, res), "CANCELLED"); got != cancels {
					t.Errorf("a call cancelled with the reason %q = %s; want cancelled: %v", reason, resultText(t, res), cancels)
				}
			})
		}
	}
}

// connectOver connects a client to s over transport: stdio; http, a client of the protocols with sessions, as the
// TypeScript SDK's v1 is; or http 2026-07-28, one of that protocol, without sessions.
func connectOver(t *testing.T, transport string, s *server.MCPServer) *client.Client {
	t.Helper()
	if transport == "stdio" {
		return connectStdio(t, s)
	}
	srv := httptest.NewServer(HTTPHandler(s, HTTPOptions{}))
	t.Cleanup(srv.Close)
	c, err := testkit.HTTPClient(srv.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = "2025-11-25"
	if transport == "http 2026-07-28" {
		req.Params.ProtocolVersion = mcp.ProtocolVersion20260728
	}
	req.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
	if _, err := c.Initialize(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	return c
}
