package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/jobs"
	kept "github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
)

// Research that outlives the call: an MCP call of search, deep_search, ask, structured or follow_up starts a
// research job and waits for it up to its wait budget (wait_seconds, else GEMINI_CALL_WAIT), which fits the
// clients that cut a call at 60 s. A job that ends in time answers as the tool always did; one that does not
// answers Running, with its id, and research_result waits on it again. A client's explicit cancel of the call that
// started the job cancels it; a client that goes away or times out does not: the job runs on, to its own end, and
// its answer waits for a research_result. A call made as an MCP task runs as that task, not as a job: the task
// outlives the call.

// DefaultCallWait is how long a call waits for its research when neither the call nor GEMINI_CALL_WAIT says.
const DefaultCallWait = 45 * time.Second

// maxWaitSeconds bounds a call's wait_seconds.
const maxWaitSeconds = 600

// maxRunningJobs bounds the research jobs running at once: a call that waits 0 s answers at once, so requests in
// progress no longer bound the research a client can start.
const maxRunningJobs = 100

// Running is the answer of a call whose research outlasted its wait: which job it is, how long it has run, what it
// does now, and what to do next.
type Running struct {
	Success    bool   `json:"success"` // true: nothing failed; the report is not there yet
	Status     string `json:"status"`  // "running"
	ResearchID string `json:"research_id"`
	Tool       string `json:"tool"`
	ElapsedMS  int64  `json:"elapsed_ms"`
	Stage      string `json:"stage"`
	Next       string `json:"next"` // what the caller should do, in words
	// Report is the last complete round's report, a draft, when there is one (Partial is then set); at most the
	// response limit of it.
	Report  string `json:"report,omitempty"`
	Partial bool   `json:"partial,omitempty"`
}

// runningOf is job's answer while it runs, with its draft cut to limit characters.
func runningOf(job *jobs.Job[Result], now time.Time, limit int) *Running {
	r := newRunning(job.ID, job.Tool, now.Sub(job.Started), job.Stage(), "The research is still running.")
	if draft := job.Draft(); draft != "" {
		r.Report, r.Partial = draft, true
		if cut := []rune(draft); len(cut) > limit {
			r.Report = string(cut[:limit]) + "\n\n[The draft goes on: the final report comes whole.]"
		}
	}
	return r
}

// newRunning is the answer of research job id, a call of tool that has run for elapsed and does stage now, with
// what to do next after news, a sentence about it.
func newRunning(id, tool string, elapsed time.Duration, stage, news string) *Running {
	return &Running{Success: true, Status: "running", ResearchID: id, Tool: tool, ElapsedMS: elapsed.Milliseconds(),
		Stage: stage, Next: fmt.Sprintf("%s Call research_result with research_id %q to keep waiting for its report; "+
			"do not start a new %s: it would research it all again.", news, id, tool)}
}

// CallToolResult is r as structured content, with the job's id in _meta.
func (r *Running) CallToolResult() *mcp.CallToolResult {
	res := structured(*r)
	res.Meta = &mcp.Meta{AdditionalFields: map[string]any{"researchId": r.ResearchID}}
	return res
}

func (r *Running) firecrawl() string { return "" }

func (r *Running) size() int { return 0 }

