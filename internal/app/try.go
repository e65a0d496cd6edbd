package app

import (
	"context"
	"fmt"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/web"
)

// TrySearch runs query through the search tool, as a client's call would go (its arguments checked, among the
// running searches, into the history), but never answered from the cache, and returns its report as the history
// keeps it. A failed search is a *web.SearchError with the tool's code, message and fix.
func (a *App) TrySearch(ctx context.Context, query string) (record.Report, error) {
	res, err := a.tools.Search(ctx, tools.SearchArgs{Query: query, Fresh: true})
	if err != nil {
		return record.Report{}, searchError(tools.AsError(err))
	}
	rep, ok := res.(*tools.Report)
	if !ok { // a search that is not raw answers a report
		return record.Report{}, fmt.Errorf("the search answered %T, not a report", res)
	}
	return historyReport("search", rep.Report, time.Now()), nil
}

func searchError(e *tools.Error) *web.SearchError {
	return &web.SearchError{Code: e.Code, Message: e.Message, Details: e.Details}
}
