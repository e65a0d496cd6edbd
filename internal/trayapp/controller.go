package trayapp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/app"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/watch"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/web"
)

// controller runs an App the way the tray does: on its server over HTTP (app.HTTP), with the settings and
// first-run pages, and a watcher on the config files. It holds the tray's own actions (tray.Actions) and the
// settings page's (web.Settings); the menu and the pages read the App's state.
type controller struct {
	app     *app.App
	http    *app.HTTP
	source  app.Source
	log     *slog.Logger
	watcher *watch.Watcher
	saveMu  sync.Mutex // one configuration change at a time: a save on the settings page, an edit the watcher saw, a recheck
}

// watchDebounce is how long the watcher waits after the last event on a file.
const watchDebounce = 100 * time.Millisecond

// start starts the App the way both binaries do (app.Start), logging on logOut, and builds the tray's side of
// it; nothing serves yet. A failure has been logged.
func start(src app.Source, logOut io.Writer, version string) (*controller, *slog.Logger, error) {
	c := &controller{source: src}
	a, logger, err := app.Start(src, logOut, app.Options{Version: version, WroteFile: c.wrote, Finished: c.finished,
		StdioCommand: stdioCommand()})
	if err != nil {
		return nil, logger, err
	}
	if c.watcher, err = watch.New(watchDebounce, logger); err != nil {
		logger.Error("cannot start", "err", err)
		a.Shutdown()
		return nil, logger, err
	}
	c.app, c.log = a, logger
	c.http = a.NewHTTP(app.HTTPOptions{Forms: web.Forms{Settings: c, Welcome: a, Research: a}, Fallback: true})
	return c, logger, nil
}

// stdioCommand is gemini-search-mcp next to the tray binary, for the clients that start the server themselves; ""
// when this program cannot be found.
func stdioCommand() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	name := "gemini-search-mcp"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	return filepath.Join(filepath.Dir(exe), name)
}

// wrote tells the watcher of a file the App wrote, so that it is not taken for an edit. The App's first writes
// come before the watcher exists, and before it watches anything.
func (c *controller) wrote(path string, data []byte) {
	if c.watcher != nil {
		c.watcher.Wrote(path, data)
	}
}

// run watches the config files until ctx is cancelled and starts the server (a busy port leaves it failed, with
// the reason shown). It returns once everything is started.
func (c *controller) run(ctx context.Context) error {
	if err := c.watchConfig(ctx, c.app.Config().Dir); err != nil {
		return err
	}
	_ = c.http.Start() // a failure is a state the menu shows
	return nil
}

// shutdown stops the servers for good, which cancels running searches, and waits until every CLI run has ended.
// A restart asked for meanwhile (a settings save that moves the server, the watcher) starts nothing.
func (c *controller) shutdown() {
	c.http.Close("the tray app was quit", "Call again once the tray app runs again.")
	c.app.Shutdown()
}

// The tray's Actions.

func (c *controller) StartServer() error { return c.http.Start() }

// StopServer stops the server; the calls in progress are answered CANCELLED first, saying why.
func (c *controller) StopServer() {
	c.http.Stop("the server was stopped from the tray menu", "Call again once it is started again (Start server in the tray menu).")
}

// RestartServer looks the CLI and the credentials up again, then restarts the server; the calls in progress are
// answered CANCELLED first, saying why.
func (c *controller) RestartServer() error {
	if err := c.CheckSetup(); err != nil {
		c.Report("check the setup", err)
	}
	return c.http.Restart("the server was restarted from the tray menu", "Call again: the server is back in a moment.")
}

// CheckSetup looks the CLI and the credentials up again, by committing the configuration in force again; the
// menu redraws as after any commit.
func (c *controller) CheckSetup() error {
	c.saveMu.Lock()
	defer c.saveMu.Unlock()
	return c.app.Recheck()
}

func (c *controller) ClearErrors() { c.app.Activity().ClearFailures() }

func (c *controller) Report(what string, err error) {
	c.app.Activity().Record(activity.Failure{Tool: "tray", Code: backend.CodeTray, Message: what + ": " + err.Error()})
}

// logPages logs why there is no icon and where the pages are, for people without a tray.
func (c *controller) logPages(why string) {
	settings, err := c.http.PageURL("/settings")
	status, _ := c.http.PageURL("/status")
	setup, _ := c.http.PageURL("/setup")
	if err != nil {
		c.log.Warn(why, "err", err)
		return
	}
	c.log.Info(why, "settings", settings, "status", status, "setup", setup)
}

// openHidingQuery wraps open (desktop.Open) so that its error never holds the query of the URL it could not open:
// the links to the settings and status pages carry this launch's token there, and the error reaches the last
// errors and the log.
func openHidingQuery(open func(target string) error) func(target string) error {
	return func(target string) error {
		err := open(target)
		if err == nil {
			return nil
		}
		u, perr := url.Parse(target)
		if perr != nil || (u.RawQuery == "" && u.Fragment == "") {
			return err
		}
		values := u.Query()
		u.RawQuery, u.Fragment = "", ""
		msg := strings.ReplaceAll(err.Error(), target, u.String())
		for _, vs := range values {
			for _, v := range vs {
				if v != "" && strings.Contains(msg, v) { // the target was quoted or escaped some other way
					return fmt.Errorf("could not open %s", u)
				}
			}
		}
		return errors.New(msg)
	}
}
