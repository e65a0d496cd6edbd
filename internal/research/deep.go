package research

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/prompts"
)

// Depths of a deep_search report.
const (
	DepthConcise  = "concise"
	DepthDetailed = "detailed"
)

// defaultMaxRounds applies when Settings.MaxRounds is not set.
const defaultMaxRounds = 3

// DeepSearchRequest is one call of the deep_search tool.
type DeepSearchRequest struct {
	Topic    string
	Depth    string // DepthConcise, DepthDetailed (the default) or, with EngineGoogle, DepthMax
	Model    string // overrides Settings.Model for this call (our rounds)
	Engine   string // EngineRounds or EngineGoogle; "": Settings.DeepSearchEngine
	Steering        // what its sources may be
	Fresh    bool   // research again even when the cache holds a report
	Progress Progress
	// EngineGoogle: Resume is a run of the agent already created (by a server that stopped), to follow on from where
	// it was left rather than create one; Followed is told the run as it goes, so that it can be resumed; Previous is
	// a run this one continues (a follow-up).
	Resume   *backend.AgentRun
	Followed func(backend.AgentRun)
	Previous string
	// EngineGoogle: Confirm, when set, shows the user the agent's research plan and returns their answer (an error
	// for a client that did not answer); PlanID runs a plan proposed before, which awaited confirmation.
	Confirm func(ctx context.Context, plan string) (PlanAnswer, error)
	PlanID  string
	// Drafted, when set, is told the report of the rounds done each time verification goes on after a round: a
	// draft, marked partial, which a caller that stops waiting can show. A request that joins an identical one
	// already running is told nothing.
	Drafted func(Report)
}

// DeepSearch researches a topic, then verifies the draft in further rounds: each checks the key claims against
// sources, looks for newer or contradicting sources and for gaps, and returns the corrected report. It stops when
// a round reports no open gaps or after MaxRounds. When a later round fails, times out or its answer stops before
// its end, or the call's time limit runs out before it, the last complete round's report comes back marked partial;
// a first round whose answer stops before its end gives that answer, marked partial. An identical request already running is joined rather than started
// again.
func (e *Engine) DeepSearch(ctx context.Context, req DeepSearchRequest) (Report, error) {
	model := e.model(req.Model)
	depth := cmp.Or(req.Depth, DepthDetailed)
	switch engine := e.engineOf(req); {
	case req.Resume != nil: // a run of the agent paid for already, whatever the engine now: followed on, not joined
		return e.counted("deep_search", func(ctx context.Context, _ Progress) (Report, error) {
			return e.agentSearch(ctx, req, depth)
		})(ctx, req.Progress)
	case engine == EngineGoogle && req.Model != "":
		return Report{}, &Failure{Code: backend.CodeInvalidArgument, Message: "model chooses the model of our rounds, " +
			"and this deep_search runs Google's Deep Research agent.", Details: "Leave model out (the agent is " +
			"GEMINI_DEEP_RESEARCH_AGENT, or GEMINI_DEEP_RESEARCH_MAX_AGENT with depth max), or set engine to rounds."}
	case engine == EngineGoogle:
		return e.cachedOnly(ctx, []string{"deep_search", normalize(req.Topic), depth, EngineGoogle, req.Previous, req.PlanID,
			req.controls().key()}, req.Fresh,
			req.Progress, func(ctx context.Context, p Progress) (Report, error) {
				req.Progress = p
				return e.agentSearch(ctx, req, depth)
			})
	case req.PlanID != "":
		return Report{}, &Failure{Code: backend.CodeInvalidArgument, Message: "plan_id names a plan of Google's Deep " +
			"Research agent, and this deep_search runs our rounds.", Details: "Set engine to google to run the plan."}
	case depth == DepthMax:
		return Report{}, &Failure{Code: backend.CodeInvalidArgument, Message: "depth max is the depth of Google's " +
			"Deep Research agent, and this deep_search runs our rounds.",
			Details: "Set engine to google for the Max agent, or depth to detailed."}
	}
	return e.joined(ctx, []string{"deep_search", normalize(req.Topic), depth, model, req.controls().key()}, req.Fresh, req.Progress,
		func(ctx context.Context, p Progress) (Report, error) {
			req.Progress = p
			return e.deepSearch(ctx, req, model, depth)
		})
}

