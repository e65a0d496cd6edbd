package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	kept "github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools/schemas"
)

// FollowUpArgs are the arguments of follow_up.
type FollowUpArgs struct {
	ResearchID  string `json:"research_id"` // a research job's id, or a report's id in the research library
	Question    string `json:"question"`
	Model       string `json:"model,omitempty"`
	OutputFile  string `json:"output_file,omitempty"`
	Fresh       bool   `json:"fresh,omitempty"`
	WaitSeconds *int   `json:"wait_seconds,omitempty"` // nil: GEMINI_CALL_WAIT
}

// maxResearchIDLen bounds follow_up's research_id: a job's id or a report's is far shorter.
const maxResearchIDLen = 64

func followUpTool() mcp.Tool {
	return mcp.NewTool("follow_up",
		mcp.WithTitleAnnotation("Follow up on research"),
		mcp.WithDescription("Asks a further question about research that has finished, without researching it all "+
			"again: a Gemini agent gets the earlier report and its numbered sources, builds on them, researches only what "+
			"they leave open, and returns a Markdown report that cites the earlier sources with their numbers (the sources "+
			"it adds continue the numbering). Use it for a question about a report you have, rather than a new search or "+
			"deep_search. Takes seconds to a minute or two; a call waits up to wait_seconds (45 s by default), then "+
			"answers status running with a research_id: call research_result with it for the answer."),
		mcp.WithString("research_id", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(maxResearchIDLen),
			mcp.Description("The research to follow up: the research_id a search, deep_search, ask, structured or "+
				"follow_up call answered with (once it has finished), or a report's id as list_research gives it.")),
		mcp.WithString("question", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(maxQueryLen),
			mcp.Description("The further question about the research. Be specific: say what the report left open or "+
				"what you doubt.")),
		modelArgument(),
		outputFileArgument(),
		freshArgument(),
		waitArgument(),
		mcp.WithRawOutputSchema(json.RawMessage(schemas.FollowUp)),
		mcp.WithTaskSupport(mcp.TaskSupportOptional),
		researchAnnotations(),
	)
}

// FollowUp answers a further question about research that has finished: the report of a research job, or a
// report of the research library.
func (t *Tools) FollowUp(ctx context.Context, a FollowUpArgs) (*Report, error) {
	return record(ctx, t, "follow_up", a.Question, func(ctx context.Context) (*Report, error) {
		if err := t.checkArguments("follow_up", a); err != nil {
			return nil, err
		}
		question := strings.TrimSpace(a.Question)
		if question == "" {
			return nil, blankArgument("follow_up", "question")
		}
		prior, err := t.priorOf(strings.TrimSpace(a.ResearchID))
		if err != nil {
			return nil, err
		}
		out, err := t.outputFile(ctx, "follow_up", a.OutputFile)
		if err != nil {
			return nil, err
		}
		req := research.FollowUpRequest{Question: question, Prior: prior, Model: a.Model, Fresh: a.Fresh}
		if err := t.followsAgent(ctx, &req.Followed, &req.Resume); err != nil {
			return nil, err
		}
		rep, err := t.research(ctx, a.Model, func(ctx context.Context, p research.Progress) (research.Report, error) {
			req.Progress = p
			return t.engine.FollowUp(ctx, req)
		})
		if err != nil {
			return nil, err
		}
		return t.report(rep, out), nil
	})
}

