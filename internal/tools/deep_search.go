package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools/schemas"
)

// DeepSearchArgs are the arguments of deep_search.
type DeepSearchArgs struct {
	Topic  string `json:"topic"`
	Depth  string `json:"depth,omitempty"`  // "": research.DepthDetailed
	Engine string `json:"engine,omitempty"` // "": GEMINI_DEEP_RESEARCH_ENGINE
	PlanID string `json:"plan_id,omitempty"`
	Controls
	Model       string `json:"model,omitempty"`
	OutputFile  string `json:"output_file,omitempty"`
	Fresh       bool   `json:"fresh,omitempty"`
	WaitSeconds *int   `json:"wait_seconds,omitempty"` // nil: GEMINI_CALL_WAIT
}

func deepSearchTool() mcp.Tool {
	return mcp.NewTool("deep_search", append(controlArguments(),
		mcp.WithTitleAnnotation("Deep web research with verification"),
		mcp.WithDescription("Researches a topic thoroughly: a first round researches it, then verification rounds check the "+
			"draft's key claims against sources, look for newer or contradicting sources and for gaps, and correct the report. "+
			"Returns a Markdown report with sources and how many claims were verified and corrected. Takes 1 to 5 minutes: "+
			"a call waits up to wait_seconds (45 s by default), then answers status running with a research_id; call "+
			"research_result with it, again while it answers running, for the report, and do not start the same "+
			"deep_search again. engine google runs Google's Deep Research agent instead (Gemini API key with billing; "+
			"3 to 20 minutes, about $2-5 a report; depth max for its Max agent): the same research_id and "+
			"research_result apply. Supports MCP tasks and progress notifications."),
		mcp.WithString("topic", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(maxQueryLen),
			mcp.Description("The research question or topic. Be detailed: say what you need to know and why.")),
		mcp.WithString("depth", mcp.Enum(research.DepthConcise, research.DepthDetailed, research.DepthMax),
			mcp.DefaultString(research.DepthDetailed),
			mcp.Description("concise: a tight summary with the key sources. detailed: sections, evidence and a sources list. "+
				"max: engine google only, Google's Max agent: the deepest research, at the highest cost.")),
		mcp.WithString("engine", mcp.Enum(research.EngineRounds, research.EngineGoogle),
			mcp.Description("rounds: our research and verification rounds. google: Google's Deep Research agent. "+
				"Default: the server's GEMINI_DEEP_RESEARCH_ENGINE (rounds unless set).")),
		mcp.WithString("plan_id", mcp.MaxLength(200),
			mcp.Description("engine google: the plan_id of a research plan that awaits confirmation (metadata.plan_id): "+
				"runs that plan, the topic saying what to change about it.")),
		modelArgument(),
		outputFileArgument(),
		freshArgument(),
		waitArgument(),
		mcp.WithRawOutputSchema(json.RawMessage(schemas.DeepSearch)),
		mcp.WithTaskSupport(mcp.TaskSupportOptional),
		researchAnnotations(),
	)...)
}

// DeepSearch researches a topic in rounds: a first one, then verification rounds that check and correct it.
func (t *Tools) DeepSearch(ctx context.Context, a DeepSearchArgs) (*Report, error) {
	return record(ctx, t, "deep_search", a.Topic, func(ctx context.Context) (*Report, error) {
		if err := t.checkArguments("deep_search", a); err != nil {
			return nil, err
		}
		topic := strings.TrimSpace(a.Topic)
		if topic == "" {
			return nil, blankArgument("deep_search", "topic")
		}
		out, err := t.outputFile(ctx, "deep_search", a.OutputFile)
		if err != nil {
			return nil, err
		}
		req := research.DeepSearchRequest{Topic: topic, Depth: cmp.Or(a.Depth, research.DepthDetailed), Model: a.Model,
			Engine: a.Engine, Fresh: a.Fresh, PlanID: strings.TrimSpace(a.PlanID), Confirm: planConfirmer(ctx)}
		if req.Steering, err = a.steering("deep_search"); err != nil {
			return nil, err
		}
		if job := jobFrom(ctx); job != nil {
			req.Drafted = func(draft research.Report) { job.SetDraft(draft.Report) }
		}
		if err := t.followsAgent(ctx, &req.Followed, &req.Resume); err != nil {
			return nil, err
		}
		rep, err := t.research(ctx, a.Model, func(ctx context.Context, p research.Progress) (research.Report, error) {
			req.Progress = p
			return t.engine.DeepSearch(ctx, req)
		})
		if err != nil {
			return nil, err
		}
		return t.report(rep, out), nil
	})
}
