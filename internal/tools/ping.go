package tools

import (
	"context"
	"encoding/json"

	kept "github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools/schemas"
)

func pingTool() mcp.Tool {
	return mcp.NewTool("ping",
		mcp.WithTitleAnnotation("Server status"),
		mcp.WithDescription("Answers at once, without research: the server's version, the backend serving research (the "+
			"Gemini CLI or the Gemini API, and why), whether the CLI is installed and signed in, warm CLI processes, and "+
			"searches running and queued, and what the research used today and this month (tokens, searches, requests, "+
			"by backend and model). Use it to check the server before a long search."),
		mcp.WithRawOutputSchema(json.RawMessage(schemas.Status)),
		readOnlyAnnotations(false),
	)
}

// Status is the server's state as ping answers it and /healthz serves it: no research runs to find it.
type Status struct {
	Status          string `json:"status"` // "ok"
	Version         string `json:"version"`
	GeminiCLI       string `json:"gemini_cli"`           // how the CLI is started, or "missing"
	CLISignedIn     bool   `json:"gemini_cli_signed_in"` // the CLI has a sign-in of its own
	Backend         string `json:"backend"`              // cli or api: the one serving research now
	BackendMode     string `json:"backend_mode"`         // GEMINI_BACKEND
	BackendReason   string `json:"backend_reason"`       // why auto serves from the API; "" otherwise
	WarmWorkers     int    `json:"warm_workers"`
	RunningSearches int    `json:"running_searches"`
	QueuedSearches  int    `json:"queued_searches"`
	// Usage is what the research used today and this month (the usage meter); nil without a research library.
	Usage *kept.UsageMeter `json:"usage,omitempty"`
}

// Ping answers the server's status at once.
func (t *Tools) Ping(ctx context.Context, _ struct{}) (Status, error) {
	return record(ctx, t, "ping", "", func(context.Context) (Status, error) { return t.opts.Status(), nil })
}

// CallToolResult is the status as structured content.
func (s Status) CallToolResult() *mcp.CallToolResult { return structured(s) }

func (s Status) firecrawl() string { return "" }

func (s Status) size() int { return 0 }
