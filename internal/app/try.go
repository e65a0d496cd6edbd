package app

import (
	"context"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/history"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/web"
)

// TrySearch runs query through the search tool, as a client's call would go (its arguments checked, among the
// running searches, into the history), but never answered from the cache, and returns its report as the history
// keeps it. A failed search is a *web.SearchError with the tool's code, message and fix.
func (a *App) TrySearch(ctx context.Context, query string) (history.Report, error) {
	args := tools.SearchArgs{Query: query, Fresh: true}
	if refused := a.tools.CheckArguments(ctx, "search", query, args); refused != nil {
		return history.Report{}, searchError(refused)
	}
	res, err := a.tools.Search(ctx, args)
	if err != nil {
		return history.Report{}, searchError(tools.AsError(err))
	}
	return historyReport("search", res.(*tools.Report).Report, time.Now()), nil
}

func searchError(e *tools.Error) *web.SearchError {
	return &web.SearchError{Code: string(e.Code), Message: e.Message, Details: e.Details}
}
