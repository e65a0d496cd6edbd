package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/logging"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/mcpserver"
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
	fs := flag.NewFlagSet("gemini-search-mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	httpMode := fs.Bool("http", false, "serve Streamable HTTP instead of stdio")
	host := fs.String("host", "", "HTTP host to bind (overrides MCP_SERVER_HOST)")
	port := fs.Int("port", 0, "HTTP port (overrides MCP_SERVER_PORT; 0 picks a free port)")
	showVersion := fs.Bool("version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *showVersion {
		fmt.Fprintln(stdout, "gemini-search-mcp", version)
		return 0
	}
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
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "host":
			cfg.Host = *host
		case "port":
			cfg.Port = *port
		}
	})
	if cfg.Port < 0 || cfg.Port > 65535 {
		fmt.Fprintf(stderr, "gemini-search-mcp: invalid --port %d: must be between 0 and 65535\n", cfg.Port)
		return 1
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if command == "doctor" {
		if Doctor(ctx, cfg, env, stdout) {
			return 0
		}
		return 1
	}

	logger := logging.New(stderr, cfg.Debug)
	if *httpMode && !mcpserver.IsLoopbackHost(cfg.Host) && cfg.AuthToken == "" {
		logger.Error("refusing to serve on a non-loopback host without a token: anyone on the network could run searches on your account; set MCP_AUTH_TOKEN or bind 127.0.0.1",
			"host", cfg.Host)
		return 1
	}
	a, err := New(cfg, version, logger)
	if err != nil {
		logger.Error("cannot start", "err", err)
		return 1
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
