package app

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/doctor"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/logging"
)

const usage = `gemini-search-mcp: web research for MCP clients through a Gemini CLI agent.

Usage:
  gemini-search-mcp                       serve MCP over stdio (Claude Desktop and other stdio clients)
  gemini-search-mcp --http [--host H] [--port P]
                                          serve Streamable HTTP at http://H:P/mcp (default 127.0.0.1:3000)
  gemini-search-mcp doctor                check the installation and print a checklist
  gemini-search-mcp --version             print the version

Configuration comes from the environment, then <config dir>/.env; run doctor to see the config dir.
Flags:
`

// Main runs the headless server binary and returns its exit code.
func Main(args []string, version string, stdin io.Reader, stdout, stderr io.Writer) int {
	flags := newServerFlags("gemini-search-mcp", usage, stderr)
	httpMode := flags.fs.Bool("http", false, "serve Streamable HTTP instead of stdio")
	if code, done := flags.parse(args, version, stdout); done {
		return code
	}
	fs := flags.fs
	command := fs.Arg(0)
	if fs.NArg() > 1 || (command != "" && command != "doctor") {
		fmt.Fprintf(stderr, "gemini-search-mcp: unknown command %q\n\n", strings.Join(fs.Args(), " "))
		fs.Usage()
		return 2
	}

	env := config.OSEnv()
	cfg, err := config.Load(env)
	if err != nil {
		fmt.Fprintf(stderr, "gemini-search-mcp: %v\n", err)
		return 1
	}
	flags.override(&cfg)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if command == "doctor" {
		if doctor.Print(stdout, doctor.Run(ctx, cfg, env)) {
			return 0
		}
		return 1
	}

	logger := logging.New(stderr, cfg.Debug)
	if err := checkExposure(cfg); *httpMode && err != nil {
		logger.Error(err.Error())
		return 1
	}
	a, err := New(cfg, version, logger)
	if err != nil {
		logger.Error("cannot start", "err", err)
		return 1
	}
	if problem := doctor.FirecrawlMismatch(cfg); problem != "" {
		logger.Warn(problem)
	}
	if !*httpMode {
		err = a.ServeStdio(ctx, stdin, stdout)
	} else {
		var ln net.Listener
		if ln, err = net.Listen("tcp", cfg.Addr()); err != nil {
			logger.Error("cannot listen; is another server using the port? Set MCP_SERVER_PORT or --port", "addr", cfg.Addr(), "err", err)
			return 1
		}
		err = a.ServeHTTP(ctx, ln)
	}
	if err != nil {
		logger.Error("server stopped", "err", err)
		return 1
	}
	logger.Info("stopped")
	return 0
}
