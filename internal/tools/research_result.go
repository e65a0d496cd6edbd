package tools

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	kept "github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools/schemas"
)

// researchIDArgument is the research_id of research_result and research_cancel.
func researchIDArgument() mcp.ToolOption {
	return mcp.WithString("research_id", mcp.Required(), mcp.Pattern(kept.JobIDPattern),
		mcp.Description("The research_id a search, deep_search, ask, structured or follow_up call answered with status running."))
}

// ResearchResultArgs are the arguments of research_result.
type ResearchResultArgs struct {
	ResearchID  string `json:"research_id"`
	WaitSeconds *int   `json:"wait_seconds,omitempty"` // nil: GEMINI_CALL_WAIT
}

func researchResultTool() mcp.Tool {
	return mcp.NewTool("research_result",
		mcp.WithTitleAnnotation("Wait for research"),
		mcp.WithDescription("Waits for research that a search, deep_search, ask, structured or follow_up call left running (it "+
			"answered status running with a research_id), and returns its answer, as that tool returns it. When the "+
			"research still runs at the end of the wait, it answers status running again: call it again. Reports stay "+
			"in the research library after the research ends, also across restarts."),
		researchIDArgument(),
		waitArgument(),
		readOnlyAnnotations(false),
	)
}

// ResearchResult waits for the research job a.ResearchID again, up to its wait budget, and answers as its tool
// does, or Running.
func (t *Tools) ResearchResult(ctx context.Context, a ResearchResultArgs) (Result, error) {
	if err := t.checkArguments("research_result", a); err != nil {
		return nil, err
	}
	job := t.jobOf(a.ResearchID)
	if job == nil {
		return t.waitKept(ctx, a.ResearchID, t.budget(a.WaitSeconds))
	}
	return t.waitFor(ctx, job, t.budget(a.WaitSeconds), false)
}

// ResearchCancelArgs are the arguments of research_cancel.
type ResearchCancelArgs struct {
	ResearchID string `json:"research_id"`
}

func researchCancelTool() mcp.Tool {
	return mcp.NewTool("research_cancel",
		mcp.WithTitleAnnotation("Cancel research"),
		mcp.WithDescription("Cancels research that a search, deep_search, ask, structured or follow_up call left running, and "+
			"says how it ended: cancelled, or done or failed when it ended first."),
		researchIDArgument(),
		mcp.WithRawOutputSchema(json.RawMessage(schemas.Cancel)),
		annotations(false, false),
	)
}

// Cancelled is research_cancel's answer: how the research ended.
type Cancelled struct {
	Success    bool   `json:"success"`
	ResearchID string `json:"research_id"`
	Status     string `json:"status"` // cancelled, done, failed or interrupted
}

func (c *Cancelled) CallToolResult() *mcp.CallToolResult { return structured(*c) }
func (c *Cancelled) firecrawl() string                   { return "" }
func (c *Cancelled) size() int                           { return 0 }

// ResearchCancel cancels the research job a.ResearchID and answers once it has ended.
func (t *Tools) ResearchCancel(ctx context.Context, a ResearchCancelArgs) (*Cancelled, error) {
	if err := t.checkArguments("research_cancel", a); err != nil {
		return nil, err
	}
	job := t.jobOf(a.ResearchID)
	if job == nil {
		job = t.TakeOn(a.ResearchID) // a run that goes on without its server is cancelled where it runs
	}
	if job == nil {
		return t.keptCancel(a.ResearchID)
	}
	job.Cancel(&activity.StoppedError{Why: "research_cancel was called", Fix: "Call the tool again to research it anew."})
	select {
	case <-job.Done():
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	_, err := job.Outcome()
	return &Cancelled{Success: true, ResearchID: job.ID, Status: string(endState(err))}, nil
}

// keptCancel is research_cancel's answer for a job this process does not hold: how the library says it ended, or
// that it runs in another server, which alone can cancel it.
func (t *Tools) keptCancel(id string) (*Cancelled, error) {
	j, err := t.opts.Library.Job(id)
	if err != nil {
		return nil, errResearchNotFound(id)
	}
	if j.State == kept.JobRunning {
		return nil, &Error{Code: backend.CodeInvalidArgument, Message: "the research runs in another server process " +
			"sharing this library: only that server can cancel it", Details: "Call research_cancel on the server whose " +
			"call started it."}
	}
	return &Cancelled{Success: true, ResearchID: id, Status: string(j.State)}, nil // a final state: the schema's enum
}
