package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/jobs"
	kept "github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools/clientpath"
)

// Library keeps research jobs and their reports beyond the process: the research library (*library.Library).
// Whatever it cannot keep is logged, and the research goes on.
type Library interface {
	PutJob(j kept.Job) error
	UpdateJob(id string, change func(*kept.Job)) (kept.Job, error)
	Job(id string) (kept.Job, error)
	Get(id string) (kept.Report, error)
	Search(query string, since time.Time, limit int) ([]kept.Summary, error)
	// Page lists the reports after the place after ("" for the first page), newest first, at most limit, each with
	// the opening of its text, and the place where the next page begins ("" after the last page). A place it never
	// gave lists nothing.
	Page(after string, limit int) (page []kept.Summary, next string, err error)
	Changed() <-chan struct{} // closed at the next change, by this process or another sharing the library
	// Adopt makes the interrupted job id, which follows a remote run, this process's and running again, and
	// returns it; false when another server took it first, or it is not such a job.
	Adopt(id string) (kept.Job, bool, error)
}

// noLibrary keeps nothing.
type noLibrary struct{}

func (noLibrary) PutJob(kept.Job) error { return nil }
func (noLibrary) UpdateJob(string, func(*kept.Job)) (kept.Job, error) {
	return kept.Job{}, nil
}
func (noLibrary) Job(string) (kept.Job, error)                          { return kept.Job{}, kept.ErrNotFound }
func (noLibrary) Get(string) (kept.Report, error)                       { return kept.Report{}, kept.ErrNotFound }
func (noLibrary) Search(string, time.Time, int) ([]kept.Summary, error) { return nil, nil }
func (noLibrary) Changed() <-chan struct{}                              { return nil }
func (noLibrary) Page(string, int) ([]kept.Summary, string, error)      { return nil, "", nil }
func (noLibrary) Adopt(string) (kept.Job, bool, error)                  { return kept.Job{}, false, nil }

// ResearchID is the id of the research job whose run ctx is the context of; "" for a call that runs as no job.
func ResearchID(ctx context.Context) string {
	if job := jobFrom(ctx); job != nil {
		return job.ID
	}
	return ""
}

// keepStart keeps job, started with args, in the library as running (when put: a job taken on from a server that
// stopped is kept already), and its stage as it changes (keepStages).
func (t *Tools) keepStart(job *jobs.Job[Result], args any, put bool) {
	if put {
		raw, _ := json.Marshal(args) // plain structs
		t.logKept(job.ID, t.opts.Library.PutJob(kept.Job{ID: job.ID, Tool: job.Tool, Topic: job.Topic, Args: raw,
			State: kept.JobRunning, Started: job.Started}))
	}
	t.stageKeepers.Store(job.ID, t.keepStages(job))
}

// remoteEvery is how often at most the remote run a job follows is written to the library as it goes on: a run
// followed on from an older event only tells the events after it again.
const remoteEvery = 5 * time.Second

// remoteKeeper keeps the remote run job follows (Google's Deep Research agent's) in the library, so that a server
// can follow it on after this one stops: a run with a new id at once, then at most every remoteEvery.
func (t *Tools) remoteKeeper(job *jobs.Job[Result]) func(id string, run any) {
	var (
		mu     sync.Mutex
		keptID string
		at     time.Time
	)
	return func(id string, run any) {
		mu.Lock()
		defer mu.Unlock()
		if id == keptID && time.Since(at) < remoteEvery {
			return
		}
		raw, err := json.Marshal(run)
		if err == nil {
			_, err = t.opts.Library.UpdateJob(job.ID, func(j *kept.Job) { j.Remote = raw })
		}
		t.logKept(job.ID, err)
		keptID, at = id, time.Now()
	}
}

// stageEvery is how often at most a job's stage is written to the library: what another server sharing it shows
// of the job needs no more, and each write wakes every view of the library.
const stageEvery = time.Second

// keepStages writes job's stage to the library as it changes, off the job's run (a write may wait for another
// server's), at most every stageEvery, the newest stage winning over those not written yet. stop stops it and
// returns once no write is left.
func (t *Tools) keepStages(job *jobs.Job[Result]) (stop func()) {
	newest := make(chan string, 1)
	unfollow := job.Follow(func(stage string) {
		if stage == "" {
			return
		}
		select { // the followers are told one at a time: this is the only sender
		case <-newest:
		default:
		}
		newest <- stage
	})
	quit, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-quit:
				return
			case stage := <-newest:
				_, err := t.opts.Library.UpdateJob(job.ID, func(j *kept.Job) { j.Stage = stage })
				t.logKept(job.ID, err)
			}
			select {
			case <-quit:
				return
			case <-time.After(stageEvery):
			}
		}
	}()
	return func() {
		unfollow()
		close(quit)
		<-stopped
	}
}

// keepEnd keeps how job ended, with err, once its stages are written: done (the App links its report),
// interrupted when the server's stop ended it, cancelled or failed, with the error. The job registry tells it of
// every end, a run that panicked included.
func (t *Tools) keepEnd(job *jobs.Job[Result], err error) {
	if stop, ok := t.stageKeepers.LoadAndDelete(job.ID); ok {
		stop.(func())()
	}
	shutdown, id := t.opts.Lifetime.Err() != nil || errors.Is(job.Cause(), backend.ErrServerStopping), job.ID
	_, err = t.opts.Library.UpdateJob(id, func(j *kept.Job) {
		j.State = endState(err)
		switch {
		case shutdown && err != nil:
			j.State = kept.JobInterrupted
		case err != nil:
			e := AsError(err)
			j.ErrorCode, j.ErrorMessage, j.ErrorDetails = string(e.Code), e.Message, e.Details
		}
	})
	t.logKept(id, err)
}

