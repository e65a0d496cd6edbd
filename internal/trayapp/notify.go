package trayapp

import (
	"errors"
	"fmt"
	"time"

	"github.com/gen2brain/beeep"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/app"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tray"
)

// beeep sends desktop notifications the platform's way: org.freedesktop.Notifications over the session bus on
// Linux (notify-send when that fails), the notification center on macOS, toasts on Windows.
func init() { beeep.AppName = "Gemini Search MCP" }

// finished notifies the desktop of a search that ran longer than GEMINI_NOTIFY_AFTER, unless GEMINI_NOTIFY is off.
// The notification is sent on a goroutine of its own: the call it reports has ended, and must not wait for it.
func (c *controller) finished(f app.Finished) {
	cfg := c.app.Config()
	if !cfg.Notify || f.Took < cfg.NotifyAfter {
		return
	}
	title, body := notification(f)
	go func() {
		if err := beeep.Notify(title, body, ""); err != nil {
			c.log.Warn("the desktop notification could not be shown", "err", err)
		}
	}()
}

// notification is the title and body that tell how f ended: "Research finished", `search "rust 2024" · 1m12s`.
func notification(f app.Finished) (title, body string) {
	body = fmt.Sprintf("%s %q · %s", f.Tool, tray.Shorten(f.Topic, 80), f.Took.Round(time.Second))
	var failure *research.Failure
	switch {
	case errors.As(f.Err, &failure):
		return "Research failed", body + "\n" + string(failure.Code) + ": " + failure.Message
	case f.Err != nil:
		return "Research failed", body + "\n" + f.Err.Error()
	case f.Report.Partial:
		return "Research finished, cut short", body
	}
	return "Research finished", body
}