// controls are what the request's report may cite.
func (req DeepSearchRequest) controls() Controls {
	return Controls{Steering: req.Steering}
}

func (e *Engine) deepSearch(ctx context.Context, req DeepSearchRequest, model, depth string) (Report, error) {
	ctx = withDeadline(ctx, e.settings.DeepSearchTimeout, "GEMINI_DEEP_SEARCH_TIMEOUT")
	start := e.now()
	maxRounds := cmp.Or(e.settings.MaxRounds, defaultMaxRounds)
	if e.settings.MaxIterations > 0 {
		maxRounds = min(maxRounds, e.settings.MaxIterations)
	}
	stop := e.logProgress(req.Topic, start)
	defer stop()

	b := newBuilder(req.Topic, depth, start)
	b.controls = req.controls()
	topic := req.Topic + b.controls.instructions() // as the prompts give it
	req.Progress.report(fmt.Sprintf("round 1/%d: researching", maxRounds))
	rr, err := e.round(ctx, b.controls.request(backend.Request{Prompt: e.researchPrompt(topic, depth, model, start,
		backend.MaxSources), Model: model}),
		researchShape, req.Progress, nil)
	if err != nil {
		return Report{}, e.failure(ctx, req.Topic, err)
	}
	if rr.parsed && !*rr.agent.Success {
		return Report{}, agentGaveUp(rr.agent)
	}
	b.use(rr)

	for round := 2; round <= maxRounds && !b.partial; round++ {
		if d, _ := deadlineOf(ctx); !timeLeft(ctx) {
			b.cutShort(fmt.Sprintf("[Partial response: the time limit of %s (%s) ran out before verification round %d. "+
				"This is the report of round %d.]", d.limit, d.variable, round, round-1))
			break
		}
		model = b.current.model // a fallback model, once needed, stays in use
		e.drafted(req, b, round-1, maxRounds)
		req.Progress.report(fmt.Sprintf("round %d/%d: verifying", round, maxRounds))
		prompt := prompts.Render(e.templates.verify, prompts.Values{
			Topic: topic, Depth: depth, Date: promptDate(start), MaxIterations: e.settings.MaxIterations,
			MaxSources: backend.MaxSources,
			Draft:      b.text(), Round: round, MaxRounds: maxRounds,
		})
		vr, err := e.round(ctx, b.controls.request(backend.Request{Prompt: prompt, Model: model}), verifyShape, req.Progress, nil)
		var f *Failure
		switch {
		case err != nil && ctx.Err() != nil:
			return Report{}, ctx.Err()
		case err != nil && errors.As(e.failure(ctx, req.Topic, err), &f):
			b.cutShort(fmt.Sprintf("[Partial response: verification round %d failed (%s: %s). This is the report of round %d.]",
				round, f.Code, f.Message, round-1))
		case vr.timedOut > 0:
			b.add(vr)
			b.cutShort(fmt.Sprintf("[Partial response, timed out after %ds in verification round %d. This is the report of round %d.]",
				int(vr.timedOut.Seconds()), round, round-1))
		case vr.res.Unfinished != "":
			b.add(vr)
			b.cutShort(fmt.Sprintf("[Partial response: %s. This is the report of round %d.]",
				cutOff(fmt.Sprintf("verification round %d", round), vr.res.Unfinished), round-1))
			b.meta.FinishReason = vr.res.Unfinished
		case !vr.parsed || !*vr.agent.Success:
			e.log.Warn("verification round gave no usable report; keeping the previous one", "round", round)
			b.add(vr)
			return b.report(e.now()), nil
		default:
			b.use(vr)
			if len(vr.agent.Verification.OpenGaps) == 0 {
				return b.report(e.now()), nil
			}
		}
	}
	return b.report(e.now()), nil
}

// drafted tells req.Drafted, when set, of the report of round, the last complete one, as a draft: verification goes
// on.
func (e *Engine) drafted(req DeepSearchRequest, b *builder, round, maxRounds int) {
	if req.Drafted == nil {
		return
	}
	rep := b.report(e.now())
	rep.Partial = true
	rep.Report = fmt.Sprintf("[Draft: the report of round %d of at most %d; verification goes on, and the final "+
		"report may correct it.]\n\n", round, maxRounds) + rep.Report
	req.Drafted(rep)
}
