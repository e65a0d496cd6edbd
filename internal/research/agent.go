package research

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

// The engines of deep_search, as research knows them.
const (
	EngineRounds = backend.EngineRounds
	EngineGoogle = backend.EngineGoogle
)

// DepthMax is the depth of deep_search that asks Google's Max agent: the deepest research, at the highest cost.
const DepthMax = "max"

// Stage changes of the agent are told at most this often: it tells of every thought and search.
const agentStageEvery = time.Second

// cancelGrace bounds the request that cancels a run of the agent whose research was cancelled.
const cancelGrace = 10 * time.Second

// engineOf is the engine a deep_search request asks for: its own, else Settings.DeepSearchEngine, else our rounds.
func (e *Engine) engineOf(req DeepSearchRequest) string {
	if req.Engine != "" {
		return req.Engine
	}
	if e.settings.DeepSearchEngine != "" {
		return e.settings.DeepSearchEngine
	}
	return EngineRounds
}

// The plan modes of Google's agent (GEMINI_DEEP_RESEARCH_PLAN).
const (
	PlanAuto    = "auto"    // the agent plans first; the user confirms where the client can ask, else the run proceeds
	PlanConfirm = "confirm" // the agent plans first, and runs only once the user confirms the plan
	PlanOff     = "off"     // no plan: the agent researches at once
)

// PlanAnswer is the user's answer to the agent's plan.
type PlanAnswer struct {
	Approved bool
	Focus    string // what to change about the plan, in the user's words; "" for nothing
}

// planApproval is the turn that starts the research after the plan (the agent runs a plan only on a turn that
// confirms it).
const planApproval = "The plan looks good: go ahead with the research."

// agentSearch researches req's topic with Google's Deep Research agent. Unless Settings.AgentPlan is PlanOff, the
// agent proposes a plan first (a short run that spends little), which req.Confirm shows the user: approved (with a
// focus, maybe), the research runs on from it; declined, nothing more is spent. Without req.Confirm, the research
// runs on from the plan under PlanAuto, and the plan comes back for confirmation (a call with PlanID runs it)
// under PlanConfirm. The plan is in the report's metadata. req.Resume follows on a run a stopped server began.
// A request cancelled by its caller, or out of time, cancels the agent's run, which stops what it costs; one
// whose context ends because the server stops (backend.ErrServerStopping) leaves it running, to be followed on at
// the next start. The report is the agent's, with [n] markers placed from its citations and the numbered sources
// they name.
func (e *Engine) agentSearch(ctx context.Context, req DeepSearchRequest, depth string) (Report, error) {
	if e.settings.Agent == nil {
		return Report{}, &Failure{Code: backend.CodeAuth, Message: "Google's Deep Research agent is not set up on this server.",
			Details: "It runs on the Gemini API: set GEMINI_API_KEY, or use engine rounds."}
	}
	start := e.now()
	stop := e.logProgress(req.Topic, start)
	defer stop()
	runCtx, keep, cancel := e.agentContext(ctx, req.Resume)
	defer cancel()
	fail := func(err error) (Report, error) { return Report{}, e.agentFailure(ctx, runCtx, req.Topic, err) }

	ask := backend.AgentRequest{Input: agentInput(req.Topic+req.controls().instructions(), depth), Max: depth == DepthMax, Resume: req.Resume,
		Previous: req.Previous}
	var plan, planID string
	switch {
	case req.Resume != nil && !req.Resume.Planning:
		plan = req.Resume.Plan
		req.Progress.report("following Google's Deep Research agent again")
	case req.PlanID != "":
		ask.Input, ask.Previous, planID = planApproval+" The research question, as it stands now: "+req.Topic+
			req.controls().instructions(), req.PlanID, req.PlanID
	case req.Resume == nil && e.settings.AgentPlan == PlanOff:
	default: // a plan first: asked for now, or followed on
		req.Progress.report("Google's Deep Research agent is planning the research")
		ask.Plan = true
		res, run, err := e.agentRun(ctx, runCtx, req.Progress, req.Followed, ask, keep)
		if err != nil {
			return fail(err)
		}
		plan, planID = res.Text, run.ID
		awaiting := func(why string) (Report, error) {
			rep := e.planReport(req.Topic, depth, start, plan, planID, why)
			rep.Metadata.Model = run.Agent
			return rep, nil
		}
		answer, err := e.askAboutPlan(ctx, req, plan)
		switch {
		case errors.Is(err, errNobodyToAsk) && req.Resume != nil: // its client was asked, maybe, before the restart
			return awaiting("The server restarted while the plan was made.")
		case errors.Is(err, errNobodyToAsk) && e.settings.AgentPlan == PlanConfirm:
			return awaiting("GEMINI_DEEP_RESEARCH_PLAN is confirm.")
		case errors.Is(err, errNobodyToAsk): // PlanAuto, for a client that cannot ask
		case err != nil: // asked, and not answered: nothing is spent without an answer
			return awaiting("Your client did not answer when asked about it (" + shorten(err.Error()) + ").")
		case !answer.Approved:
			e.log.Info("the research plan of Google's agent was declined", "interaction", planID)
			return Report{}, &Failure{Code: backend.CodeCancelled, Message: "The research plan was declined: Google's " +
				"Deep Research agent did not run it, and nothing more was spent.",
				Details: "Call deep_search again to have the agent plan it anew, with the topic worded as you want it."}
		}
		ask = backend.AgentRequest{Input: approval(answer.Focus), Max: ask.Max, Previous: planID}
	}
	if req.Resume == nil {
		req.Progress.report("starting Google's Deep Research agent")
	}
	keep.Plan = plan
	res, run, err := e.agentRun(ctx, runCtx, req.Progress, req.Followed, ask, keep)
	if err != nil {
		return fail(err)
	}
	b := newBuilder(req.Topic, depth, start)
	b.freeText, b.controls = true, req.controls()
	b.use(roundResult{res: res, model: res.Model})
	rep := b.report(e.now())
	rep.Metadata.Engine, rep.Metadata.Interaction, rep.Metadata.Plan = EngineGoogle, run.ID, plan
	return rep, nil
}

