// Package mcpserver exposes the research engine as MCP tools over stdio and Streamable HTTP.
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
)

// Name is the server name announced to MCP clients.
const Name = "gemini-search-mcp"

// Engine is the research engine the tools call. *research.Engine implements it.
type Engine interface {
	Search(ctx context.Context, req research.SearchRequest) (research.Report, error)
}

// MaxQueryLen bounds a query's length in characters.
const MaxQueryLen = 10000

// modelPattern keeps a model name from being read as a CLI flag.
const modelPattern = `^[A-Za-z0-9][A-Za-z0-9._:/-]{0,99}$`

// resultSchema describes structuredContent for both outcomes: a report, or an error.
const resultSchema = `{
  "type": "object",
  "properties": {
    "success": {"type": "boolean", "description": "true when a report was produced"},
    "report": {"type": "string", "description": "the research report in Markdown"},
    "parse_warning": {"type": "boolean", "description": "true when the agent's answer was not valid JSON and report holds its raw text"},
    "metadata": {
      "type": "object",
      "properties": {
        "duration_ms": {"type": "integer"},
        "topic": {"type": "string"},
        "depth": {"type": "string"},
        "model": {"type": "string"},
        "timestamp": {"type": "string", "format": "date-time"},
        "sources_visited": {"type": "array", "items": {"type": "string"}},
        "search_queries_used": {"type": "array", "items": {"type": "string"}},
        "iterations": {"type": "integer"},
        "output_truncated": {"type": "boolean"}
      }
    },
    "error": {
      "type": "object",
      "properties": {
        "code": {"type": "string"},
        "message": {"type": "string"},
        "details": {"type": "string"}
      },
      "required": ["code", "message"]
    }
  },
  "required": ["success"]
}`

// Options configure the MCP server.
type Options struct {
	Version  string
	Logger   *slog.Logger       // nil discards
	Activity *activity.Registry // records running calls and failures; nil records nothing
}

// New returns an MCP server with the research tools.
func New(engine Engine, o Options) *server.MCPServer {
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	opts := []server.ServerOption{
		server.WithToolCapabilities(false),
		server.WithRecovery(),
		server.WithInstructions("Web research through a Gemini CLI agent with Google Search grounding and Firecrawl scraping. " +
			"Use `search` for a question that needs current information from the web; it returns a Markdown report with sources. " +
			"A search takes from several seconds to a few minutes."),
	}
	if o.Activity != nil {
		opts = append(opts, server.WithToolHandlerMiddleware(recordActivity(o.Activity)))
	}
	s := server.NewMCPServer(Name, o.Version, opts...)
	t := &tools{engine: engine, log: logger}
	search := searchTool()
	s.AddTool(search, validated(search, t.search))
	return s
}

func searchTool() mcp.Tool {
	return mcp.NewTool("search",
		mcp.WithTitleAnnotation("Web research"),
		mcp.WithDescription("Researches a question on the web in a single round: a Gemini agent searches with Google Search, "+
			"reads pages (JavaScript-heavy ones through Firecrawl when configured), and returns a Markdown report with its sources. "+
			"Use it for quick answers that need current information."),
		mcp.WithString("query", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(MaxQueryLen),
			mcp.Description("The question or topic to research. Be specific: include names, versions and time frames.")),
		mcp.WithString("model", mcp.Pattern(modelPattern),
			mcp.Description("Gemini model for this call, e.g. gemini-2.5-pro. Default: the server's GEMINI_MODEL, else the CLI's choice.")),
		mcp.WithRawOutputSchema(json.RawMessage(resultSchema)),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithIdempotentHintAnnotation(true),
		mcp.WithOpenWorldHintAnnotation(true),
	)
}

type tools struct {
	engine Engine
	log    *slog.Logger
}

func (t *tools) search(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	start := time.Now()
	query := strings.TrimSpace(req.GetString("query", ""))
	if query == "" {
		return errorResult(start, "", &research.Failure{Code: CodeInvalidArgument,
			Message: "invalid arguments for search: query must contain text, not only white space"}), nil
	}
	model := req.GetString("model", "")
	rep, err := t.engine.Search(ctx, research.SearchRequest{Query: query, Model: model,
		Progress: activity.TrackerFrom(ctx).Stage})
	if err != nil {
		return errorResult(start, model, err), nil
	}
	return reportResult(rep), nil
}

// CodeInvalidArgument and CodeCancelled are the error codes the MCP layer adds to the engine's.
const (
	CodeInvalidArgument = "INVALID_ARGUMENT"
	CodeCancelled       = "CANCELLED"
)

// errorBody is the structured content of a failed call.
type errorBody struct {
	Success bool      `json:"success"`
	Error   errorInfo `json:"error"`
}

type errorInfo struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Details string `json:"details,omitempty"`
}

func reportResult(rep research.Report) *mcp.CallToolResult {
	res := structured(rep)
	res.Meta = meta(rep.Metadata.DurationMS, rep.Metadata.Model, false)
	return res
}

func errorResult(start time.Time, model string, err error) *mcp.CallToolResult {
	info := errorInfo{Code: research.CodeResearchFailed, Message: err.Error()}
	var f *research.Failure
	switch {
	case errors.As(err, &f):
		info = errorInfo{Code: f.Code, Message: f.Message, Details: f.Details}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		info = errorInfo{Code: CodeCancelled, Message: "the search was cancelled before it finished"}
	}
	res := errorResultInfo(info)
	res.Meta = meta(time.Since(start).Milliseconds(), model, false)
	return res
}

func errorResultInfo(info errorInfo) *mcp.CallToolResult {
	res := structured(errorBody{Error: info})
	res.IsError = true
	return res
}

// structured sends v both as structuredContent and as its JSON text, for clients that read only text.
func structured(v any) *mcp.CallToolResult {
	text, err := json.MarshalIndent(v, "", "  ")
	if err != nil { // only plain structs and strings are passed here
		panic(fmt.Sprintf("marshal tool result: %v", err))
	}
	return mcp.NewToolResultStructured(v, string(text))
}

func meta(durationMS int64, model string, partial bool) *mcp.Meta {
	fields := map[string]any{"durationMs": durationMS, "partial": partial}
	if model != "" {
		fields["model"] = model
	}
	return &mcp.Meta{AdditionalFields: fields}
}
