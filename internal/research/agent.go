package research

import (
	"context"
	"errors"
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

// agentSearch researches req's topic with Google's Deep Research agent: it creates a run (or follows req.Resume's)
// and follows it to its end, telling req.Progress what the agent does. A request cancelled by its caller, or out of
// time, cancels the run, which stops what it costs; one whose context ends because the server stops
// (backend.ErrServerStopping) leaves it running, to be followed again at the next start. The report is the agent's,
// with [n] markers placed from its citations and the numbered sources they name.
func (e *Engine) agentSearch(ctx context.Context, req DeepSearchRequest, depth string) (Report, error) {
	if e.settings.Agent == nil {
		return Report{}, &Failure{Code: backend.CodeAuth, Message: "Google's Deep Research agent is not set up on this server.",
			Details: "It runs on the Gemini API: set GEMINI_API_KEY, or use engine rounds."}
	}
	start := e.now()
	stop := e.logProgress(req.Topic, start)
	defer stop()
	runCtx, cancel := backend.WithTimeout(ctx, e.settings.AgentTimeout)
	defer cancel()

	progress := throttled(req.Progress, agentStageEvery, e.now)
	if req.Resume == nil {
		req.Progress.report("starting Google's Deep Research agent")
	} else {
		req.Progress.report("following Google's Deep Research agent again")
	}
	var run backend.AgentRun
	writing := false
	res, err := e.settings.Agent.Research(runCtx, backend.AgentRequest{
		Input:    agentInput(req.Topic, depth),
		Max:      depth == DepthMax,
		Resume:   req.Resume,
		Previous: req.Previous,
		Events: func(ev backend.Event) {
			switch {
			case ev.Kind != backend.EventText:
				progress(stageOf(ev))
			case !writing:
				writing = true
				req.Progress.report("writing the report")
			}
		},
		Followed: func(r backend.AgentRun) {
			run = r
			if req.Followed != nil {
				req.Followed(r)
			}
		},
	})
	if err != nil {
		if runCtx.Err() != nil && run.ID != "" && !errors.Is(context.Cause(ctx), backend.ErrServerStopping) {
			e.cancelRun(ctx, run.ID)
		}
		if ctx.Err() == nil && runCtx.Err() != nil {
			err = backend.Timeout(backend.CodeAPITimeout, e.settings.AgentTimeout, "GEMINI_DEEP_RESEARCH_TIMEOUT", runCtx.Err())
		}
		return Report{}, e.failure(ctx, req.Topic, err)
	}
	b := newBuilder(req.Topic, depth, start)
	b.freeText = true
	b.use(roundResult{res: res, model: res.Model})
	rep := b.report(e.now())
	rep.Metadata.Engine, rep.Metadata.Interaction = EngineGoogle, run.ID
	return rep, nil
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
