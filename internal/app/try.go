package app

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/history"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/web"
)

// TrySearch sends query to the search tool's own handler, as a client's call would go (it shows among the running
// searches and lands in the history), but never answered from the cache, and returns its report as the history
// keeps it. A failed search is a *web.SearchError with the tool's code, message and fix.
func (a *App) TrySearch(ctx context.Context, query string) (history.Report, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "search", map[string]any{"query": query, "fresh": true}
	res, err := a.tools.Handler("search")(ctx, req)
	if err != nil {
		return history.Report{}, err
	}
	body, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return history.Report{}, fmt.Errorf("read the search's result: %w", err)
	}
	if res.IsError {
		var failed struct{ Error web.SearchError }
		if err := json.Unmarshal(body, &failed); err != nil {
			return history.Report{}, fmt.Errorf("read the search's error: %w", err)
		}
		return history.Report{}, &failed.Error
	}
	var rep research.Report
	if err := json.Unmarshal(body, &rep); err != nil {
		return history.Report{}, fmt.Errorf("read the search's report: %w", err)
	}
	return historyReport("search", rep, time.Now()), nil
}
