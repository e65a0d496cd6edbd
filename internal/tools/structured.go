package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
)

// maxSchemaBytes bounds a caller's JSON Schema, encoded.
const maxSchemaBytes = 64 << 10

func structuredTool() mcp.Tool {
	return mcp.NewTool("structured",
		mcp.WithTitleAnnotation("Ask Gemini for data in your JSON Schema"),
		mcp.WithDescription("Sends a request to a Gemini agent that can search Google and read web pages, and returns its "+
			"answer as a JSON object that validates against the JSON Schema you give (structuredContent). An answer "+
			"that does not fit is corrected once, quoting the validation errors; one that still does not is "+
			"SCHEMA_MISMATCH. _meta.partial marks an answer cut short (_meta.finishReason says why), _meta.firecrawl "+
			"one researched without Firecrawl, which did not start. Takes seconds to minutes; supports MCP tasks."),
		mcp.WithString("prompt", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(maxPromptLen),
			mcp.Description("The request: what data you need, with the context the agent needs.")),
		mcp.WithObject("schema", mcp.Required(),
			mcp.Description("A JSON Schema (draft 2020-12 unless $schema says otherwise) for the answer: its root must "+
				"be an object (type: object). At most 64 KiB; it may not $ref other documents.")),
		modelArgument(),
		freshArgument(),
		mcp.WithTaskSupport(mcp.TaskSupportOptional),
		readOnlyAnnotations(true),
	)
}

// structured runs the structured tool. Its result's structuredContent is the answer itself, which follows the
// caller's schema, so the tool declares no output schema of its own; a failure is an error result as the others'.
func (t *Tools) structured(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	prompt := req.GetString("prompt", "")
	model := req.GetString("model", "")
	fresh := req.GetBool("fresh", false)
	if strings.TrimSpace(prompt) == "" {
		return blankArgument("structured", "prompt"), nil
	}
	schemaJSON, schema, err := callerSchema(req.GetArguments()["schema"])
	if err != nil {
		return ErrorResult(Error{Code: CodeInvalidArgument,
			Message: "invalid arguments for structured: schema " + err.Error()}), nil
	}
	validate := func(v any) error {
		var verr *jsonschema.ValidationError
		if err := schema.Validate(v); errors.As(err, &verr) {
			return errors.New(strings.Join(describeAnswer(verr), "; "))
		} else if err != nil {
			return err
		}
		return nil
	}
	return t.research(ctx, req, model, answerResult, func(ctx context.Context, p research.Progress) (research.Report, error) {
		return t.engine.Structured(ctx, research.StructuredRequest{Prompt: prompt, Schema: schemaJSON, Validate: validate,
			Model: model, Fresh: fresh, Progress: p})
	}), nil
}

// callerSchema checks a caller's schema and compiles it: an object, at most maxSchemaBytes, valid JSON Schema, with
// an object at its root, and no reference to another document (which would read local files or the network).
func callerSchema(arg any) (string, *jsonschema.Schema, error) {
	raw, err := json.Marshal(arg)
	switch {
	case err != nil:
		return "", nil, fmt.Errorf("cannot be encoded: %v", err)
	case len(raw) > maxSchemaBytes:
		return "", nil, fmt.Errorf("is %d bytes; the limit is %d", len(raw), maxSchemaBytes)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		return "", nil, fmt.Errorf("is not JSON: %v", err)
	}
	if root, _ := doc.(map[string]any); root == nil || root["type"] != "object" {
		return "", nil, errors.New(`must describe an object ("type": "object" at its root): the answer is returned as structuredContent, which MCP requires to be an object`)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noDocuments{})
	if err := c.AddResource("schema.json", doc); err != nil {
		return "", nil, fmt.Errorf("is not valid JSON Schema: %v", err)
	}
	schema, err := c.Compile("schema.json")
	if err != nil {
		return "", nil, fmt.Errorf("is not valid JSON Schema: %v", err)
	}
	pretty, _ := json.MarshalIndent(arg, "", "  ")
	return string(pretty), schema, nil
}

// noDocuments refuses every document a schema refers to.
type noDocuments struct{}

func (noDocuments) Load(url string) (any, error) {
	return nil, fmt.Errorf("the schema may not refer to another document (%s): put every definition in $defs", url)
}

// printer renders the validator's messages in English.
var printer = message.NewPrinter(language.English)

// describeAnswer says what each leaf of verr finds wrong with an answer, with where in it.
func describeAnswer(verr *jsonschema.ValidationError) []string {
	var out []string
	for _, leaf := range leavesOf(verr) {
		at := "/" + strings.Join(leaf.InstanceLocation, "/")
		out = append(out, fmt.Sprintf("at %s: %s", at, leaf.ErrorKind.LocalizedString(printer)))
	}
	return out
}

// The _meta fields of a structured answer that the other tools give in their metadata: why its answer stopped
// before its end (metadata.finish_reason), and that Firecrawl did not start (metadata.firecrawl), which
// recordActivity reads there.
const (
	metaFinishReason = "finishReason"
	metaFirecrawl    = "firecrawl"
)

// answerResult shapes a structured answer: the value as structuredContent and as JSON text, and how it was made
// in _meta, since the value has room for nothing else.
func answerResult(rep research.Report) *mcp.CallToolResult {
	var value map[string]any
	if err := json.Unmarshal([]byte(rep.Report), &value); err != nil {
		return ErrorResult(Error{Code: research.CodeSchemaMismatch, Message: "the answer is not a JSON object"})
	}
	res := mcp.NewToolResultStructured(value, rep.Report)
	res.Meta = meta(rep.Metadata.DurationMS, rep.Metadata.Model, rep.Partial)
	addBackend(res.Meta, rep.Metadata.Backend, rep.Metadata.BackendReason)
	fields := res.Meta.AdditionalFields
	if len(rep.Metadata.SourcesVisited) > 0 {
		fields["sources"] = rep.Metadata.SourcesVisited
	}
	if rep.Metadata.Cached {
		fields["cached"] = true
	}
	if rep.Metadata.FinishReason != "" {
		fields[metaFinishReason] = rep.Metadata.FinishReason
	}
	if rep.Metadata.Firecrawl != "" {
		fields[metaFirecrawl] = rep.Metadata.Firecrawl
	}
	return res
}
