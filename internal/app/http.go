package app

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/clients"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/httpserver"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/web"
)

// HTTP is the App's server over HTTP: /mcp, /api, /healthz and the pages on one address. It can be stopped,
// restarted and moved while the App runs (the tray's menu); a configuration that changes the address moves it, unless
// it was stopped. With HTTPOptions.Fallback, the pages are served alone on a free loopback port while it is down, so
// that settings (a busy port, say) can still be changed. CLI processes are kept warm while it runs, and only then.
type HTTP struct {
	a        *App
	server   *httpserver.Server
	pages    *web.Handler
	fallback bool // serve the pages on a port of their own while the server is down

	mu    sync.Mutex
	moved string // where the last configuration change moved the server (http://host:port); "" when it stayed

	pagesMu     sync.Mutex
	pagesAlone  *httpserver.Server // the fallback, once started
	pagesClosed bool               // Close began: no fallback is started any more
}

// HTTPOptions configure the App's server over HTTP.
type HTTPOptions struct {
	Forms    web.Forms // the pages that change something; none: /status, /history, /report and /setup alone, read-only
	Fallback bool      // serve the pages on a free loopback port while the server is down (the tray's)
}

// NewHTTP builds the App's server over HTTP on the configured address, stopped; only one is built per App. Its pages
// carry a token of this launch.
func (a *App) NewHTTP(o HTTPOptions) *HTTP {
	h := &HTTP{a: a, fallback: o.Fallback}
	h.pages = web.New(a, o.Forms, web.NewToken(), a.log)
	h.server = httpserver.New(surface(a.mcpHTTP, h.pages), a.Config().Addr(), a.log)
	if !a.http.CompareAndSwap(nil, h) {
		panic("app: NewHTTP called twice: an App serves on one HTTP server")
	}
	a.changes.Follow(a.lifetime, h.server.Changed)
	go h.keepWarmWhileRunning(a.lifetime)
	if h.fallback {
		go h.retireFallback(a.lifetime)
	}
	return h
}

// surface is the HTTP surface: mcp (/mcp, /api and /healthz, behind the MCP checks: Host, Origin, body size and
// the MCP_AUTH_TOKEN of the configuration in force), and the pages, which check a token of their own.
func surface(mcp http.Handler, pages *web.Handler) http.Handler {
	mux := http.NewServeMux()
	pages.Mount(mux)
	mux.Handle("/", mcp)
	return mux
}

// Status is the server's state now.
func (h *HTTP) Status() httpserver.Status { return h.server.Status() }

// Start starts the server when it is not running; a failure to listen is its state too.
func (h *HTTP) Start() error { return h.server.Start() }

// Stop answers the calls in progress CANCELLED, saying why and what to do (fix), then stops the server.
func (h *HTTP) Stop(why, fix string) {
	h.a.endCalls(why, fix)
	h.server.Stop()
}

// Restart answers the calls in progress CANCELLED, saying why and what to do (fix), then restarts the server.
func (h *HTTP) Restart(why, fix string) error {
	h.a.endCalls(why, fix)
	return h.server.Restart()
}

// Close answers the calls in progress CANCELLED, saying why and what to do (fix), and stops the server and the
// fallback for good: a restart asked for meanwhile (a settings save that moves the server) starts nothing.
func (h *HTTP) Close(why, fix string) {
	h.a.stopping(why, fix) // for good: the server's end
	h.a.endCalls(why, fix)
	h.server.Close()
	h.pagesMu.Lock()
	defer h.pagesMu.Unlock()
	h.pagesClosed = true
	if h.pagesAlone != nil {
		h.pagesAlone.Close()
	}
}

// committed moves the server to to's address when it changed, unless it was stopped (it stays stopped, and starts
// there). The calls in progress are answered first, saying where the server went. The App calls it inside Commit.
func (h *HTTP) committed(from, to config.Config) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.moved = ""
	if to.Addr() == from.Addr() {
		return
	}
	h.server.SetAddr(to.Addr())
	if h.server.Status().State == httpserver.Stopped {
		return
	}
	base := "http://" + to.Addr()
	h.moved = base
	// On a goroutine of its own: Restart waits for the requests in progress, and the settings save that led here
	// may be one of them.
	go func() {
		_ = h.Restart("the server moved to "+base+" (its settings changed)",
			"Call again at "+base+"/mcp once your client points there.")
	}()
}

