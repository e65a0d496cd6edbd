package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/adrg/xdg"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/clients"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/httpserver"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tray"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/watch"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/web"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/workspace"
)

// trayHost runs an App the way the tray app does: an HTTPServer that can be stopped, restarted and moved, the
// settings and status pages on the same port, and a watcher that applies edits of .env and repairs
// settings.json. It is the tray's Controller and the pages' Backend.
type trayHost struct {
	app      *App
	env      config.Env
	override func(*config.Config) // command-line flags, applied to every loaded config
	log      *slog.Logger

	server   *httpserver.Server
	mcp      atomic.Pointer[http.Handler] // the app's /mcp handler, rebuilt when the config changes
	pages    *web.Handler
	watcher  *watch.Watcher
	changes  notifier
	stdioCmd string // gemini-search-mcp next to the tray binary, for stdio-only clients

	applyMu  sync.Mutex // one configuration change at a time
	pagesMu  sync.Mutex
	fallback *httpserver.Server // the pages alone, on a free port, while the main server is down
	closed   bool               // shutdown began: no fallback is started any more; guarded by pagesMu
}

func newTrayHost(a *App, env config.Env, override func(*config.Config)) (*trayHost, error) {
	h := &trayHost{app: a, env: env, override: override, log: a.log}
	h.pages = web.New(h, web.NewToken(), a.log)
	handler := a.HTTPHandler()
	h.mcp.Store(&handler)
	mux := http.NewServeMux()
	mux.Handle("/settings", h.pages)
	mux.Handle("/status", h.pages)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { (*h.mcp.Load()).ServeHTTP(w, r) })
	h.server = httpserver.New(mux, a.Config().Addr(), a.log)
	h.changes.ch = make(chan struct{})

	if exe, err := os.Executable(); err == nil {
		name := "gemini-search-mcp"
		if runtime.GOOS == "windows" {
			name += ".exe"
		}
		h.stdioCmd = filepath.Join(filepath.Dir(exe), name)
	}
	w, err := watch.New(watchDebounce, a.log)
	if err != nil {
		return nil, err
	}
	h.watcher = w
	return h, nil
}

// watchDebounce is how long the watcher waits after the last event on a file.
const watchDebounce = 100 * time.Millisecond

// run brings the workspace's owned entries up to date, starts the server (a busy port leaves it failed, with the
// reason shown) and watches the config files until ctx is cancelled. It returns once everything is started.
func (h *trayHost) run(ctx context.Context) error {
	cfg := h.app.Config()
	h.regenerate(cfg, false)
	if err := h.watcher.Add(config.EnvPath(cfg.Dir), h.envChanged); err != nil {
		return err
	}
	if err := h.watcher.Add(workspace.SettingsPath(cfg.Dir), h.settingsChanged); err != nil {
		return err
	}
	go func() {
		if err := h.watcher.Run(ctx); err != nil {
			h.log.Error("stopped watching the config files", "err", err)
		}
	}()
	go h.forward(ctx, func() <-chan struct{} { return h.app.activity.Changed() })
	go h.forward(ctx, h.server.Changed)
	go h.retireFallback(ctx)
	_ = h.server.Start() // a failure is a state the menu shows
	return nil
}

// shutdown stops the servers for good, which cancels running searches, and waits until every CLI run has ended.
// A restart asked for meanwhile (a settings save that moves the server, the watcher) starts nothing.
func (h *trayHost) shutdown() {
	h.server.Close()
	h.pagesMu.Lock()
	h.closed = true
	if h.fallback != nil {
		h.fallback.Close()
	}
	h.pagesMu.Unlock()
	h.app.Shutdown()
}

// forward turns each close of a Changed channel into a notification of h's own. It takes the source's next
// channel before notifying, so a change that lands while the views redraw closes that channel and is passed on
// too, rather than slipping between the notification and the next wait.
func (h *trayHost) forward(ctx context.Context, changed func() <-chan struct{}) {
	ch := changed()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ch:
			ch = changed()
			h.changes.notify()
		}
	}
}

// envChanged applies an edited .env; the server restarts only when its address changed.
func (h *trayHost) envChanged(watch.Change) {
	h.log.Info("the .env file changed: applying it")
	h.applyMu.Lock()
	cfg, err := h.checked(config.Load(h.env))
	moved := false
	if err == nil {
		moved, err = h.apply(cfg)
	}
	h.applyMu.Unlock()
	if err != nil {
		h.fail("settings", "CONFIG_ERROR", fmt.Errorf("the settings were not applied: %w", err))
		return
	}
	if moved && h.server.Status().State != httpserver.Stopped { // a server stopped from the menu stays stopped
		_ = h.server.Restart()
	}
}

