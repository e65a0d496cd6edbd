package trayapp

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/web"
)

// SaveDotenv writes data to the .env file and commits the configuration it makes, once the app has checked it as
// it checks its start-up configuration: data is parsed and validated once, here.
func (c *controller) SaveDotenv(data []byte) (moved string, err error) {
	c.saveMu.Lock()
	defer c.saveMu.Unlock()
	path := config.EnvPath(c.app.Config().Dir)
	cfg, err := c.source.LoadDotenv(data)
	if old, _, readErr := config.ReadDotenv(path); err != nil && (readErr != nil || !config.HeldAsWritten(old, data, err)) {
		return "", &web.RefusedError{Err: err}
	}
	if err := config.WriteDotenv(path, data); err != nil {
		return "", err
	}
	c.watcher.Wrote(path, data)
	if err != nil { // only values the file held already, as written by hand: kept until the user changes them
		return "", &web.NotAppliedError{Err: fmt.Errorf("the server goes on with the settings it had until the "+
			"value marked below is corrected (kept as the .env file held it): %w", err)}
	}
	if err := c.app.Commit(cfg); err != nil {
		c.app.Problem("settings", backend.CodeConfig, fmt.Errorf("the settings were saved but not applied: %w", err))
		return "", &web.NotAppliedError{Err: err}
	}
	return c.http.Moved(), nil
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
	u, err := c.http.PageURL("/welcome")
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
