// Package headless is the headless server binary, gemini-search-mcp: it serves MCP over stdio or Streamable HTTP
// (an App of internal/app), and runs the commands of people without a tray: doctor, connect and disconnect.
package headless

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/app"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/doctor"
)

const usage = `gemini-search-mcp: web research for MCP clients through a Gemini CLI agent.

Usage:
  gemini-search-mcp                       serve MCP over stdio (Claude Desktop and other stdio clients)
  gemini-search-mcp --http [--host H] [--port P]
                                          serve Streamable HTTP at http://H:P/mcp (default 127.0.0.1:3000)
  gemini-search-mcp doctor [--offline]    check the installation, send a one-line query to each backend in use,
                                          and print a checklist (--offline: no query)
  gemini-search-mcp connect [CLIENT [--print]]
                                          add this server to a client (cursor, claude-desktop, vscode, claude-code),
                                          or print its entry; with no client, list the clients and their state
  gemini-search-mcp disconnect CLIENT     remove this server from a client's configuration
  gemini-search-mcp --version             print the version

Configuration comes from the environment, then <config dir>/.env; run doctor to see the config dir.
Flags:
`

// Main runs the headless server binary and returns its exit code.
func Main(args []string, version string, stdin io.Reader, stdout, stderr io.Writer) int {
	const name = "gemini-search-mcp"
	flags := app.NewFlags(name, usage, stderr)
	httpMode := flags.Bool("http", false, "serve Streamable HTTP instead of stdio")
	if code, done := flags.Parse(args, version, stdout); done {
		return code
	}
	command := flags.Arg(0)
	if command != "" && !slices.Contains([]string{"doctor", "connect", "disconnect"}, command) {
		fmt.Fprintf(stderr, "%s: unknown command %q\n\n", name, strings.Join(flags.Args(), " "))
		flags.Usage()
		return 2
	}
	src := app.Source{Env: config.OSEnv(), Flags: flags, Stdio: !*httpMode}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	switch command {
	case "doctor":
		return doctorCommand(ctx, src, flags.Args()[1:], stdout, stderr)
	case "connect", "disconnect":
		return clientsCommand(command, src, flags.Args()[1:], stdout, stderr)
	}

	a, logger, err := app.Start(src, stderr, app.Options{Version: version})
	if err != nil {
		return 1
	}
	app.RouteStandardLog(logger)
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

// doctorCommand runs `doctor [--offline]` on src's configuration: it prints the checklist and returns 0 when nothing
// is broken, 1 otherwise. Invalid values and an HTTP host that --http would refuse are checks of the list, not
// reasons to stop before it.
func doctorCommand(ctx context.Context, src app.Source, args []string, stdout, stderr io.Writer) int {
	const name = "gemini-search-mcp doctor"
	flags := flag.NewFlagSet(name, flag.ContinueOnError)
	flags.SetOutput(stderr)
	flags.Usage = func() {
		fmt.Fprintf(stderr, "Usage: %s [--offline]\n\nChecks the installation, sends a one-line query to each backend in use, "+
			"and prints a checklist; exits 1 when something is broken.\n\nFlags:\n", name)
		flags.PrintDefaults()
	}
	offline := flags.Bool("offline", false, "check without sending a query to the Gemini CLI or API")
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected %q\n", name, strings.Join(flags.Args(), " "))
		flags.Usage()
		return 2
	}
	src.Stdio = true // the HTTP host is a check of its own
	cfg, err := src.Load()
	cfg, checks, err := doctor.Load(src.Env, cfg, err, func(env config.Env, dotenv []byte) (config.Config, error) {
		reload := src
		reload.Env = env
		return reload.LoadDotenv(dotenv)
	})
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 1
	}
	checks = append(checks, doctor.Run(ctx, cfg, doctor.Options{Env: src.Env, Offline: *offline, Exposure: app.CheckExposure})...)
	if doctor.Print(stdout, checks) {
		return 0
	}
	return 1
}
