package app

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/checklist"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/doctor"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/runners"
)

// configured is everything that is rebuilt from a configuration: the backends and the engine.
type configured struct {
	cfg      config.Config
	backends *runners.Set
	engine   *research.Engine
	// problems are what the setup checks find wrong with it (no CLI, no credentials): doctor.Setup's at first, then
	// those of the last whole checklist run on it (Checklist: a CLI that does not start shows only there).
	problems atomic.Pointer[[]checklist.Check]
}

// configure builds the backends cfg asks for, with the CLI's sign-in login, and the engine around them. The queue and the joined calls are the
// App's, shared with the engines built before; the queue and the cache take cfg's limits once the engine is built.
func (a *App) configure(cfg config.Config, login string) (*configured, error) {
	c := &configured{cfg: cfg, backends: runners.New(context.Background(), cfg, login, a.log, a.warmth.Notify)}
	problems := checklist.Problems(doctor.Setup(cfg, c.backends, login))
	c.problems.Store(&problems)
	if c.backends.CLIErr == nil {
		a.log.Info("using the Gemini CLI", "command", c.backends.CLI.String())
	}
	a.log.Info("research backend", "backend", c.backends.State().String())
	var err error
	c.engine, err = research.New(gatedRunner{c.backends.Runner(), a.runs}, research.Settings{
		Model:               cfg.Model,
		CorrectionModel:     cfg.CorrectionModel,
		FallbackModel:       cfg.FallbackModel,
		Prompts:             cfg.Prompts,
		SearchTimeout:       cfg.SearchTimeout,
		DeepSearchTimeout:   cfg.DeepSearchTimeout,
		AskTimeout:          cfg.AskTimeout,
		JSONMaxRetries:      cfg.JSONMaxRetries,
		MaxIterations:       cfg.MaxIterations,
		MaxRounds:           cfg.DeepSearchMaxRounds,
		ProgressLogInterval: cfg.ProgressLogInterval,
		Queue:               a.queue,
		QueueTimeout:        cfg.QueueTimeout,
		Joins:               &a.joins,
		Cache:               a.cache,
		Backend:             cfg.Backend,
		Agent:               c.backends.Agent(),
		AgentTimeout:        cfg.DeepResearchTimeout,
		DeepSearchEngine:    cfg.DeepResearchEngine,
		AgentPlan:           cfg.DeepResearchPlan,
		Used:                a.keepUsage,
		Admit:               a.admit,
	}, a.log)
	if err != nil {
		return nil, err
	}
	a.queue.SetLimit(cfg.MaxConcurrent)
	a.cache.SetTTL(cfg.CacheTTL)
	a.library.SetRetention(retention(cfg))
	return c, nil
}

// engineOf lets the MCP server always reach the current engine, and keeps each report it returns in the history:
// the one place reports are recorded, whichever server, transport or task ran the call.
type engineOf struct{ a *App }

func (e engineOf) Search(ctx context.Context, req research.SearchRequest) (research.Report, error) {
	return e.run(ctx, "search", req.Query, func(eng *research.Engine) (research.Report, error) { return eng.Search(ctx, req) })
}

func (e engineOf) DeepSearch(ctx context.Context, req research.DeepSearchRequest) (research.Report, error) {
	return e.run(ctx, "deep_search", req.Topic, func(eng *research.Engine) (research.Report, error) { return eng.DeepSearch(ctx, req) })
}

func (e engineOf) Ask(ctx context.Context, req research.AskRequest) (research.Report, error) {
	return e.run(ctx, "ask", req.Prompt, func(eng *research.Engine) (research.Report, error) { return eng.Ask(ctx, req) })
}

func (e engineOf) Structured(ctx context.Context, req research.StructuredRequest) (research.Report, error) {
	return e.run(ctx, "structured", req.Prompt, func(eng *research.Engine) (research.Report, error) { return eng.Structured(ctx, req) })
}

func (e engineOf) Fetch(ctx context.Context, req research.FetchRequest) (research.Report, error) {
	return e.run(ctx, "fetch", req.URL, func(eng *research.Engine) (research.Report, error) { return eng.Fetch(ctx, req) })
}

func (e engineOf) FollowUp(ctx context.Context, req research.FollowUpRequest) (research.Report, error) {
	return e.run(ctx, "follow_up", req.Question, func(eng *research.Engine) (research.Report, error) { return eng.FollowUp(ctx, req) })
}

// run runs one call of tool about topic, made with ctx, on the engine in force, keeps its report in the library
// and tells Options.Finished how it ended.
func (e engineOf) run(ctx context.Context, tool, topic string, call func(*research.Engine) (research.Report, error)) (research.Report, error) {
	start := time.Now()
	rep, err := call(e.a.configured.Load().engine)
	e.record(ctx, tool, rep, err)
	e.finished(Finished{Tool: tool, Topic: topic, Took: time.Since(start), Report: rep, Err: err})
	return rep, err
}

// errShuttingDown refuses a research run once shutdown has begun; it is a cancellation, not a failure.
var errShuttingDown = fmt.Errorf("the server is shutting down: %w", context.Canceled)

// runGate counts the CLI runs in progress. Once closed it admits no new run (a deep search between two rounds,
// say), so shutdown can wait for the last one.
type runGate struct {
	mu     sync.Mutex
	idle   *sync.Cond
	n      int
	closed bool
}

func newRunGate() *runGate {
	g := &runGate{}
	g.idle = sync.NewCond(&g.mu)
	return g
}

func (g *runGate) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.n++
	return true
}

func (g *runGate) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.n--; g.n == 0 {
		g.idle.Broadcast()
	}
}

func (g *runGate) closeAndWait() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	for g.n > 0 {
		g.idle.Wait()
	}
}

// gatedRunner runs the CLI only through the gate.
type gatedRunner struct {
	next backend.Runner
	gate *runGate
}

func (r gatedRunner) Run(ctx context.Context, req backend.Request) (backend.Result, error) {
	if !r.gate.enter() {
		return backend.Result{}, errShuttingDown
	}
	defer r.gate.leave()
	return r.next.Run(ctx, req)
}
