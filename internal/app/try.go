package app

import (
	"context"
	"encoding/json"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/web"
)

// The research the pages start (the first-run page's test search, a report's Re-run) runs as research jobs, as a
// client's call would: the page gets the job's id at once, then follows it (Follow) and may cancel it (Cancel).

// TrySearch starts query as a research job of the search tool, as a client's call would go (its arguments checked,
// among the running searches, into the library), but never answered from the cache, and returns the job's id at
// once. A search refused at its start is a *web.SearchError with the tool's code, message and fix.
func (a *App) TrySearch(query string) (string, error) {
	args, err := json.Marshal(tools.SearchArgs{Query: query, Fresh: true})
	if err != nil {
		return "", err
	}
	return a.startResearch("search", args)
}

// startResearch starts tool with args, its arguments as a client's call would give them, as a research job, and
// returns the job's id. The job belongs to the App, not to the page's request that started it: it runs on when the
// page is closed, until it ends or the App shuts down.
func (a *App) startResearch(tool string, args json.RawMessage) (string, error) {
	id, err := a.tools.Start(a.lifetime, tool, args)
	if err != nil {
		return "", searchError(tools.AsError(err))
	}
	return id, nil
}

// Follow is the research job id now: running, at the stage the running searches show (or its job's), or ended,
// with its report (the library's, whole) or why it failed, was cancelled or was interrupted, with the fix. It
// answers at once. record.ErrNotFound for an id that names no job this server or the library knows.
func (a *App) Follow(id string) (web.Progress, error) {
	if !record.ValidJobID(id) {
		return web.Progress{}, record.ErrNotFound
	}
	for _, run := range a.activity.Snapshot().Running {
		if run.Research == id {
			return web.Progress{ID: id, Tool: run.Tool, Topic: run.Query, State: record.JobRunning, Stage: run.Stage,
				Started: run.Started}, nil
		}
	}
	now := 0
	res, err := a.tools.ResearchResult(context.Background(), tools.ResearchResultArgs{ResearchID: id, WaitSeconds: &now})
	p := web.Progress{ID: id}
	job, jobErr := a.library.Job(id) // after the result: a job that has ended is kept with its report
	if jobErr == nil {
		p.Tool, p.Topic, p.Stage, p.Started = job.Tool, job.Topic, job.Stage, job.Started
	}
	if err != nil {
		e := tools.AsError(err)
		switch {
		case e.Code == backend.CodeResearchNotFound && jobErr != nil:
			return web.Progress{}, record.ErrNotFound
		case e.Code == backend.CodeCancelled:
			p.State = record.JobCancelled
		case e.Code == backend.CodeResearchInterrupted:
			p.State = record.JobInterrupted
		default:
			p.State = record.JobFailed
		}
		p.Failed = searchError(e)
		return p, nil
	}
	if running, ok := res.(*tools.Running); ok { // not among the running searches yet, or another server's
		p.Tool, p.State, p.Stage = running.Tool, record.JobRunning, running.Stage
		if p.Started.IsZero() {
			p.Started = time.Now().Add(-time.Duration(running.ElapsedMS) * time.Millisecond)
		}
		return p, nil
	}
	p.State = record.JobDone
	if rep, err := a.library.Get(job.ReportID); err == nil {
		p.Report, p.ReportID = &rep, rep.ID
	} else if answer, ok := tools.ReportOf(res); ok {
		// The library keeps no report (it keeps none, or cannot be used): the answer the job holds, as a client got it.
		rep := historyReport(p.Tool, answer.Report, time.Now())
		p.Report = &rep
	}
	return p, nil
}

// Cancel cancels the research job id, which this server runs, and returns once it has ended (it may have ended
// first), or ctx has. Research that another server runs, or that is not known, is a *web.SearchError that says so.
func (a *App) Cancel(ctx context.Context, id string) error {
	if _, err := a.tools.ResearchCancel(ctx, tools.ResearchCancelArgs{ResearchID: id}); err != nil {
		return searchError(tools.AsError(err))
	}
	return nil
}

func searchError(e *tools.Error) *web.SearchError {
	return &web.SearchError{Code: e.Code, Message: e.Message, Details: e.Details}
}