// settingsChanged repairs settings.json: a deleted file is written again, an edited one gets back the entries
// the server owns (the user's other edits stay), and an unparseable one is left alone and reported.
func (h *trayHost) settingsChanged(c watch.Change) {
	if !c.Exists {
		h.log.Info("settings.json was deleted: writing it again")
	}
	h.applyMu.Lock()
	defer h.applyMu.Unlock()
	h.regenerate(h.app.Config(), false)
}

// checked completes a loaded configuration as the command line does (--host, --port) and checks it as startup
// does, so what the app would refuse to start with is refused here too.
func (h *trayHost) checked(cfg config.Config, err error) (config.Config, error) {
	if err != nil {
		return config.Config{}, err
	}
	h.override(&cfg)
	if err := checkExposure(cfg); err != nil {
		return config.Config{}, err
	}
	return cfg, nil
}

// candidate is the configuration the app would run with once data is its .env file, or why it would refuse it:
// every value of data must be valid on its own (even one the environment overrides today), and data with the
// process environment and the flags must make a configuration the app starts with.
func (h *trayHost) candidate(data []byte) (config.Config, error) {
	if err := config.CheckDotenv(data); err != nil {
		return config.Config{}, err
	}
	return h.checked(config.LoadWithDotenv(h.env, data))
}

// apply puts cfg in force; the caller holds applyMu. It reports whether the server's address changed (the server
// is told the new one; restarting it is the caller's call). On error the configuration in force stays.
func (h *trayHost) apply(cfg config.Config) (addrChanged bool, err error) {
	old := h.app.Config()
	if err := h.app.Reconfigure(cfg); err != nil {
		return false, err
	}
	handler := h.app.HTTPHandler()
	h.mcp.Store(&handler)
	h.regenerate(cfg, true)
	h.changes.notify()
	h.log.Info("settings applied", "firecrawl", cfg.FirecrawlMode(), "addr", cfg.Addr())
	if cfg.Addr() == old.Addr() {
		return false, nil
	}
	h.server.SetAddr(cfg.Addr())
	return true, nil
}

// regenerate brings the owned entries of settings.json in line with cfg. With replaceInvalid an unparseable file
// is moved to settings.json.bak and replaced; otherwise it is left alone and reported.
func (h *trayHost) regenerate(cfg config.Config, replaceInvalid bool) {
	res, err := workspace.Regenerate(cfg.Dir, workspace.Options{Firecrawl: cfg.FirecrawlEnabled()}, replaceInvalid)
	if res.Wrote {
		h.watcher.Wrote(workspace.SettingsPath(cfg.Dir), res.Data)
		h.log.Info("updated the research workspace", "settings", workspace.SettingsPath(cfg.Dir), "firecrawl", cfg.FirecrawlMode())
	}
	if res.Backup != "" {
		h.log.Warn("settings.json could not be parsed: replaced it and kept the old one", "backup", res.Backup)
	}
	if err != nil {
		var invalid *workspace.InvalidSettingsError
		if errors.As(err, &invalid) {
			err = fmt.Errorf("%w (left as it is; fix it, or delete it to have it written again)", err)
		}
		h.fail("settings.json", "SETTINGS_ERROR", err)
	}
}

// fail shows a problem of the app itself among the last errors.
func (h *trayHost) fail(tool, code string, err error) {
	h.log.Error(err.Error(), "code", code)
	h.app.activity.Record(activity.Failure{Tool: tool, Code: code, Message: err.Error()})
}

// pagesBase is where the settings and status pages are served: on the MCP server's port while it runs, else on
// a fallback server of their own on a free loopback port, so settings (say, a busy port) can still be changed.
func (h *trayHost) pagesBase() (string, error) {
	h.pagesMu.Lock() // before looking at the server: retireFallback then sees any fallback started here
	defer h.pagesMu.Unlock()
	if st := h.server.Status(); st.State == httpserver.Running {
		return "http://" + st.Addr, nil
	}
	if h.closed {
		return "", httpserver.ErrClosed
	}
	if h.fallback == nil {
		mux := http.NewServeMux()
		mux.Handle("/settings", h.pages)
		mux.Handle("/status", h.pages)
		h.fallback = httpserver.New(mux, "127.0.0.1:0", h.app.log)
	}
	if err := h.fallback.Start(); err != nil {
		return "", err
	}
	return "http://" + h.fallback.Status().Addr, nil
}

