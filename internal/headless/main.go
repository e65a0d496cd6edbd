// Package headless is the headless server binary, gemini-search-mcp: it serves MCP over stdio or Streamable HTTP
// (an App of internal/app), and runs the commands of people without a tray: doctor, connect and disconnect.
package headless

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/term"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/app"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/doctor"
)

var usage = `gemini-search-mcp: web research for MCP clients through a Gemini CLI agent or the Gemini API.

Usage:
  gemini-search-mcp                       serve MCP over stdio (Claude Desktop and other stdio clients)
  gemini-search-mcp --http [--host H] [--port P]
                                          serve Streamable HTTP at http://H:P/mcp (default 127.0.0.1:3000)
  gemini-search-mcp doctor [--offline]    check the installation, send a one-line query to each backend in use,
                                          and print a checklist (--offline: no query)
  gemini-search-mcp connect [--list]      list each MCP client, its state and its configuration file
  gemini-search-mcp connect CLIENT [--yes] [--project DIR]
                                          add this server to a client's configuration: shows the change as a
                                          diff and asks first (--yes: write it without asking)
  gemini-search-mcp connect CLIENT --print
                                          print the client's entry for this server, in its file's format
  gemini-search-mcp disconnect CLIENT [--yes] [--project DIR]
                                          remove this server from a client's configuration
  gemini-search-mcp help [COMMAND]        print this help, or a command's
  gemini-search-mcp version               print the version (also --version)

Clients: ` + clientList + `.
Configuration comes from the environment, then <config dir>/.env; run doctor to see the config dir.
Flags:
`

// commands are the binary's subcommands.
var commands = []string{"doctor", "connect", "disconnect", "help", "version"}

// Main runs the headless server binary and returns its exit code.
func Main(args []string, version string, stdin io.Reader, stdout, stderr io.Writer) int {
	const name = "gemini-search-mcp"
	usageOut := NewHelpOutput(stderr)
	flags := app.NewFlags(name, usage, usageOut)
	httpMode := flags.Bool("http", false, "serve Streamable HTTP instead of stdio")
	code, done := flags.Parse(args, version, stdout)
	usageOut.Release(done && code == 0, stdout)
	if done {
		return code
	}
	command := flags.Arg(0)
	if command != "" && !slices.Contains(commands, command) {
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
		return clientsCommand(command, src, flags.Args()[1:], terminal(stdin), stdin, stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, name, version)
		return 0
	case "help":
		return helpCommand(ctx, src, flags, flags.Args()[1:], stdout, stderr)
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
	flags.Usage = func() {
		fmt.Fprintf(flags.Output(), "Usage: %s [--offline]\n\nChecks the installation, sends a one-line query to each "+
			"backend in use, and prints a checklist; exits 1 when something is broken.\n\nFlags:\n", name)
		flags.PrintDefaults()
	}
	offline := flags.Bool("offline", false, "check without sending a query to the Gemini CLI or API")
	if code, done := parseFlags(flags, args, stdout, stderr); done {
		return code
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

// helpCommand runs `help [COMMAND]`: the binary's usage, or the command's, on stdout.
func helpCommand(ctx context.Context, src app.Source, flags *app.Flags, args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		fmt.Fprint(stdout, usage)
		flags.SetOutput(stdout)
		flags.PrintDefaults()
		return 0
	case len(args) > 1 || !slices.Contains(commands, args[0]):
		fmt.Fprintf(stderr, "gemini-search-mcp help: no command %q: one of %s\n", strings.Join(args, " "),
			strings.Join(commands, ", "))
		return 2
	case args[0] == "doctor":
		return doctorCommand(ctx, src, []string{"--help"}, stdout, stderr)
	case args[0] == "connect", args[0] == "disconnect":
		return clientsCommand(args[0], src, []string{"--help"}, false, nil, stdout, stderr)
	}
	fmt.Fprintf(stdout, "Usage: gemini-search-mcp %s\n", args[0]) // help and version take nothing
	return 0
}

// terminal reports whether r is a terminal a person types into, who can be asked before a file is changed
// (/dev/null is a character device too, not a terminal).
func terminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
