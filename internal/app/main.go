package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
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
	const name = "gemini-search-mcp"
	flags := NewFlags(name, usage, stderr)
	httpMode := flags.Bool("http", false, "serve Streamable HTTP instead of stdio")
	if code, done := flags.Parse(args, version, stdout); done {
		return code
	}
	command := flags.Arg(0)
	if flags.NArg() > 1 || (command != "" && command != "doctor") {
		fmt.Fprintf(stderr, "%s: unknown command %q\n\n", name, strings.Join(flags.Args(), " "))
		flags.Usage()
		return 2
	}
	src := Source{Env: config.OSEnv(), Flags: flags, Stdio: !*httpMode}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if command == "doctor" {
		cfg, err := src.Load()
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
			return 1
		}
		if doctor.Print(stdout, doctor.Run(ctx, cfg, src.Env)) {
			return 0
		}
		return 1
	}

	a, logger, err := Start(src, stderr, Options{Version: version})
	if err != nil {
		return 1
	}
	cfg := a.Config()
	if !*httpMode {
		err = a.ServeStdio(ctx, stdin, stdout)
	} else {
		var ln net.Listener
		if ln, err = net.Listen("tcp", cfg.Addr()); err != nil {
			a.Shutdown()
			logger.Error("cannot listen; is another server using the port? Set MCP_SERVER_PORT or --port", "addr", cfg.Addr(), "err", err)
			return 1
		}
		err = a.ServeOn(ctx, ln)
	}
	if err != nil {
		logger.Error("server stopped", "err", err)
		return 1
	}
	logger.Info("stopped")
	return 0
}

// Start is the start-up both binaries share once their flags are parsed: it loads the configuration from src (what
// the app would refuse is refused here), makes the logger on logOut at the level DEBUG asks for, and builds the
// App, which logs what its setup lacks. A failure is logged on logOut before it is returned.
func Start(src Source, logOut io.Writer, o Options) (*App, *slog.Logger, error) {
	cfg, err := src.Load()
	if err != nil {
		logger := logging.New(logOut, false)
		logger.Error("cannot start: " + err.Error())
		return nil, logger, err
	}
	logger := logging.New(logOut, cfg.Debug)
	o.Logger, o.Env = logger, src.Env
	a, err := New(cfg, o)
	if err != nil {
		logger.Error("cannot start", "err", err)
		return nil, logger, err
	}
	return a, logger, nil
}
