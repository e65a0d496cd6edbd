package mcpserver

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools"
)

// blockedEngine holds every research call until release is closed.
type blockedEngine struct {
	started chan struct{}
	release chan struct{}
}

func (e blockedEngine) Search(ctx context.Context, _ research.SearchRequest) (research.Report, error) {
	e.started <- struct{}{}
	select {
	case <-e.release:
		return research.Report{Success: true, Report: "done"}, nil
	case <-ctx.Done():
		return research.Report{}, ctx.Err()
	}
}

func (e blockedEngine) DeepSearch(ctx context.Context, _ research.DeepSearchRequest) (research.Report, error) {
	return e.Search(ctx, research.SearchRequest{})
}

func (e blockedEngine) Ask(ctx context.Context, _ research.AskRequest) (research.Report, error) {
	return e.Search(ctx, research.SearchRequest{})
}

func (e blockedEngine) Structured(ctx context.Context, _ research.StructuredRequest) (research.Report, error) {
	return e.Search(ctx, research.SearchRequest{})
}

func (e blockedEngine) FollowUp(ctx context.Context, _ research.FollowUpRequest) (research.Report, error) {
	return e.Search(ctx, research.SearchRequest{})
}

func (e blockedEngine) Fetch(ctx context.Context, _ research.FetchRequest) (research.Report, error) {
	return e.Search(ctx, research.SearchRequest{})
}

// Over stdio, searches in flight never hold up another call: only the research queue limits research.
func TestStdioCallsDoNotWaitBehindSearches(t *testing.T) {
	t.Parallel()
	const searches = 20 // far more than mcp-go's default of 5 workers
	e := blockedEngine{started: make(chan struct{}, searches), release: make(chan struct{})}
	c := connectStdio(t, newServer(e, tools.Options{Version: "test"}))

	done := make(chan error, searches)
	for i := range searches {
		go func() {
			req := mcp.CallToolRequest{}
			req.Params.Name = "search"
			req.Params.Arguments = map[string]any{"query": "q" + string(rune('a'+i))}
			_, err := c.CallTool(context.Background(), req)
			done <- err
		}()
	}
	release := sync.OnceFunc(func() { close(e.release) })
	defer release()
	for i := range searches { // every search runs at once
		select {
		case <-e.started:
		case <-time.After(testkit.WaitLimit):
			t.Fatalf("only %d of %d searches started: the others wait behind them", i, searches)
		}
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "fetch_chunk"
	req.Params.Arguments = map[string]any{"id": "0123456789abcdef", "index": 2}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := c.CallTool(ctx, req)
	if err != nil || !res.IsError {
		t.Errorf("fetch_chunk while %d searches run: got %v, %v; want its CHUNK_NOT_FOUND answer at once", searches, res, err)
	}
	release()
	for range searches {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
