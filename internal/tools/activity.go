package tools

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
)

// recordActivity registers every tool call in reg while it runs, runs it with the context reg gives it (which
// carries its Tracker for stage updates, and which the app can cancel with a reason), and records failures, and
// warnings about results (warningOf). A cancelled call is not a failure.
func recordActivity(reg *activity.Registry) server.ToolHandlerMiddleware {
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ctx, tracker := reg.Begin(ctx, SessionOf(ctx), req.Params.Name, subjectOf(req))
			res, err := next(ctx, req)
			tracker.End(failureOf(res, err))
			return res, err
		}
	}
}

// subjectOf is what a call is about, for people watching: its query or topic argument.
func subjectOf(req mcp.CallToolRequest) string {
	for _, key := range []string{"query", "topic", "prompt", "id"} {
		if v := req.GetString(key, ""); v != "" {
			return v
		}
	}
	return ""
}

func failureOf(res *mcp.CallToolResult, err error) *activity.Failure {
	switch {
	case err != nil:
		return &activity.Failure{Code: "INTERNAL_ERROR", Message: err.Error()}
	case res == nil:
		return nil
	case !res.IsError:
		return warningOf(res)
	}
	info := ErrorOf(res)
	if info.Code == CodeCancelled {
		return nil
	}
	if info.Code == "" { // every error result of ours has a code; this is a safety net
		info.Code = "TOOL_ERROR"
	}
	return &activity.Failure{Code: info.Code, Message: info.Message, Details: info.Details}
}

// codeFirecrawlUnavailable is the warning about a report researched without Firecrawl, which did not start.
const codeFirecrawlUnavailable = "FIRECRAWL_UNAVAILABLE"

// warningOf is what a report's result says its user should know, as a warning: that it was researched without
// Firecrawl, which did not start (metadata.firecrawl, or _meta.firecrawl for a structured answer). nil for every
// other result.
func warningOf(res *mcp.CallToolResult) *activity.Failure {
	var firecrawl string
	switch body := res.StructuredContent.(type) {
	case reportBody:
		firecrawl = body.Metadata.Firecrawl
	case rawBody:
		firecrawl = body.Metadata.Firecrawl
	default: // a structured answer's content is the caller's value: how it was made is in _meta (answerResult)
		if res.Meta != nil {
			firecrawl, _ = res.Meta.AdditionalFields[metaFirecrawl].(string)
		}
	}
	if firecrawl == "" {
		return nil
	}
	return &activity.Failure{Warning: true, Code: codeFirecrawlUnavailable,
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
