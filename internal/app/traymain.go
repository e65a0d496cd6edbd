package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/adrg/xdg"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/desktop"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/logging"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tray"
)

const trayUsage = `gemini-search-tray: the Gemini Search MCP server with a system tray icon.

It serves MCP at http://127.0.0.1:3000/mcp (MCP_SERVER_HOST, MCP_SERVER_PORT), shows what is being researched, and
opens a settings page in the browser. Without a desktop session it keeps serving and logs the pages' addresses.

Usage:
  gemini-search-tray [--headless] [--host H] [--port P]

Flags:
`

// Log file rotation: 5 MiB per file, three old files kept.
const (
	logMaxBytes = 5 << 20
	logKeep     = 3
)

// TrayMain runs the tray binary and returns its exit code. It must run on the main goroutine: the tray icon's
// event loop needs it on macOS and Windows.
func TrayMain(args []string, version string, stdout, stderr io.Writer) int {
	flags := newServerFlags("gemini-search-tray", trayUsage, stderr)
	headless := flags.fs.Bool("headless", false, "serve without a tray icon")
	if code, done := flags.parse(args, version, stdout); done {
		return code
	}
	if flags.fs.NArg() > 0 {
		fmt.Fprintf(stderr, "gemini-search-tray: unexpected arguments %q\n\n", flags.fs.Args())
		flags.fs.Usage()
		return 2
	}
	override := flags.override

	env := config.OSEnv()
	cfg, err := config.Load(env)
	if err != nil {
		fmt.Fprintf(stderr, "gemini-search-tray: %v\n", err)
		return 1
	}
	override(&cfg)

	logOut := stderr
	logPath := filepath.Join(xdg.StateHome, "gemini-search-mcp", "tray.log")
	if f, err := logging.OpenRotating(logPath, logMaxBytes, logKeep); err != nil {
		fmt.Fprintf(stderr, "gemini-search-tray: no log file: %v\n", err)
		logPath = ""
	} else {
		defer f.Close()
		logOut = io.MultiWriter(stderr, f)
	}
	logger := logging.New(logOut, cfg.Debug)
	slog.SetDefault(logger) // the tray library logs through the standard log package

	if err := checkExposure(cfg); err != nil {
		logger.Error(err.Error())
		return 1
	}
	a, err := New(cfg, version, logger)
	if err != nil {
		logger.Error("cannot start", "err", err)
		return 1
	}
	h, err := newTrayHost(a, env, override)
	if err != nil {
		logger.Error("cannot start", "err", err)
		return 1
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := h.run(ctx); err != nil {
		logger.Error("cannot start", "err", err)
		return 1
	}
	logger.Info("gemini-search-tray started", "version", version, "config_dir", cfg.Dir, "log_file", logPath)

	if *headless {
		h.logPages("serving without a tray icon (--headless)")
		<-ctx.Done()
	} else {
		auto, err := desktop.NewAutostart(executable())
		if err != nil {
			logger.Warn("start at login is not available", "err", err)
		}
		opts := tray.Options{
			Controller: h,
			Autostart:  auto,
			ConfigDir:  cfg.Dir,
			LogFile:    logPath,
			Open:       openHidingQuery(desktop.Open),
			Copy:       desktop.CopyText,
			Quit:       stop,
			Logger:     logger,
		}
		if !tray.HostPresent() {
			h.logPages("no tray host is running yet: the icon appears when one starts")
		}
		if err := tray.Run(ctx, opts); err != nil {
			h.logPages(fmt.Sprintf("no tray icon (%v): serving without one", err))
			<-ctx.Done()
		}
	}

	logger.Info("quitting: stopping the server and every search")
	stop()
	h.shutdown()
	logger.Info("stopped")
	return 0
}

// logPages logs why there is no icon and where the pages are, for people without a tray.
func (h *trayHost) logPages(why string) {
	settings, err := h.SettingsURL()
	status, _ := h.StatusURL()
	if err != nil {
		h.log.Warn(why, "err", err)
		return
	}
	h.log.Info(why, "settings", settings, "status", status)
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