// agentContext is ctx with the time limit of research with Google's agent (GEMINI_DEEP_RESEARCH_TIMEOUT), counted
// from when it began (now, or when the run it follows on, resume, began: a run followed on after a restart has no
// more time than the first server gave it), and what is kept with its run: when it began.
func (e *Engine) agentContext(ctx context.Context, resume *backend.AgentRun) (context.Context, backend.AgentRun, context.CancelFunc) {
	keep := backend.AgentRun{Began: time.Now()}
	if resume != nil && !resume.Began.IsZero() {
		keep.Began = resume.Began
	}
	if e.settings.AgentTimeout <= 0 {
		runCtx, cancel := context.WithCancel(ctx)
		return runCtx, keep, cancel
	}
	runCtx, cancel := context.WithDeadline(ctx, keep.Began.Add(e.settings.AgentTimeout))
	return runCtx, keep, cancel
}

// agentFailure is the error of a request of the agent (about topic) that failed with err: the time limit's when
// runCtx, the run's context, ran out of it.
func (e *Engine) agentFailure(ctx, runCtx context.Context, topic string, err error) error {
	if ctx.Err() == nil && runCtx.Err() != nil {
		err = backend.Timeout(backend.CodeAPITimeout, e.settings.AgentTimeout, "GEMINI_DEEP_RESEARCH_TIMEOUT", runCtx.Err())
	}
	return e.failure(ctx, topic, err)
}

// agentRun runs ask on the agent, or follows its Resume on, telling p what the agent does and followed (when set)
// the run, with keep's Plan and Began. ctx is the request's context; the run's, runCtx, adds the time limit. A run
// ended early by either, except by the server's stop, is cancelled.
func (e *Engine) agentRun(ctx, runCtx context.Context, p Progress, followed func(backend.AgentRun), ask backend.AgentRequest,
	keep backend.AgentRun) (backend.Result, backend.AgentRun, error) {
	progress := throttled(p, agentStageEvery, e.now)
	writing := ask.Plan // a plan is no report being written
	var run backend.AgentRun
	ask.Events = func(ev backend.Event) {
		switch {
		case ev.Kind != backend.EventText:
			progress(stageOf(ev))
		case !writing:
			writing = true
			p.report("writing the report")
		}
	}
	ask.Followed = func(r backend.AgentRun) {
		r.Plan, r.Began = keep.Plan, keep.Began
		run = r
		if followed != nil {
			followed(r)
		}
	}
	if ask.Resume == nil { // a run followed on was admitted, and is paid for, when it began
		if err := e.admit(ctx); err != nil {
			return backend.Result{}, run, err
		}
	}
	res, err := e.settings.Agent.Research(runCtx, ask)
	spendingOf(ctx).add(res, err)
	if err != nil && runCtx.Err() != nil && run.ID != "" && !errors.Is(context.Cause(ctx), backend.ErrServerStopping) {
		e.cancelRun(ctx, run.ID)
	}
	return res, run, err
}

