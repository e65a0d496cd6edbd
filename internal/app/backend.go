package app

import (
	"context"
	"fmt"
	"os/exec"
	"sync"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
)

// configured is everything that is rebuilt from a configuration: the resolved CLI, its runner and the engine.
type configured struct {
	cfg    config.Config
	cli    gemini.Command
	cliErr error // why no CLI was found; the server still serves and every search reports it
	engine *research.Engine
}

// configure resolves the Gemini CLI for cfg and builds the engine around it. The queue and the joined calls are
// the App's, shared with the engines built before; the queue takes cfg's limit once the engine is built.
func (a *App) configure(cfg config.Config) (*configured, error) {
	c := &configured{cfg: cfg}
	var runner backend.Runner
	c.cli, c.cliErr = gemini.Resolve(cfg.CLIPath, exec.LookPath)
	if c.cliErr != nil {
		runner = missingCLI{err: c.cliErr}
	} else {
		a.log.Info("using the Gemini CLI", "command", c.cli.String())
		runner = gemini.NewRunner(gemini.Config{
			Command:  c.cli,
			Dir:      cfg.Dir,
			ExtraEnv: cfg.CLIEnv(),
			Secrets:  cfg.Secrets(),
			Timeout:  cfg.SearchTimeout,
			Logger:   a.log,
		})
	}
	var err error
	c.engine, err = research.New(gatedRunner{runner, a.runs}, research.Settings{
		Model:               cfg.Model,
		CorrectionModel:     cfg.CorrectionModel,
		FallbackModel:       cfg.FallbackModel,
		SystemPrompt:        cfg.SystemPrompt,
		JSONMaxRetries:      cfg.JSONMaxRetries,
		MaxIterations:       cfg.MaxIterations,
		MaxRounds:           cfg.DeepSearchMaxRounds,
		ProgressLogInterval: cfg.ProgressLogInterval,
		Queue:               a.queue,
		QueueTimeout:        cfg.QueueTimeout,
		Joins:               &a.joins,
	}, a.log)
	if err != nil {
		return nil, err
	}
	a.queue.SetLimit(cfg.MaxConcurrent)
	return c, nil
}

// engineOf lets the MCP server always reach the current engine.
type engineOf struct{ a *App }

func (e engineOf) Search(ctx context.Context, req research.SearchRequest) (research.Report, error) {
	return e.a.configured.Load().engine.Search(ctx, req)
}

func (e engineOf) DeepSearch(ctx context.Context, req research.DeepSearchRequest) (research.Report, error) {
	return e.a.configured.Load().engine.DeepSearch(ctx, req)
}

// errShuttingDown refuses a CLI run once shutdown has begun; it is a cancellation, not a failure.
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

// missingCLI answers every run with CLI_NOT_FOUND.
type missingCLI struct{ err error }

func (m missingCLI) Run(context.Context, backend.Request) (backend.Result, error) {
	return backend.Result{}, &backend.Error{
		Code:     backend.CodeCLINotFound,
		Message:  "The Gemini CLI was not found: " + m.err.Error(),
		Hint:     "Install it with `npm install -g @google/gemini-cli` (or set GEMINI_CLI_PATH to its path), then restart the server.",
		ExitCode: -1,
	}
}
