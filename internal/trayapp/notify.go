package trayapp

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/adrg/xdg"

	"github.com/gemini-search-mcp/gemini-search-mcp/assets"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/app"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/desktop"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tray"
)

// notifier shows the tray's notifications, with the app's name and icon (written once into the cache dir, where
// the desktop reads it). One serves the process, as one tray icon does: it is made at the first notification, and
// listens from then on for the user's clicks on them, which open their pages.
var notifier = sync.OnceValue(func() *desktop.Notifier {
	icon, _ := assets.Icon(assets.Idle, "png") // embedded: never fails
	return desktop.NewNotifier(desktop.NotifierOptions{
		AppName:      "Gemini Search MCP",
		DesktopEntry: "gemini-search-tray", // the Linux packages' packaging/linux/gemini-search-tray.desktop
		Icon:         icon,
		IconPath:     filepath.Join(xdg.CacheHome, "gemini-search-mcp", "notification-icon.png"),
		Open:         openHidingQuery(desktop.Open),
		Failed: func(err error) {
			slog.Warn("the page of a notification could not be opened", "err", err) // the tray's logger (Main)
		},
	})
})

// Notify shows n on the desktop: a click on it opens n.Link (a page of the tray: PageURL, ReportURL). It is how the
// tray tells the user something where they look, such as the outcome of a menu click. It returns once the desktop
// has taken n, or with why it could not (logged too), within seconds even when the notification server hangs, so
// that the menu can say it otherwise.
func (c *controller) Notify(n desktop.Notification) error {
	err := notifier().Notify(n)
	if err != nil {
		c.log.Warn("the desktop notification could not be shown", "err", err)
	}
	return err
}

// finished notifies the desktop of a search that ran longer than GEMINI_NOTIFY_AFTER, unless GEMINI_NOTIFY is off:
// a click on it opens the report, or the last errors for a failure, which stays until the user dismisses it. The
// call it reports has ended, and does not wait for the notification.
func (c *controller) finished(f app.Finished) {
	cfg := c.app.Config()
	if !cfg.Notify || f.Took < cfg.NotifyAfter {
		return
	}
	go func() {
		n := notification(f)
		n.Link = c.pageOf(f)
		_ = c.Notify(n) // logged
	}()
}

// pageOf is the page that tells more of how f ended: the report, kept in the library before f is told, or the
// last errors for a failure; "" when there is none, or no page is served.
func (c *controller) pageOf(f app.Finished) string {
	if f.Err != nil {
		u, err := c.http.PageURL("/status")
		if err != nil {
			return ""
		}
		return u + "#errors"
	}
	id, err := c.app.Library().Find(f.Report.Identity(f.Tool))
	if err != nil {
		return ""
	}
	u, err := c.http.ReportURL(id)
	if err != nil {
		return ""
	}
	return u
}

// notification says how f ended, "Research finished" with `search "rust 2024" · 1m12s`, and names the page its
// link opens. A failure is sticky.
func notification(f app.Finished) desktop.Notification {
	body := fmt.Sprintf("%s %q · %s", f.Tool, tray.Shorten(f.Topic, 80), f.Took.Round(time.Second))
	failed := desktop.Notification{Title: "Research failed", LinkLabel: "Show the error", Sticky: true}
	var failure *research.Failure
	switch {
	case errors.As(f.Err, &failure):
		failed.Body = body + "\n" + string(failure.Code) + ": " + failure.Message
		return failed
	case f.Err != nil:
		failed.Body = body + "\n" + f.Err.Error()
		return failed
	case f.Report.Partial:
		return desktop.Notification{Title: "Research finished, cut short", Body: body, LinkLabel: "Open report"}
	}
	return desktop.Notification{Title: "Research finished", Body: body, LinkLabel: "Open report"}
}