// researchHandler is the MCP handler of a research tool whose typed call is call: handler's, running the call as a
// job and waiting for it (waitFor). subject says what a call is about; wait its wait_seconds. The tool can also be
// started without a call (Start).
func researchHandler[A any](t *Tools, tool mcp.Tool, call func(context.Context, A) (Result, error),
	subject func(A) string, wait func(A) *int) server.ServerTool {
	// start starts a job of args; resumed, when set, is a job kept by a server that stopped, to follow on.
	start := func(ctx context.Context, args A, resumed *kept.Job) (*jobs.Job[Result], error) {
		// The job tells its stages to whoever waits; the progress token is the call's, not the job's.
		jobCtx := context.WithValue(ctx, progressTokenKey{}, nil)
		run := func(ctx context.Context, job *jobs.Job[Result]) (Result, error) {
			t.keepStart(job, args, resumed == nil) // and the registry tells keepEnd how it ended
			if resumed != nil {
				ctx = withRemote(ctx, resumed.Remote)
			}
			return call(withJob(ctx, job), args)
		}
		var (
			job *jobs.Job[Result]
			err error
		)
		if resumed == nil {
			job, err = t.jobs.Start(jobCtx, tool.Name, subject(args), run)
		} else {
			job, err = t.jobs.StartAs(jobCtx, resumed.ID, resumed.Started, tool.Name, subject(args), run)
		}
		if errors.Is(err, jobs.ErrFull) {
			return nil, &Error{Code: backend.CodeUnavailable, Message: fmt.Sprintf("%d research jobs are running, the "+
				"most this server runs at once", maxRunningJobs), Details: "Wait for one with research_result, or " +
				"cancel one with research_cancel, then call again."}
		}
		return job, err
	}
	sv := handler(t, tool, func(ctx context.Context, args A) (Result, error) {
		if taskOf(ctx) != nil { // a task outlives the call itself: it is the job
			return call(ctx, args)
		}
		job, err := start(ctx, args, nil)
		if err != nil {
			return nil, err
		}
		return t.waitFor(ctx, job, t.budget(wait(args)), true)
	})
	t.starts[tool.Name] = func(ctx context.Context, raw json.RawMessage) (string, error) {
		var args A
		if len(raw) == 0 {
			raw = json.RawMessage("{}")
		}
		if err := decode(tool, t.checks[tool.Name], raw, &args); err != nil {
			return "", err
		}
		job, err := start(ctx, args, nil)
		if err != nil {
			return "", err
		}
		return job.ID, nil
	}
	t.resumes[tool.Name] = func(ctx context.Context, j kept.Job) error {
		var args A
		if err := json.Unmarshal(j.Args, &args); err != nil {
			return fmt.Errorf("the arguments kept with research job %s cannot be read: %w", j.ID, err)
		}
		_, err := start(ctx, args, &j)
		return err
	}
	return sv
}

// Start starts tool (search, deep_search, ask, structured or follow_up) with args, its arguments as a client's call
// would give them, as a research job, and returns the job's id at once: the research_id that ResearchResult and
// ResearchCancel take. ctx gives the job its values, not its end. A tool that is no research tool, or arguments
// it refuses, are an *Error.
func (t *Tools) Start(ctx context.Context, tool string, args json.RawMessage) (string, error) {
	start := t.starts[tool]
	if start == nil {
		return "", &Error{Code: backend.CodeInvalidArgument, Message: fmt.Sprintf("%q is no research tool", tool),
			Details: "Start search, deep_search, ask, structured or follow_up."}
	}
	return start(ctx, args)
}

// TakeOn takes on research job id when the library keeps it interrupted while it followed a remote run (Google's
// Deep Research agent's): its server stopped or died, and the run goes on without it. The job becomes this
// server's, under the same id, and follows that run on: research_result and research_cancel reach it as they
// would have the first. It returns the job, or nil when there is none to take on (or another server took it
// first); a job this server holds already is returned as it is. A job it cannot follow on is kept failed, with why.
func (t *Tools) TakeOn(id string) *jobs.Job[Result] {
	// The server takes its jobs on when its library opens, which the very call asking for one may have done: it
	// waits for that take-on, then finds the job here.
	t.takingOn.Lock()
	defer t.takingOn.Unlock()
	if job := t.jobOf(id); job != nil {
		return job
	}
	if j, err := t.opts.Library.Job(id); err != nil || j.State != kept.JobInterrupted || j.Remote == nil {
		return nil // Job marks interrupted the running jobs of a server that died
	}
	j, took, err := t.opts.Library.Adopt(id)
	if err != nil || !took {
		t.logKept(id, err)
		return nil
	}
	resume := t.resumes[j.Tool]
	if resume == nil {
		err = fmt.Errorf("no research tool %q follows a run on", j.Tool)
	} else {
		err = resume(t.opts.Lifetime, j)
	}
	if err != nil {
		t.opts.Logger.Warn("cannot follow on a research job", "research_id", id, "err", err)
		_, kerr := t.opts.Library.UpdateJob(id, func(k *kept.Job) {
			k.ErrorMessage = "this server could not follow on the research: " + err.Error()
			k.State, k.ErrorCode = kept.JobFailed, string(backend.CodeInternal)
			if AsError(err).Code == backend.CodeUnavailable { // too many jobs now: left for a later take-on
				k.State, k.ErrorCode = kept.JobInterrupted, ""
			}
		})
		t.logKept(id, kerr)
		return nil
	}
	t.opts.Logger.Info("following on a run of Google's Deep Research agent that a stopped server began",
		"research_id", id, "tool", j.Tool, "started", j.Started)
	return t.jobOf(id)
}

// budget is how long a call that asked for waitSeconds (nil: not asked) waits for its research.
func (t *Tools) budget(waitSeconds *int) time.Duration {
	if waitSeconds != nil {
		return time.Duration(*waitSeconds) * time.Second
	}
	return t.opts.CallWait()
}

