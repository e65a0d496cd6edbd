package app

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools"
)

// TestUsageMeter: after two searches (and an answer from the cache, which uses nothing), ping shows what the
// research used today and this month: both searches' tokens, summed, by backend and model, kept in the library.
func TestUsageMeter(t *testing.T) {
	fake := geminitest.New(t, geminitest.ScenarioOK)
	a, c, _ := startWithHistory(t, fake, nil)
	callTool(t, c, "search", map[string]any{"query": "first"})
	callTool(t, c, "search", map[string]any{"query": "second"})
	callTool(t, c, "search", map[string]any{"query": "second"}) // from the cache

	req := mcp.CallToolRequest{}
	req.Params.Name = "ping"
	res, err := c.CallTool(context.Background(), req)
	if err != nil || res.IsError {
		t.Fatalf("ping: %+v, %v", res, err)
	}
	var st tools.Status
	if err := json.Unmarshal([]byte(res.Content[0].(mcp.TextContent).Text), &st); err != nil {
		t.Fatal(err)
	}
	// The fake CLI's result says 24 + 14 = 38 tokens a run.
	if st.Usage == nil || len(st.Usage.Today) != 1 || st.Usage.Today[0].Calls != 2 || st.Usage.Today[0].TotalTokens != 76 ||
		st.Usage.Today[0].Backend != "cli" || len(st.Usage.Month) != 1 || st.Usage.Month[0].TotalTokens != 76 {
		t.Errorf("ping's usage: %+v", st.Usage)
	}
	if got := a.status().Usage; got == nil || got.Today[0].InputTokens != 48 {
		t.Errorf("/healthz's usage: %+v", got)
	}
}

// TestUsageLimits: once today's requests reach GEMINI_DAILY_REQUEST_LIMIT, a research call is refused with
// QUOTA_ERROR naming the variable, before any run; an answer from the cache still comes, as it costs nothing.
func TestUsageLimits(t *testing.T) {
	fake := geminitest.New(t, geminitest.ScenarioOK)
	_, c, _ := startWithHistory(t, fake, map[string]string{"GEMINI_DAILY_REQUEST_LIMIT": "2"})
	callTool(t, c, "search", map[string]any{"query": "first"})
	callTool(t, c, "search", map[string]any{"query": "second"})
	runs := len(fake.Calls())

	req := mcp.CallToolRequest{}
	req.Params.Name = "search"
	req.Params.Arguments = map[string]any{"query": "third"}
	res, err := c.CallTool(context.Background(), req)
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(mcp.TextContent).Text, "QUOTA_ERROR") ||
		!strings.Contains(res.Content[0].(mcp.TextContent).Text, "GEMINI_DAILY_REQUEST_LIMIT") {
		t.Fatalf("a search past the daily limit: %+v, %v; want QUOTA_ERROR naming the variable", res, err)
	}
	if len(fake.Calls()) != runs {
		t.Error("the refused search ran the CLI")
	}
	callTool(t, c, "search", map[string]any{"query": "first"}) // from the cache
}