// Moved is where the last configuration change moved the server (http://host:port), or "" when it stayed.
func (h *HTTP) Moved() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.moved
}

// PageURL is page ("/settings", "/status", "/history", "/setup" or "/welcome") with this launch's token.
func (h *HTTP) PageURL(page string) (string, error) {
	base, err := h.pagesBase()
	if err != nil {
		return "", fmt.Errorf("serve the %s page: %w", page, err)
	}
	return h.pages.URL(base, page), nil
}

// ReportURL is the page of the report id of the library, with this launch's token.
func (h *HTTP) ReportURL(id string) (string, error) {
	base, err := h.pagesBase()
	if err != nil {
		return "", fmt.Errorf("serve the report page: %w", err)
	}
	return h.pages.ReportURL(base, id), nil
}

// pagesBase is where the pages are served: on the server's port while it runs, else (with Fallback) on a server of
// their own on a free loopback port; the cookie holds for every port of the host.
func (h *HTTP) pagesBase() (string, error) {
	h.pagesMu.Lock() // before looking at the server: retireFallback then sees any fallback started here
	defer h.pagesMu.Unlock()
	st := h.server.Status()
	switch {
	case st.State == httpserver.Running:
		return "http://" + st.Addr, nil
	case h.pagesClosed:
		return "", httpserver.ErrClosed
	case !h.fallback:
		return "", fmt.Errorf("the server is not running")
	}
	if h.pagesAlone == nil {
		mux := http.NewServeMux()
		h.pages.Mount(mux)
		h.pagesAlone = httpserver.New(mux, "127.0.0.1:0", h.a.log)
	}
	if err := h.pagesAlone.Start(); err != nil {
		return "", err
	}
	return "http://" + h.pagesAlone.Status().Addr, nil
}

// retireFallback stops the fallback pages server each time the main server runs again: it serves the pages itself
// then.
func (h *HTTP) retireFallback(ctx context.Context) {
	for {
		changed := h.server.Changed()
		if h.server.Status().State == httpserver.Running {
			h.pagesMu.Lock()
			if h.pagesAlone != nil {
				h.pagesAlone.Stop()
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

// keepWarmWhileRunning keeps CLI processes warm while the server runs, and only then: a server stopped from the
// menu ends them, and so does one that cannot listen.
func (h *HTTP) keepWarmWhileRunning(ctx context.Context) {
	serving := false
	for {
		changed := h.server.Changed()
		if now := h.server.Status().State == httpserver.Running; now != serving {
			serving = now
			h.a.keepWarm(serving)
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
	}
}

// serveOn serves on ln, a listener the headless binary opened, until ctx is cancelled (the calls in progress are
// then answered CANCELLED, saying the server is shutting down) or serving fails.
func (h *HTTP) serveOn(ctx context.Context, ln net.Listener) error {
	changed := h.server.Changed()
	if err := h.server.StartOn(ln); err != nil {
		return err
	}
	for {
		if st := h.server.Status(); st.State == httpserver.Failed {
			return st.Err
		}
		select {
		case <-ctx.Done():
			h.Close("the server is shutting down", "Call again once the server runs again.")
			return nil
		case <-changed:
			changed = h.server.Changed()
		}
	}
}

// Report is the report id of the library; record.ErrNotFound for one it does not keep.
func (a *App) Report(id string) (record.Report, error) { return a.library.Get(id) }

// Clients are the MCP clients' entries for this server: its address while it runs over HTTP, else the configured
// one, and Options.StdioCommand for the clients that start it themselves.
func (a *App) Clients() []clients.Client {
	cfg := a.Config()
	url := "http://" + cfg.Addr() + "/mcp"
	if h := a.http.Load(); h != nil {
		if st := h.Status(); st.State == httpserver.Running {
			url = st.URL()
		}
	}
	return Clients(cfg, a.env, url, a.stdioCmd)
}