// waitFor waits up to budget for job, telling the client of its stages while it waits when it asked for progress,
// and answers the job's result, or Running when the budget passed first. A call that started the job (starter) and
// is cancelled by its client cancels the job, and answers how the job ended; any other waiter cancelled just stops
// waiting.
func (t *Tools) waitFor(ctx context.Context, job *jobs.Job[Result], budget time.Duration, starter bool) (Result, error) {
	p := startProgress(ctx, cmp.Or(t.opts.Heartbeat, defaultHeartbeat), job.Started)
	stop := job.Follow(p.report)
	ended := job.Wait(ctx, budget)
	stop()
	p.stop()
	if !ended && ctx.Err() != nil && starter {
		job.Cancel(context.Cause(ctx))
		<-job.Done() // a cancelled run ends within its runner's grace
		ended = true
	}
	if !ended {
		return runningOf(job, time.Now(), t.opts.ResponseLimit()), nil
	}
	res, err := job.Outcome()
	if err != nil {
		return nil, err
	}
	return ofJob{Result: res, id: job.ID}, nil
}

// ofJob is the answer of a research job, which names the job in _meta.
type ofJob struct {
	Result
	id string
}

func (r ofJob) CallToolResult() *mcp.CallToolResult {
	res := r.Result.CallToolResult()
	if res.Meta == nil {
		res.Meta = &mcp.Meta{}
	}
	if res.Meta.AdditionalFields == nil {
		res.Meta.AdditionalFields = map[string]any{}
	}
	res.Meta.AdditionalFields["researchId"] = r.id
	return res
}

// ReportOf is the report r answers, a research job's answer included; false for an answer that is no report (a
// raw one, an answer of ask's, Running, …).
func ReportOf(r Result) (*Report, bool) {
	if j, ok := r.(ofJob); ok {
		r = j.Result
	}
	rep, ok := r.(*Report)
	return rep, ok
}

// errResearchNotFound is the error of research_result and research_cancel for an id the server does not hold.
func errResearchNotFound(id string) *Error {
	return &Error{Code: backend.CodeResearchNotFound, Message: fmt.Sprintf("no research with id %q: it is unknown, "+
		"or it ended more than %d minutes ago and its answer is no longer kept", id, int(jobs.Kept/time.Minute)),
		Details: "Call the tool again; a report finished within GEMINI_CACHE_TTL comes back from the cache at once."}
}

// StopJobs ends the research jobs running, as the server's end does, with why and fix for whoever waits: they are
// kept interrupted, and a run of Google's agent goes on without them, to be followed on (TakeOn). The server
// calls it first when it ends, so that ending the calls in progress next does not cancel their research.
func (t *Tools) StopJobs(why, fix string) {
	for _, job := range t.jobs.Running() {
		job.Cancel(&activity.StoppedError{Why: why, Fix: fix, Cause: backend.ErrServerStopping})
	}
}

// WaitJobs waits until the research jobs started have ended (the server's lifetime ends them), or ctx ends, so
// that what they keep is kept before the library closes.
func (t *Tools) WaitJobs(ctx context.Context) { t.jobs.Wait(ctx) }

// jobOf is the job id, when this process holds it; nil for one it does not.
func (t *Tools) jobOf(id string) *jobs.Job[Result] { return t.jobs.Get(id) }

// jobKey marks the context of a job's run, with the job.
type jobKey struct{}

// withJob marks ctx as the context of job's run: its stages go to the job, whoever waits on it, and it belongs to
// no MCP session, since a client may come back for it from another.
func withJob(ctx context.Context, job *jobs.Job[Result]) context.Context {
	return context.WithValue(ctx, jobKey{}, job)
}

// remoteKey marks the context of a job's run taken on from a server that stopped, with the remote run it follows.
type remoteKey struct{}

func withRemote(ctx context.Context, remote json.RawMessage) context.Context {
	return context.WithValue(ctx, remoteKey{}, remote)
}

// remoteFrom is the remote run (as kept) the job whose run ctx is the context of follows on; nil for a job started
// here.
func remoteFrom(ctx context.Context) json.RawMessage {
	remote, _ := ctx.Value(remoteKey{}).(json.RawMessage)
	return remote
}

// jobFrom is the job whose run ctx is the context of; nil for a call that runs as no job.
func jobFrom(ctx context.Context) *jobs.Job[Result] {
	job, _ := ctx.Value(jobKey{}).(*jobs.Job[Result])
	return job
}
