package tools

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools/clientpath"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools/schemas"
)

// AskArgs are the arguments of ask.
type AskArgs struct {
	Prompt           string `json:"prompt"`
	Model            string `json:"model,omitempty"`
	WorkingDirectory string `json:"workingDirectory,omitempty"`
	Fresh            bool   `json:"fresh,omitempty"`
	WaitSeconds      *int   `json:"wait_seconds,omitempty"` // nil: GEMINI_CALL_WAIT
}

func askTool() mcp.Tool {
	return mcp.NewTool("ask",
		mcp.WithTitleAnnotation("Ask Gemini"),
		mcp.WithDescription("Sends a free request to a Gemini agent that can search Google and read web pages, and returns "+
			"its answer in Markdown, with the sources it used. Use it for what is not a research report: explain, compare, "+
			"review, draft. The agent cannot run commands or change files. Takes seconds to minutes; past wait_seconds (45 s "+
			"by default) a call answers status running with a research_id for research_result. Supports MCP tasks."),
		mcp.WithString("prompt", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(maxPromptLen),
			mcp.Description("The request, with the context the agent needs. On the Gemini CLI backend, @path names a file "+
				"or folder under workingDirectory (relative to it, or absolute) whose contents the agent gets; any other "+
				"@ reaches the agent as plain text.")),
		modelArgument(),
		mcp.WithString("workingDirectory", mcp.MinLength(1), mcp.MaxLength(maxPathLen),
			mcp.Description("An absolute path to an existing folder the agent may look into: its file tree and the files "+
				"the prompt names with @path (Gemini CLI backend; the API backend reads no files). Over stdio: any folder. "+
				"Over HTTP: only a folder under the server's GEMINI_WORKSPACE_ROOTS, and never a hidden one or one "+
				"holding the server's settings; refused when GEMINI_WORKSPACE_ROOTS is not set. Default: none.")),
		freshArgument(),
		waitArgument(),
		mcp.WithRawOutputSchema(json.RawMessage(schemas.Report)),
		mcp.WithTaskSupport(mcp.TaskSupportOptional),
		readOnlyAnnotations(true),
	)
}

// Ask sends a free request to the agent. A call whose context has a text sink (WithTextSink) gets the answer there
// too, as it is written.
func (t *Tools) Ask(ctx context.Context, a AskArgs) (*Report, error) {
	return record(ctx, t, "ask", a.Prompt, func(ctx context.Context) (*Report, error) {
		if err := t.checkArguments("ask", a); err != nil {
			return nil, err
		}
		if strings.TrimSpace(a.Prompt) == "" {
			return nil, blankArgument("ask", "prompt")
		}
		dir := a.WorkingDirectory
		if dir != "" {
			var err error
			if dir, err = clientpath.AgentFolder(dir, overStdio(ctx), t.opts.Workspace()); err != nil {
				return nil, &Error{Code: backend.CodeInvalidArgument, Message: "invalid arguments for ask: workingDirectory " + err.Error()}
			}
		}
		rep, err := t.research(ctx, a.Model, func(ctx context.Context, p research.Progress) (research.Report, error) {
			return t.engine.Ask(ctx, research.AskRequest{Prompt: a.Prompt, Model: a.Model, Dir: dir, Fresh: a.Fresh,
				Progress: p, OnText: textSink(ctx)})
		})
		if err != nil {
			return nil, err
		}
		return t.report(rep, clientpath.Output{}), nil
	})
}