// agentFollowUp answers req's question in the run of Google's Deep Research agent that researched its prior
// report (Prior.Interaction), which goes on from all that run read: the same agent, the question its next turn.
// Its report cites the prior sources with their numbers, and those it adds from the next one on. req.Resume follows
// on a run a stopped server began. Its time limit is GEMINI_DEEP_RESEARCH_TIMEOUT.
func (e *Engine) agentFollowUp(ctx context.Context, req FollowUpRequest) (Report, error) {
	start := e.now()
	stop := e.logProgress(req.Question, start)
	defer stop()
	runCtx, keep, cancel := e.agentContext(ctx, req.Resume)
	defer cancel()
	req.Progress.report("following up in the run of Google's Deep Research agent")
	res, run, err := e.agentRun(ctx, runCtx, req.Progress, req.Followed, backend.AgentRequest{Input: req.Question,
		Previous: req.Prior.Interaction, Agent: req.Prior.Agent, Resume: req.Resume}, keep)
	if err != nil {
		return Report{}, e.agentFailure(ctx, runCtx, req.Question, err)
	}
	b := newBuilder(req.Question, "", start)
	b.freeText, b.prior = true, &req.Prior
	b.use(roundResult{res: res, model: res.Model})
	rep := b.report(e.now())
	rep.Metadata.Engine, rep.Metadata.Interaction = EngineGoogle, run.ID
	return rep, nil
}

// askAboutPlan asks the user about the agent's plan through req.Confirm and returns the answer: errNobodyToAsk
// without req.Confirm, the client's error (logged) when it did not answer.
func (e *Engine) askAboutPlan(ctx context.Context, req DeepSearchRequest, plan string) (PlanAnswer, error) {
	if req.Confirm == nil {
		return PlanAnswer{}, errNobodyToAsk
	}
	req.Progress.report("waiting for the research plan to be confirmed")
	answer, err := req.Confirm(ctx, plan)
	if err != nil {
		e.log.Warn("the client did not answer about the research plan", "err", err)
	}
	return answer, err
}

// errNobodyToAsk is askAboutPlan's error for a request whose client cannot be asked.
var errNobodyToAsk = errors.New("nobody to ask about the plan")

// approval is the turn that runs the plan, with the user's focus when there is one.
func approval(focus string) string {
	if focus = strings.TrimSpace(focus); focus != "" {
		return planApproval + " Adjust it to this first: " + focus
	}
	return planApproval
}

// planReport is the answer of a research whose plan waits for the user's approval, and why (PlanConfirm with no
// client to ask, a client that did not answer, a restart): the plan, and how to run it.
func (e *Engine) planReport(topic, depth string, start time.Time, plan, planID, why string) Report {
	text := "# Research plan\n\n" + plan
	notice := fmt.Sprintf("\n\n[Google's Deep Research agent proposes this plan, which waits for your approval: %s "+
		"To run it, call deep_search again with engine google, plan_id %q and the topic (reworded, if you want the "+
		"research to differ from the plan). Nothing more is spent until then.]", why, planID)
	return Report{Success: true, Partial: true, Report: text + notice, Summary: text, Metadata: Metadata{
		DurationMS: e.now().Sub(start).Milliseconds(), Topic: topic, Depth: depth, Backend: backend.GoogleAgent,
		Timestamp: start.UTC().Format(time.RFC3339), Engine: EngineGoogle, Interaction: planID, Plan: plan,
		PlanID: planID, SourcesVisited: []string{}, SearchQueriesUsed: []string{}}}
}

// cancelRun cancels the agent's run id, whose research ended early; a failure is logged.
func (e *Engine) cancelRun(ctx context.Context, id string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelGrace)
	defer cancel()
	if err := e.settings.Agent.Cancel(ctx, id); err != nil {
		e.log.Warn("could not cancel the run of Google's Deep Research agent: it may go on, and cost, until it ends",
			"interaction", id, "err", err)
		return
	}
	e.log.Info("cancelled the run of Google's Deep Research agent", "interaction", id)
}

// agentInput is what the agent is asked: the topic, and for a concise report, that it be concise.
func agentInput(topic, depth string) string {
	if depth == DepthConcise {
		return topic + "\n\nKeep the report concise: a tight summary of the findings, with the key sources."
	}
	return topic
}

// throttled passes on a stage at most every interval; the stages in between are dropped. now tells the time.
func throttled(p Progress, every time.Duration, now func() time.Time) Progress {
	var last time.Time
	return func(stage string) {
		if t := now(); last.IsZero() || t.Sub(last) >= every {
			last = t
			p.report(stage)
		}
	}
}
