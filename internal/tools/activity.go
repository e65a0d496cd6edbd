package tools

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

// subjectOf is what a call is about, for people watching: its query, topic, prompt or id argument, read before its
// arguments are checked.
func subjectOf(req mcp.CallToolRequest) string {
	for _, key := range []string{"query", "topic", "prompt", "id"} {
		if v := req.GetString(key, ""); v != "" {
			return v
		}
	}
	return ""
}

// failureOf is e as the activity keeps it; nil for a cancelled call, which is no failure.
func failureOf(e *Error) *activity.Failure {
	if e.Code == backend.CodeCancelled {
		return nil
	}
	return &activity.Failure{Code: e.Code, Message: e.Message, Details: e.Details}
}

// warningOf is the warning about an answer researched without Firecrawl, which was firecrawl ("unavailable: …");
// nil when firecrawl is "".
func warningOf(firecrawl string) *activity.Failure {
	if firecrawl == "" {
		return nil
	}
	return &activity.Failure{Warning: true, Code: backend.CodeFirecrawlUnavailable,
		Message: "Researched without Firecrawl, which was " + firecrawl,
		Details: "Start the command of mcpServers.firecrawl in the config folder's .gemini/settings.json by hand to see why; " +
			"the first start downloads firecrawl-mcp, which may take longer than its start timeout allows."}
}

// SessionOf is the id of the MCP session a call came in on; "" when there is none.
func SessionOf(ctx context.Context) string {
	if s := server.ClientSessionFromContext(ctx); s != nil {
		return s.SessionID()
	}
	return ""
}
