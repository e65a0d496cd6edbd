// Package trayapp is the desktop app: an App served over HTTP by a server the menu can stop, restart and move, the
// settings and status pages on the same port, and a watcher that applies edits of .env and repairs settings.json.
// The tray icon and its menu (internal/tray) read the App's state and act through the controller.
package trayapp

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/adrg/xdg"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/app"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/desktop"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/headless"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/logging"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tray"
)

const usage = `gemini-search-tray: the Gemini Search MCP server with a system tray icon.

It serves MCP at http://127.0.0.1:3000/mcp (MCP_SERVER_HOST, MCP_SERVER_PORT), shows what is being researched, and
opens a settings page in the browser. Without a desktop session it keeps serving and logs the pages' addresses.

Usage:
  gemini-search-tray [--headless] [--host H] [--port P]
  gemini-search-tray help                 print this help
  gemini-search-tray version              print the version (also --version)

Flags:
`

// Log file rotation: 5 MiB per file, three old files kept.
const (
	logMaxBytes = 5 << 20
	logKeep     = 3
)

// Main runs the tray binary and returns its exit code. It must run on the main goroutine: the tray icon's event
// loop needs it on macOS and Windows.
func Main(args []string, version string, stdout, stderr io.Writer) int {
	const name = "gemini-search-tray"
	usageOut := headless.NewHelpOutput(stderr) // --help on stdout, a usage error on stderr
	flags := app.NewFlags(name, usage, usageOut)
	noIcon := flags.Bool("headless", false, "serve without a tray icon")
	code, done := flags.Parse(args, version, stdout)
	usageOut.Release(done && code == 0, stdout)
	if done {
		return code
	}
	switch command := strings.Join(flags.Args(), " "); command {
	case "":
	case "help":
		fmt.Fprint(stdout, usage)
		flags.SetOutput(stdout)
		flags.PrintDefaults()
		return 0
	case "version":
		fmt.Fprintln(stdout, name, version)
		return 0
	default:
		fmt.Fprintf(stderr, "%s: unexpected arguments %q\n\n", name, flags.Args())
		flags.Usage()
		return 2
	}
	// The log file first: a tray started at login that refuses its configuration says why in it.
	logOut := stderr
	stateDir := filepath.Join(xdg.StateHome, "gemini-search-mcp")
	logPath := filepath.Join(stateDir, "tray.log")
	if f, err := logging.OpenRotating(logPath, logMaxBytes, logKeep); err != nil {
		fmt.Fprintf(stderr, "%s: no log file: %v\n", name, err)
		logPath = ""
	} else {
		defer f.Close()
		logOut = io.MultiWriter(f, stderr) // the file first: a GUI program's stderr may be no file, and fail every write
	}
	c, logger, err := start(app.Source{Env: config.OSEnv(), Flags: flags}, logOut, version)
	if err != nil {
		return 1
	}
	slog.SetDefault(logger) // the tray library and the Gemini API SDK log through the standard log package: at INFO
	cfg := c.app.Config()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := c.run(ctx); err != nil {
		logger.Error("cannot start", "err", err)
		c.shutdown()
		return 1
	}
	logger.Info("gemini-search-tray started", "version", version, "config_dir", cfg.Dir, "log_file", logPath)

	if *noIcon {
		c.logPages("serving without a tray icon (--headless)")
		<-ctx.Done()
	} else {
		auto, err := desktop.NewAutostart(executable())
		if err != nil {
			logger.Warn("start at login is not available", "err", err)
		}
		opts := tray.Options{
			App:       c.app,
			Actions:   c,
			Pages:     c.http,
			Autostart: auto,
			ConfigDir: cfg.Dir,
			LogFile:   logPath,
			Open:      openHidingQuery(desktop.Open),
			Copy:      desktop.CopyText,
			Quit:      stop,
			Notify:    c.Notify,
			Logger:    logger,
			Version:   version,
		}
		if !tray.HostPresent() {
			c.logPages("no tray host is running yet: the icon appears when one starts")
		}
		go c.openFirstRun(stateDir, opts.Open)
		if err := tray.Run(ctx, opts); err != nil {
			c.logPages(fmt.Sprintf("no tray icon (%v): serving without one", err))
			<-ctx.Done()
		}
	}

	logger.Info("quitting: stopping the server and every search")
	stop()
	c.shutdown()
	logger.Info("stopped")
	return 0
}

func executable() string {
	exe, err := os.Executable()
	if err != nil {
		return "gemini-search-tray"
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		return resolved
	}
	return exe
}
