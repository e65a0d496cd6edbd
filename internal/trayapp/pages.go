package trayapp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/checklist"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/history"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/httpserver"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/web"
)

// The pages' Backend and Settings.

func (c *controller) Config() config.Config       { return c.app.Config() }
func (c *controller) Activity() activity.Snapshot { return c.app.Activity().Snapshot() }

// Status is the server's, with the backend that serves its research.
func (c *controller) Status() httpserver.Status { return c.State().Server }
func (c *controller) Version() string           { return c.app.Version() }

func (c *controller) History() *history.Store { return c.app.History() }

func (c *controller) TrySearch(ctx context.Context, query string) (history.Report, error) {
	return c.app.TrySearch(ctx, query)
}

func (c *controller) Checklist(ctx context.Context, offline bool) []checklist.Check {
	return c.app.Checklist(ctx, offline)
}

// SaveDotenv writes data to the .env file and commits the configuration it makes, once the app has checked it as
// it checks its start-up configuration: data is parsed and validated once, here.
func (c *controller) SaveDotenv(data []byte) (moved string, err error) {
	c.saveMu.Lock()
	defer c.saveMu.Unlock()
	c.moving = ""
	cfg, err := c.source.LoadDotenv(data)
	if err != nil {
		return "", &web.RefusedError{Err: err}
	}
	path := config.EnvPath(cfg.Dir)
	if err := config.WriteDotenv(path, data); err != nil {
		return "", err
	}
	c.watcher.Wrote(path, data)
	if err := c.app.Commit(cfg); err != nil {
		c.app.Problem("settings", "CONFIG_ERROR", fmt.Errorf("the settings were saved but not applied: %w", err))
		return "", &web.NotAppliedError{Err: err}
	}
	return c.moving, nil
}

// PageURL is page ("/settings", "/status", "/setup" or "/welcome") with this launch's token.
func (c *controller) PageURL(page string) (string, error) {
	base, err := c.pagesBase()
	if err != nil {
		return "", fmt.Errorf("serve the %s page: %w", page, err)
	}
	return c.pages.URL(base, page), nil
}

// pagesBase is where the settings and status pages are served: on the MCP server's port while it runs, else on
// a fallback server of their own on a free loopback port, so settings (say, a busy port) can still be changed.
func (c *controller) pagesBase() (string, error) {
	c.pagesMu.Lock() // before looking at the server: retireFallback then sees any fallback started here
	defer c.pagesMu.Unlock()
	if st := c.server.Status(); st.State == httpserver.Running {
		return "http://" + st.Addr, nil
	}
	if c.closed {
		return "", httpserver.ErrClosed
	}
	if c.fallback == nil {
		mux := http.NewServeMux()
		c.pages.Mount(mux)
		c.fallback = httpserver.New(mux, "127.0.0.1:0", c.log)
	}
	if err := c.fallback.Start(); err != nil {
		return "", err
	}
	return "http://" + c.fallback.Status().Addr, nil
}

// retireFallback stops the fallback pages server each time the main server runs again: it serves the pages
// itself then, and the cookie holds for every port of the host.
func (c *controller) retireFallback(ctx context.Context) {
	for {
		changed := c.server.Changed()
		if c.server.Status().State == httpserver.Running {
			c.pagesMu.Lock()
			if c.fallback != nil {
				c.fallback.Stop()
			}
			c.pagesMu.Unlock()
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
	}
}

// firstRunMark is the file, in the state dir, whose existence says the first-run page was opened.
const firstRunMark = "first-run-page-opened"

// openFirstRun opens the first-run page in the browser at the tray's first start, and only then: a mark in
// stateDir remembers it. When the page cannot be opened, the next start tries again.
func (c *controller) openFirstRun(stateDir string, open func(target string) error) {
	mark := filepath.Join(stateDir, firstRunMark)
	if _, err := os.Stat(mark); !errors.Is(err, fs.ErrNotExist) {
		return
	}
	u, err := c.PageURL("/welcome")
	if err == nil {
		err = open(u)
	}
	if err != nil {
		c.log.Warn("could not open the first-run page (Getting started… in the menu opens it)", "err", err)
		return
	}
	c.log.Info("opened the first-run page, once")
	if err := os.MkdirAll(stateDir, 0o700); err == nil {
		err = os.WriteFile(mark, nil, 0o600)
	}
	if err != nil {
		c.log.Warn("the first-run page will open again at the next start", "err", err)
	}
}
