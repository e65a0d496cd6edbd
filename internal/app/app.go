// Package app wires the configuration, the research workspace, the Gemini CLI runner, the research engine and
// the MCP server together. The headless binary and the tray are thin shells around it.
package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os/exec"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/server"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/httpserver"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/mcpserver"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/workspace"
)

// App is one research server. Its configuration can change while it serves (Reconfigure); the MCP server, the
// activity registry and the queue of CLI runs stay the same.
type App struct {
	version  string
	log      *slog.Logger
	activity *activity.Registry
	queue    *research.Queue
	joins    research.Joins
	runs     *runGate           // CLI runs in progress, so shutdown can wait until their processes are gone
	lifetime context.Context    // ends at Shutdown: work that outlives its request (MCP tasks) stops then
	end      context.CancelFunc // ends lifetime
	mcp      *server.MCPServer
	state    atomic.Pointer[state]
}

// state is everything that is rebuilt from a configuration.
type state struct {
	cfg    config.Config
	cli    gemini.Command
	cliErr error // why no CLI was found; the server still serves and every search reports it
	engine *research.Engine
}

// New prepares the config dir and research workspace, resolves the Gemini CLI and builds the MCP server.
func New(cfg config.Config, version string, logger *slog.Logger) (*App, error) {
	a := &App{version: version, log: logger, activity: activity.New(), queue: research.NewQueue(cfg.MaxConcurrent),
		runs: newRunGate()}
	if err := a.Reconfigure(cfg); err != nil {
		return nil, err
	}
	a.lifetime, a.end = context.WithCancel(context.Background())
	a.mcp = mcpserver.New(engineOf{a}, mcpserver.Options{Version: version, Logger: logger, Activity: a.activity,
		ResponseLimit: func() int { return a.Config().MaxResponseChars }, Lifetime: a.lifetime})
	return a, nil
}

// Reconfigure applies cfg: it prepares the workspace (creating settings.json only when it is missing), resolves
// the CLI and rebuilds the engine. Searches already running finish with the settings they started with. The HTTP
// address is not the App's concern: a caller that serves HTTP restarts its listener when Host or Port changed.
func (a *App) Reconfigure(cfg config.Config) error {
	created, err := workspace.Prepare(cfg.Dir, workspace.Options{Firecrawl: cfg.FirecrawlEnabled()})
	if err != nil {
		return err
	}
	if created {
		a.log.Info("created the research workspace", "settings", workspace.SettingsPath(cfg.Dir), "firecrawl", cfg.FirecrawlMode())
	}

	s := &state{cfg: cfg}
	var runner research.Runner
	s.cli, s.cliErr = gemini.Resolve(cfg.CLIPath, exec.LookPath)
	if s.cliErr != nil {
		a.log.Warn("Gemini CLI not found: searches will fail until it is installed (npm install -g @google/gemini-cli) or GEMINI_CLI_PATH is set, and the server restarted",
			"err", s.cliErr)
		runner = missingCLI{err: s.cliErr}
	} else {
		a.log.Info("using the Gemini CLI", "command", s.cli.String())
		runner = gemini.NewRunner(gemini.Config{
			Command:  s.cli,
			Dir:      cfg.Dir,
			ExtraEnv: cfg.CLIEnv(),
			Secrets:  cfg.Secrets(),
			Timeout:  cfg.SearchTimeout,
			Logger:   a.log,
		})
	}
	a.queue.SetLimit(cfg.MaxConcurrent)
	s.engine, err = research.New(gatedRunner{runner, a.runs}, research.Settings{
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
		return err
	}
	a.state.Store(s)
	return nil
}

// Config returns the configuration in use.
func (a *App) Config() config.Config { return a.state.Load().cfg }

// Activity is the registry of running searches and recent failures.
func (a *App) Activity() *activity.Registry { return a.activity }

// ServeStdio serves MCP over in/out until in closes or ctx is cancelled, then shuts the app down.
func (a *App) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	defer a.Shutdown()
	return mcpserver.ServeStdio(ctx, a.mcp, in, out, a.log)
}

// ServeHTTP serves Streamable HTTP on ln until ctx is cancelled, then shuts the app down.
func (a *App) ServeHTTP(ctx context.Context, ln net.Listener) error {
	defer a.Shutdown()
	a.log.Info("serving MCP over HTTP", "url", fmt.Sprintf("http://%s/mcp", ln.Addr()))
	return httpserver.Serve(ctx, ln, a.HTTPHandler())
}

// Shutdown cancels the work that outlives its request (MCP tasks), refuses new CLI runs, and waits until every
// running one has ended with its processes. Requests' own searches end when their servers cancel them.
func (a *App) Shutdown() {
	a.end()
	a.runs.closeAndWait()
}

// HTTPHandler is the HTTP surface: /mcp and /healthz behind the Origin, size and token checks. The token is read
// when the handler is built: rebuild it after a Reconfigure that changed MCP_AUTH_TOKEN.
func (a *App) HTTPHandler() http.Handler {
	return mcpserver.HTTPHandler(a.mcp, mcpserver.HTTPOptions{
		AuthToken: a.Config().AuthToken.Reveal(),
		Health:    a.health,
		Logger:    a.log,
	})
}

func (a *App) health() any {
	s := a.state.Load()
	cli := "missing"
	if s.cliErr == nil {
		cli = s.cli.String()
	}
	running, queued := a.queue.Active()
	return map[string]any{"status": "ok", "version": a.version, "gemini_cli": cli,
		"running_searches": running, "queued_searches": queued}
}

// engineOf lets the MCP server always reach the current engine.
type engineOf struct{ a *App }

func (e engineOf) Search(ctx context.Context, req research.SearchRequest) (research.Report, error) {
	return e.a.state.Load().engine.Search(ctx, req)
}

func (e engineOf) DeepSearch(ctx context.Context, req research.DeepSearchRequest) (research.Report, error) {
	return e.a.state.Load().engine.DeepSearch(ctx, req)
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
	next research.Runner
	gate *runGate
}

func (r gatedRunner) Run(ctx context.Context, req gemini.Request) (gemini.Result, error) {
	if !r.gate.enter() {
		return gemini.Result{}, errShuttingDown
	}
	defer r.gate.leave()
	return r.next.Run(ctx, req)
}

// missingCLI answers every run with CLI_NOT_FOUND.
type missingCLI struct{ err error }

func (m missingCLI) Run(context.Context, gemini.Request) (gemini.Result, error) {
	return gemini.Result{}, &gemini.Error{
		Code:     gemini.CodeCLINotFound,
		Message:  "The Gemini CLI was not found: " + m.err.Error(),
		Hint:     "Install it with `npm install -g @google/gemini-cli` (or set GEMINI_CLI_PATH to its path), then restart the server.",
		ExitCode: -1,
	}
}
