package trayapp

import (
	"context"
	"fmt"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/watch"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/workspace"
)

// watchConfig watches the .env file and settings.json in dir until ctx is cancelled: an edited .env is applied,
// an edited or deleted settings.json repaired.
func (c *controller) watchConfig(ctx context.Context, dir string) error {
	if err := c.watcher.Add(config.EnvPath(dir), c.envChanged); err != nil {
		return err
	}
	if err := c.watcher.Add(workspace.SettingsPath(dir), c.settingsChanged); err != nil {
		return err
	}
	go func() {
		if err := c.watcher.Run(ctx); err != nil {
			c.log.Error("stopped watching the config files", "err", err)
		}
	}()
	return nil
}

// envChanged loads the edited .env as the tray loads it at start, and commits it: the server moves when its
// address changed (Committed). A configuration the app would refuse leaves the one in force, and says why.
func (c *controller) envChanged(watch.Change) {
	c.log.Info("the .env file changed: applying it")
	c.saveMu.Lock()
	defer c.saveMu.Unlock()
	cfg, err := c.source.Load()
	if err == nil {
		err = c.app.Commit(cfg)
	}
	if err != nil {
		c.app.Problem("settings", backend.CodeConfig, fmt.Errorf("the settings were not applied: %w", err))
	}
}

// settingsChanged repairs settings.json: a deleted file is written again, an edited one gets back the entries
// the server owns (the user's other edits stay), and an unparseable one is left alone and reported.
func (c *controller) settingsChanged(ch watch.Change) {
	if !ch.Exists {
		c.log.Info("settings.json was deleted: writing it again")
	}
	c.app.RepairWorkspace()
}