// endState is how a job that ended with err ended: done, cancelled or failed.
func endState(err error) kept.JobState {
	switch {
	case err == nil:
		return kept.JobDone
	case AsError(err).Code == backend.CodeCancelled:
		return kept.JobCancelled
	}
	return kept.JobFailed
}

func (t *Tools) logKept(id string, err error) {
	if err != nil {
		t.opts.Logger.Warn("the research job was not kept in the research library", "research_id", id, "err", err)
	}
}

// ownerCheckEvery is how often waitKept reads a job again without a change to the library: a server that died
// writes nothing more, and a read finds its job interrupted once its lock is gone.
const ownerCheckEvery = 2 * time.Second

// waitKept waits up to budget for research job id, which this process does not hold, as the library keeps it (a
// job another server sharing the library runs ends there, or is found interrupted when that server died), and
// answers as keptAnswer does at the end of the wait. A job interrupted while it followed a remote run is taken on
// (TakeOn) and waited for here.
func (t *Tools) waitKept(ctx context.Context, id string, budget time.Duration) (Result, error) {
	until := time.Now().Add(budget)
	timeout := time.NewTimer(budget)
	defer timeout.Stop()
	check := time.NewTicker(ownerCheckEvery)
	defer check.Stop()
	for {
		changed := t.opts.Library.Changed()  // before the read: a change after it closes this one
		if job := t.TakeOn(id); job != nil { // its server stopped, and its run goes on: this server follows it
			return t.waitFor(ctx, job, time.Until(until), false)
		}
		res, err := t.keptAnswer(id)
		if _, running := res.(*Running); !running {
			return res, err
		}
		select {
		case <-changed:
		case <-check.C:
		case <-timeout.C:
			return t.keptAnswer(id)
		case <-ctx.Done():
			return t.keptAnswer(id)
		}
	}
}

// keptAnswer is the answer of research job id as the library keeps it, for a job this process does not hold: one
// that ended before the server started again, was interrupted by its stop, or runs in another server sharing the
// library.
func (t *Tools) keptAnswer(id string) (Result, error) {
	j, err := t.opts.Library.Job(id)
	if errors.Is(err, kept.ErrNotFound) {
		return nil, errResearchNotFound(id)
	}
	if err != nil {
		return nil, &Error{Code: backend.CodeInternal, Message: "the research library cannot be read: " + err.Error()}
	}
	switch j.State {
	case kept.JobRunning:
		return newRunning(j.ID, j.Tool, time.Since(j.Started), j.Stage, "The research runs in another server process "+
			"sharing this library."), nil
	case kept.JobInterrupted:
		return nil, &Error{Code: backend.CodeResearchInterrupted, Message: "the research was interrupted: the server " +
			"that ran it stopped before it ended", Details: "Call " + j.Tool + " again to research it anew."}
	case kept.JobDone:
		rep, err := t.opts.Library.Get(j.ReportID)
		if err != nil {
			return nil, &Error{Code: backend.CodeResearchNotFound, Message: fmt.Sprintf("the research %q ended, but "+
				"its report is no longer kept in the library", id), Details: "Call " + j.Tool + " again."}
		}
		return ofJob{Result: t.report(researchReportOf(rep), clientpath.Output{}), id: j.ID}, nil
	}
	return nil, &Error{Code: backend.Code(j.ErrorCode), Message: j.ErrorMessage, Details: j.ErrorDetails}
}

// researchReportOf is a report the library keeps, as the engine made it: with the metadata it was kept with, else
// (a report of an earlier release) what its summary and sources say of it.
func researchReportOf(rep kept.Report) research.Report {
	var md research.Metadata
	if len(rep.Metadata) == 0 || json.Unmarshal(rep.Metadata, &md) != nil {
		md = research.Metadata{Topic: rep.Topic, Depth: rep.Depth, Model: rep.Model, Backend: rep.Backend,
			DurationMS: rep.Duration.Milliseconds(), Timestamp: rep.Started.UTC().Format(time.RFC3339),
			SourcesVisited: []string{}, SearchQueriesUsed: []string{}}
		for _, s := range rep.Sources {
			md.SourcesVisited = append(md.SourcesVisited, s.URL)
		}
	}
	return research.Report{Success: true, Report: rep.Markdown, Partial: rep.Partial, Metadata: md}
}

// followsAgent sets up a call that may run Google's Deep Research agent as a job: followed keeps the agent's run
// with the job as it goes, and resume is the run to follow on, for a job taken on from a server that stopped.
func (t *Tools) followsAgent(ctx context.Context, followed *func(backend.AgentRun), resume **backend.AgentRun) error {
	if job := jobFrom(ctx); job != nil {
		keep := t.remoteKeeper(job)
		*followed = func(run backend.AgentRun) { keep(run.ID, run) }
	}
	remote := remoteFrom(ctx)
	if remote == nil {
		return nil
	}
	*resume = new(backend.AgentRun)
	if err := json.Unmarshal(remote, *resume); err != nil {
		return &Error{Code: backend.CodeInternal, Message: "the run of Google's Deep Research agent kept with this " +
			"research cannot be read: " + err.Error(), Details: "Call the tool again."}
	}
	return nil
}
