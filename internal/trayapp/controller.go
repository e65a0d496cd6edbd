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
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/appstate"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/broadcast"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/clients"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/httpserver"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/watch"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/web"
)

// controller runs an App the way the tray does: on a server that can be stopped, restarted and moved, with the
// settings and status pages on the same port and a watcher on the config files. It is what the menu controls
// (tray.App, tray.Actions), what the pages show and save (web.Backend, web.Settings), and the HTTP side's Committer.
type controller struct {
	app      *app.App
	source   app.Source
	log      *slog.Logger
	server   *httpserver.Server
	pages    *web.Handler
	watcher  *watch.Watcher
	changes  broadcast.Signal // the menu's: the server, the activity, the history or the configuration changed
	stdioCmd string           // gemini-search-mcp next to the tray binary, for stdio-only clients

	saveMu sync.Mutex // one .env change at a time: a save on the settings page, or an edit the watcher saw
	moving string     // http://host:port when the last commit moves the server there (Committed); guarded by saveMu

	pagesMu  sync.Mutex
	fallback *httpserver.Server // the pages alone, on a free port, while the main server is down
	closed   bool               // shutdown began: no fallback is started any more; guarded by pagesMu
}

// watchDebounce is how long the watcher waits after the last event on a file.
const watchDebounce = 100 * time.Millisecond

// start starts the App the way both binaries do (app.Start), logging on logOut, and builds the tray's side of
// it; nothing serves yet. A failure has been logged.
func start(src app.Source, logOut io.Writer, version string) (*controller, *slog.Logger, error) {
	c := &controller{source: src}
	a, logger, err := app.Start(src, logOut, app.Options{Version: version, WroteFile: c.wrote, Finished: c.finished})
	if err != nil {
		return nil, logger, err
	}
	if c.watcher, err = watch.New(watchDebounce, logger); err != nil {
		logger.Error("cannot start", "err", err)
		a.Shutdown()
		return nil, logger, err
	}
	c.app, c.log = a, logger
	c.pages = web.New(c, web.NewToken(), logger)
	c.server = httpserver.New(a.Handler(c.pages), a.Config().Addr(), logger)
	a.Subscribe(c)
	if exe, err := os.Executable(); err == nil {
		name := "gemini-search-mcp"
		if runtime.GOOS == "windows" {
			name += ".exe"
		}
		c.stdioCmd = filepath.Join(filepath.Dir(exe), name)
	}
	return c, logger, nil
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
	dir := c.app.Config().Dir
	if err := c.watchConfig(ctx, dir); err != nil {
		return err
	}
	c.changes.Follow(ctx, c.app.Activity().Changed)
	c.changes.Follow(ctx, c.app.History().Changed)
	c.changes.Follow(ctx, c.server.Changed)
	c.changes.Follow(ctx, c.app.WarmChanged)
	go c.keepWarmWhileServing(ctx)
	go c.app.History().List(1) // reads the kept reports now rather than as the menu first draws
	go c.retireFallback(ctx)
	_ = c.server.Start() // a failure is a state the menu shows
	return nil
}

// keepWarmWhileServing keeps CLI processes warm while the server runs, and only then: Stop server ends them, and
// so does a server that cannot listen.
func (c *controller) keepWarmWhileServing(ctx context.Context) {
	serving := false
	for {
		changed := c.server.Changed()
		if now := c.server.Status().State == httpserver.Running; now != serving {
			serving = now
			c.app.KeepWarm(serving)
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
	}
}

// shutdown stops the servers for good, which cancels running searches, and waits until every CLI run has ended.
// A restart asked for meanwhile (a settings save that moves the server, the watcher) starts nothing.
func (c *controller) shutdown() {
	c.app.EndCalls("the tray app was quit", "Call again once the tray app runs again.")
	c.server.Close()
	c.pagesMu.Lock()
	c.closed = true
	if c.fallback != nil {
		c.fallback.Close()
	}
	c.pagesMu.Unlock()
	c.app.Shutdown()
}

// Committed moves the server when the address changed, and has the views redraw. Only SaveDotenv and envChanged
// commit, both holding saveMu.
func (c *controller) Committed(from, to config.Config) {
	defer c.changes.Notify()
	if to.Addr() == from.Addr() {
		return
	}
	c.server.SetAddr(to.Addr())
	if c.server.Status().State == httpserver.Stopped { // a server stopped from the menu stays stopped
		return
	}
	base := "http://" + to.Addr()
	c.moving = base
	// On a goroutine of its own: Restart waits for the requests in progress, and the save on the settings page
	// that led here may be one of them.
	go func() {
		c.app.EndCalls("the server moved to "+base+" (its settings changed)",
			"Call again at "+base+"/mcp once your client points there.")
		_ = c.server.Restart()
	}()
}

// The tray's App and Actions.

// State is the App's, with the server the tray runs.
func (c *controller) State() appstate.State {
	st := c.app.State()
	st.Server = c.server.Status()
	st.Server.Backend = st.Backend.String()
	return st
}
func (c *controller) Changed() <-chan struct{} { return c.changes.Changed() }
func (c *controller) StartServer() error       { return c.server.Start() }

// StopServer stops the server; the calls in progress are answered CANCELLED first, saying why.
func (c *controller) StopServer() {
	c.app.EndCalls("the server was stopped from the tray menu", "Call again once it is started again (Start server in the tray menu).")
	c.server.Stop()
}

// RestartServer looks the CLI and the credentials up again, then restarts the server; the calls in progress are
// answered CANCELLED first, saying why.
func (c *controller) RestartServer() error {
	if err := c.CheckSetup(); err != nil {
		c.Report("check the setup", err)
	}
	c.app.EndCalls("the server was restarted from the tray menu", "Call again: the server is back in a moment.")
	return c.server.Restart()
}

// CheckSetup looks the CLI and the credentials up again, by committing the configuration in force again; the
// menu redraws as after any commit.
func (c *controller) CheckSetup() error {
	c.saveMu.Lock()
	defer c.saveMu.Unlock()
	return c.app.Recheck()
}
func (c *controller) ClearErrors() { c.app.Activity().ClearFailures() }

// ReportURL is the page of the report id of the history, with this launch's token.
func (c *controller) ReportURL(id string) (string, error) {
	base, err := c.pagesBase()
	if err != nil {
		return "", fmt.Errorf("serve the report page: %w", err)
	}
	return c.pages.ReportURL(base, id), nil
}

func (c *controller) Clients() []clients.Client {
	cfg := c.app.Config()
	url := "http://" + cfg.Addr() + "/mcp"
	if st := c.server.Status(); st.State == httpserver.Running {
		url = st.URL()
	}
	return app.Clients(cfg, c.source.Env, url, c.stdioCmd)
}

func (c *controller) Report(what string, err error) {
	c.app.Activity().Record(activity.Failure{Tool: "tray", Code: "TRAY_ERROR", Message: what + ": " + err.Error()})
}

// logPages logs why there is no icon and where the pages are, for people without a tray.
func (c *controller) logPages(why string) {
	settings, err := c.PageURL("/settings")
	status, _ := c.PageURL("/status")
	setup, _ := c.PageURL("/setup")
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
