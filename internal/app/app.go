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
	inflight sync.WaitGroup // CLI runs in progress, so shutdown can wait until their processes are gone
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
	a := &App{version: version, log: logger, activity: activity.New(), queue: research.NewQueue(cfg.MaxConcurrent)}
	if err := a.Reconfigure(cfg); err != nil {
		return nil, err
	}
	a.mcp = mcpserver.New(engineOf{a}, mcpserver.Options{Version: version, Logger: logger, Activity: a.activity,
		ResponseLimit: func() int { return a.Config().MaxResponseChars }})
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
	s.engine, err = research.New(inflightRunner{runner, &a.inflight}, research.Settings{
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

// ServeStdio serves MCP over in/out until in closes or ctx is cancelled, and waits for running searches to end.
func (a *App) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	defer a.inflight.Wait()
	return mcpserver.ServeStdio(ctx, a.mcp, in, out, a.log)
}

// ServeHTTP serves Streamable HTTP on ln until ctx is cancelled, and waits for running searches to end.
func (a *App) ServeHTTP(ctx context.Context, ln net.Listener) error {
	defer a.inflight.Wait()
	a.log.Info("serving MCP over HTTP", "url", fmt.Sprintf("http://%s/mcp", ln.Addr()))
	return mcpserver.Serve(ctx, ln, a.HTTPHandler())
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

// inflightRunner counts CLI runs in a WaitGroup.
type inflightRunner struct {
	next research.Runner
	wg   *sync.WaitGroup
}

func (r inflightRunner) Run(ctx context.Context, req gemini.Request) (gemini.Result, error) {
	r.wg.Add(1)
	defer r.wg.Done()
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
