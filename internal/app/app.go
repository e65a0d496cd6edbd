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

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/mcpserver"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/workspace"
)

// App is one configured research server.
type App struct {
	cfg     config.Config
	version string
	log     *slog.Logger
	cli     gemini.Command
	cliErr  error // why no CLI was found; the server still serves and every search reports it
	runs    *runLimiter
	mcp     *server.MCPServer
}

// New prepares the config dir and research workspace, resolves the Gemini CLI and builds the MCP server.
func New(cfg config.Config, version string, logger *slog.Logger) (*App, error) {
	created, err := workspace.Prepare(cfg.Dir, workspace.Options{Firecrawl: cfg.FirecrawlEnabled()})
	if err != nil {
		return nil, err
	}
	if created {
		logger.Info("created the research workspace", "settings", workspace.SettingsPath(cfg.Dir), "firecrawl", cfg.FirecrawlMode())
	}

	a := &App{cfg: cfg, version: version, log: logger}
	var runner research.Runner
	a.cli, a.cliErr = gemini.Resolve(cfg.CLIPath, exec.LookPath)
	if a.cliErr != nil {
		logger.Warn("Gemini CLI not found: searches will fail until it is installed (npm install -g @google/gemini-cli) or GEMINI_CLI_PATH is set, and the server restarted",
			"err", a.cliErr)
		runner = missingCLI{err: a.cliErr}
	} else {
		logger.Info("using the Gemini CLI", "command", a.cli.String())
		runner = gemini.NewRunner(gemini.Config{
			Command:  a.cli,
			Dir:      cfg.Dir,
			ExtraEnv: cfg.CLIEnv(),
			Secrets:  cfg.Secrets(),
			Timeout:  cfg.SearchTimeout,
			Logger:   logger,
		})
	}
	a.runs = newRunLimiter(runner, cfg.MaxConcurrent)

	engine, err := research.New(a.runs, research.Settings{
		Model:               cfg.Model,
		SystemPrompt:        cfg.SystemPrompt,
		JSONMaxRetries:      cfg.JSONMaxRetries,
		MaxIterations:       cfg.MaxIterations,
		ProgressLogInterval: cfg.ProgressLogInterval,
	}, logger)
	if err != nil {
		return nil, err
	}
	a.mcp = mcpserver.New(engine, version, logger)
	return a, nil
}

// ServeStdio serves MCP over in/out until in closes or ctx is cancelled, and waits for running searches to end.
func (a *App) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	defer a.runs.wait()
	return mcpserver.ServeStdio(ctx, a.mcp, in, out, a.log)
}

// ServeHTTP serves Streamable HTTP on ln until ctx is cancelled, and waits for running searches to end.
func (a *App) ServeHTTP(ctx context.Context, ln net.Listener) error {
	defer a.runs.wait()
	a.log.Info("serving MCP over HTTP", "url", fmt.Sprintf("http://%s/mcp", ln.Addr()))
	return mcpserver.Serve(ctx, ln, a.HTTPHandler())
}

// HTTPHandler is the HTTP surface: /mcp and /healthz behind the Origin, size and token checks.
func (a *App) HTTPHandler() http.Handler {
	return mcpserver.HTTPHandler(a.mcp, mcpserver.HTTPOptions{
		AuthToken: a.cfg.AuthToken.Reveal(),
		Health:    a.health,
		Logger:    a.log,
	})
}

func (a *App) health() any {
	cli := "missing"
	if a.cliErr == nil {
		cli = a.cli.String()
	}
	return map[string]any{"status": "ok", "version": a.version, "gemini_cli": cli, "running_searches": a.runs.running.Load()}
}

// runLimiter bounds concurrent CLI runs to GEMINI_MAX_CONCURRENT and lets shutdown wait until every run's
// process group is gone.
type runLimiter struct {
	next    research.Runner
	slots   chan struct{}
	running atomic.Int32
	wg      sync.WaitGroup
}

func newRunLimiter(next research.Runner, limit int) *runLimiter {
	return &runLimiter{next: next, slots: make(chan struct{}, max(limit, 1))}
}

func (l *runLimiter) Run(ctx context.Context, req gemini.Request) (gemini.Result, error) {
	l.wg.Add(1)
	defer l.wg.Done()
	select {
	case l.slots <- struct{}{}:
	case <-ctx.Done():
		return gemini.Result{}, ctx.Err()
	}
	defer func() { <-l.slots }()
	l.running.Add(1)
	defer l.running.Add(-1)
	return l.next.Run(ctx, req)
}

func (l *runLimiter) wait() { l.wg.Wait() }

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