// priorOf is the research id names, as a follow-up builds on it: the report of the research job id, or the report
// id of the library.
func (t *Tools) priorOf(id string) (research.Prior, error) {
	reportID := id
	if kept.ValidJobID(id) {
		var err error
		if reportID, err = t.reportOfJob(id); err != nil {
			return research.Prior{}, err
		}
	}
	rep, err := t.opts.Library.Get(reportID)
	switch {
	case errors.Is(err, kept.ErrNotFound) && reportID != id:
		return research.Prior{}, &Error{Code: backend.CodeResearchNotFound, Message: fmt.Sprintf("the research %q "+
			"ended, but its report is no longer kept in the research library", id), Details: fixNoPrior}
	case errors.Is(err, kept.ErrNotFound):
		return research.Prior{}, &Error{Code: backend.CodeResearchNotFound, Message: fmt.Sprintf("no research or "+
			"report with id %q in the research library: it is unknown, or no longer kept", id), Details: fixNoPrior}
	case err != nil:
		return research.Prior{}, &Error{Code: backend.CodeInternal, Message: "the research library cannot be read: " +
			err.Error()}
	}
	prior := research.Prior{ID: reportID, Topic: rep.Topic, Report: rep.Markdown, Sources: numberedSources(rep)}
	if md, ok := metadataOf(rep); ok && md.Interaction != "" {
		prior.Interaction, prior.Agent = md.Interaction, md.Model
	}
	for _, s := range rep.Sources {
		if !slices.ContainsFunc(prior.Sources, func(n backend.Source) bool { return n.URL == s.URL }) {
			prior.Pages = append(prior.Pages, backend.Source{URL: s.URL, Title: s.Title})
		}
	}
	return prior, nil
}

// numberedSources are the sources rep cites by number, [1] to [N], as the engine numbered them: those of the
// metadata it was kept with. The library's own list of sources cannot say: it holds them followed by every page the
// research read, and only those pages when the engine kept no numbered list (an agent's list it could not trust, or
// an answer that was not JSON), although the text may still carry the agent's markers. A report kept without its
// metadata (by an earlier release) has none: a number guessed for it could send the follow-up to the wrong page.
func numberedSources(rep kept.Report) []backend.Source {
	md, ok := metadataOf(rep)
	if !ok {
		return nil
	}
	var out []backend.Source
	for _, s := range md.Sources {
		out = append(out, backend.Source{URL: s.URL, Title: s.Title})
	}
	return out
}

// metadataOf is the metadata kept with rep; false for a report kept without (before schema v3) or with none that
// reads.
func metadataOf(rep kept.Report) (research.Metadata, bool) {
	var md research.Metadata
	if len(rep.Metadata) == 0 || json.Unmarshal(rep.Metadata, &md) != nil {
		return research.Metadata{}, false
	}
	return md, true
}

// fixNoPrior is what to do when follow_up has no report to build on.
const fixNoPrior = "Pass the research_id of research that has finished, or a report's id from list_research; or " +
	"research the topic anew with search or deep_search."

// reportOfJob is the id of the report research job id produced, or why it has none: it is still running, or it
// failed, was cancelled or was interrupted.
func (t *Tools) reportOfJob(id string) (string, error) {
	if job := t.jobOf(id); job != nil {
		select {
		case <-job.Done():
		default:
			return "", errStillRunning(id)
		}
	}
	j, err := t.opts.Library.Job(id)
	switch {
	case errors.Is(err, kept.ErrNotFound):
		return id, nil // not a job the library keeps: Get says whether it is anything at all
	case err != nil:
		return "", &Error{Code: backend.CodeInternal, Message: "the research library cannot be read: " + err.Error()}
	}
	again := fmt.Sprintf("Call %s again to research it anew, or follow up another report (list_research finds them).",
		j.Tool)
	switch j.State {
	case kept.JobDone:
		return j.ReportID, nil
	case kept.JobRunning:
		return "", errStillRunning(id)
	case kept.JobFailed:
		return "", &Error{Code: backend.CodeInvalidArgument, Message: fmt.Sprintf("the research %q failed (%s: %s): "+
			"it has no report to follow up", id, j.ErrorCode, j.ErrorMessage), Details: again}
	case kept.JobInterrupted:
		return "", &Error{Code: backend.CodeInvalidArgument, Message: fmt.Sprintf("the research %q was interrupted "+
			"(the server that ran it stopped before it ended): it has no report to follow up", id), Details: again}
	}
	return "", &Error{Code: backend.CodeInvalidArgument, Message: fmt.Sprintf("the research %q was %s: it has no "+
		"report to follow up", id, j.State), Details: again}
}

// errStillRunning is follow_up's error for research id that has not ended yet.
func errStillRunning(id string) *Error {
	return &Error{Code: backend.CodeInvalidArgument, Message: fmt.Sprintf("the research %q is still running: it has "+
		"no report to follow up yet", id), Details: fmt.Sprintf("Wait for it with research_result (research_id %q), "+
		"then call follow_up again.", id)}
}
