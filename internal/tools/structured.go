package tools

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools/argcheck"
)

func structuredTool() mcp.Tool {
	return mcp.NewTool("structured",
		mcp.WithTitleAnnotation("Ask Gemini for data in your JSON Schema"),
		mcp.WithDescription("Sends a request to a Gemini agent that can search Google and read web pages, and returns its "+
			"answer as a JSON object that validates against the JSON Schema you give (structuredContent). An answer "+
			"that does not fit is corrected once, quoting the validation errors; one that still does not is "+
			"SCHEMA_MISMATCH. _meta.partial marks an answer cut short (_meta.finishReason says why), _meta.firecrawl "+
			"one researched without Firecrawl, which did not start. Takes seconds to minutes; past wait_seconds (45 s by "+
			"default) a call answers status running with a research_id for research_result. Supports MCP tasks."),
		mcp.WithString("prompt", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(maxPromptLen),
			mcp.Description("The request: what data you need, with the context the agent needs.")),
		mcp.WithObject("schema", mcp.Required(),
			mcp.Description("A JSON Schema (draft 2020-12 unless $schema says otherwise) for the answer: its root must "+
				"be an object (type: object). At most 64 KiB; it may not $ref other documents.")),
		modelArgument(),
		freshArgument(),
		waitArgument(),
		mcp.WithTaskSupport(mcp.TaskSupportOptional),
		readOnlyAnnotations(true),
	)
}

// StructuredArgs are the arguments of structured.
type StructuredArgs struct {
	Prompt      string          `json:"prompt"`
	Schema      json.RawMessage `json:"schema"` // a JSON Schema whose root is an object
	Model       string          `json:"model,omitempty"`
	Fresh       bool            `json:"fresh,omitempty"`
	WaitSeconds *int            `json:"wait_seconds,omitempty"` // nil: GEMINI_CALL_WAIT
}

// Structured asks the agent for data in the caller's schema. Its answer's structured content is the value itself,
// which follows that schema, so the tool declares no output schema of its own; a failure is an error as the
// others'.
func (t *Tools) Structured(ctx context.Context, a StructuredArgs) (*Answer, error) {
	return record(ctx, t, "structured", a.Prompt, func(ctx context.Context) (*Answer, error) {
		if err := t.checkArguments("structured", a); err != nil {
			return nil, err
		}
		if strings.TrimSpace(a.Prompt) == "" {
			return nil, blankArgument("structured", "prompt")
		}
		schemaJSON, validate, err := argcheck.CallerSchema(a.Schema)
		if err != nil {
			return nil, &Error{Code: backend.CodeInvalidArgument, Message: "invalid arguments for structured: schema " + err.Error()}
		}
		rep, err := t.research(ctx, a.Model, func(ctx context.Context, p research.Progress) (research.Report, error) {
			return t.engine.Structured(ctx, research.StructuredRequest{Prompt: a.Prompt, Schema: schemaJSON,
				Validate: validate, Model: a.Model, Fresh: a.Fresh, Progress: p})
		})
		if err != nil {
			return nil, err
		}
		return answerOf(rep)
	})
}

// The _meta fields of a structured answer that the other tools give in their metadata: why its answer stopped
// before its end (metadata.finish_reason), and that Firecrawl, configured, did not start (metadata.firecrawl).
const (
	metaFinishReason = "finishReason"
	metaFirecrawl    = "firecrawl"
)

// Answer is structured's answer: a value in the caller's schema, and how it was made.
type Answer struct {
	Value map[string]any
	Text  string // Value as the agent wrote it
	rep   research.Report
}

// answerOf is the answer rep holds, a JSON object.
func answerOf(rep research.Report) (*Answer, error) {
	var value map[string]any
	if err := json.Unmarshal([]byte(rep.Report), &value); err != nil {
		return nil, &Error{Code: backend.CodeSchemaMismatch, Message: "the answer is not a JSON object"}
	}
	return &Answer{Value: value, Text: rep.Report, rep: rep}, nil
}

// CallToolResult is the value as structuredContent and as JSON text, with how it was made in _meta, since the
// value has room for nothing else: the fields the other tools give in their metadata.
func (a *Answer) CallToolResult() *mcp.CallToolResult {
	md := a.rep.Metadata
	res := mcp.NewToolResultStructured(a.Value, a.Text)
	res.Meta = runOf(md, a.rep.Partial).meta()
	fields := res.Meta.AdditionalFields
	if len(md.SourcesVisited) > 0 {
		fields["sources"] = md.SourcesVisited
	}
	if md.Cached {
		fields["cached"] = true
	}
	if md.FinishReason != "" {
		fields[metaFinishReason] = md.FinishReason
	}
	if md.Firecrawl != "" {
		fields[metaFirecrawl] = md.Firecrawl
	}
	return res
}

func (a *Answer) firecrawl() string { return a.rep.Metadata.Firecrawl }

func (a *Answer) size() int { return len(a.Text) }