// retireFallback stops the fallback pages server each time the main server runs again: it serves the pages
// itself then, and the cookie holds for every port of the host.
func (h *trayHost) retireFallback(ctx context.Context) {
	for {
		changed := h.server.Changed()
		if h.server.Status().State == httpserver.Running {
			h.pagesMu.Lock()
			if h.fallback != nil {
				h.fallback.Stop()
			}
			h.pagesMu.Unlock()
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
	}
}

// The tray's Controller.

func (h *trayHost) Status() tray.ServerStatus {
	st := h.server.Status()
	s := tray.ServerStatus{Running: st.State == httpserver.Running}
	if s.Running {
		s.URL = st.URL()
	}
	if st.State == httpserver.Failed && st.Err != nil {
		s.Down = st.Err.Error()
		var le *httpserver.ListenError
		if errors.As(st.Err, &le) {
			s.Down = le.Reason
		}
	}
	return s
}

func (h *trayHost) Activity() activity.Snapshot { return h.app.activity.Snapshot() }
func (h *trayHost) Changed() <-chan struct{}    { return h.changes.wait() }
func (h *trayHost) StartServer() error          { return h.server.Start() }
func (h *trayHost) StopServer()                 { h.server.Stop() }
func (h *trayHost) RestartServer() error        { return h.server.Restart() }
func (h *trayHost) ClearErrors()                { h.app.activity.ClearFailures() }

func (h *trayHost) SettingsURL() (string, error) { return h.pageURL("/settings") }
func (h *trayHost) StatusURL() (string, error)   { return h.pageURL("/status") }

func (h *trayHost) pageURL(page string) (string, error) {
	base, err := h.pagesBase()
	if err != nil {
		return "", fmt.Errorf("serve the %s page: %w", page, err)
	}
	return h.pages.URL(base, page), nil
}

func (h *trayHost) Clients() []clients.Client {
	cfg := h.app.Config()
	url := "http://" + cfg.Addr() + "/mcp"
	if st := h.server.Status(); st.State == httpserver.Running {
		url = st.URL()
	}
	s := clients.Server{URL: url, AuthToken: cfg.AuthToken.Reveal(), StdioCommand: h.stdioCmd}
	if cfg.Overridden[config.DirVar] {
		s.ConfigDir = cfg.Dir
	}
	return clients.All(clients.Platform{GOOS: runtime.GOOS, Home: h.env.Home, AppData: h.env.AppData, XDGConfigHome: xdg.ConfigHome}, s)
}

func (h *trayHost) Report(what string, err error) {
	h.app.activity.Record(activity.Failure{Tool: "tray", Code: "TRAY_ERROR", Message: what + ": " + err.Error()})
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

// The pages' Backend.

func (h *trayHost) Config() config.Config { return h.app.Config() }

func (h *trayHost) ServerStatus() string {
	return tray.Render(h.Status(), activity.Snapshot{}, time.Time{}).Status
}

func (h *trayHost) CheckDotenv(data []byte) error {
	_, err := h.candidate(data)
	return err
}

func (h *trayHost) SaveDotenv(data []byte) (moved string, err error) {
	h.applyMu.Lock()
	defer h.applyMu.Unlock()
	cfg, err := h.candidate(data)
	if err != nil {
		return "", err
	}
	path := config.EnvPath(cfg.Dir)
	if err := config.WriteDotenv(path, data); err != nil {
		return "", err
	}
	h.watcher.Wrote(path, data)
	addrChanged, err := h.apply(cfg)
	if err != nil {
		h.fail("settings", "CONFIG_ERROR", fmt.Errorf("the settings were saved but not applied: %w", err))
		return "", &web.NotAppliedError{Err: err}
	}
	if !addrChanged || h.server.Status().State == httpserver.Stopped { // a server stopped from the menu stays stopped
		return "", nil
	}
	// The page may be served by the very server that has to move: restart it once this request is answered.
	go func() { _ = h.server.Restart() }()
	return "http://" + cfg.Addr(), nil
}

// notifier is a broadcast: wait returns a channel that notify closes.
type notifier struct {
	mu sync.Mutex
	ch chan struct{}
}

func (n *notifier) wait() <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.ch
}

func (n *notifier) notify() {
	n.mu.Lock()
	defer n.mu.Unlock()
	close(n.ch)
	n.ch = make(chan struct{})
}
