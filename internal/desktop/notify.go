package desktop

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/atomicfile"
)

// A Notification is a message shown on the desktop, with the app's name and icon. When it has a Link, clicking it
// (or its LinkLabel action, where the desktop shows actions as buttons) opens that page.
type Notification struct {
	Title, Body string
	Link        string // a URL to open when the user acts on the notification; "": nothing to open
	LinkLabel   string // the action's label, "Open report"; "" is "Open"
	Sticky      bool   // it stays until the user dismisses it (a failure); else it goes after the desktop's usual time
}

// NotifierOptions configure a Notifier.
type NotifierOptions struct {
	AppName string // shown with every notification, "Gemini Search MCP"
	// DesktopEntry is the name of the app's .desktop file without the extension ("gemini-search-tray"): Linux
	// desktops take the app's name and icon from it when it is installed.
	DesktopEntry string
	Icon         []byte // the app icon, a PNG
	// IconPath is where the icon is written for the desktop to read it (a file in the cache dir), at the first
	// notification. "" leaves notifications without an icon.
	IconPath string
	Open     func(link string) error // opens a notification's link when the user acts on it (Open)
	Failed   func(error)             // told when Open fails, long after Notify returned; may be nil
}

// A Notifier shows notifications, and opens a notification's link when the user acts on it: over the
// org.freedesktop.Notifications D-Bus service on Linux and the other Unix desktops (its actions, with a
// connection of its own that listens for ActionInvoked), as toasts that open the link on Windows, and as plain
// notifications on macOS. One Notifier serves a process; it is safe for concurrent use.
type Notifier struct {
	o        NotifierOptions
	iconOnce sync.Once
	iconErr  error
	platform platformNotifier
}

// NewNotifier returns a Notifier; nothing is shown, nor any connection made, before the first notification.
func NewNotifier(o NotifierOptions) *Notifier {
	return &Notifier{o: o}
}

// Notify shows n and returns once the desktop has taken it, or with why it could not: on Linux within seconds,
// even when the notification server hangs. Its link is opened later, if the user acts on it.
func (nr *Notifier) Notify(n Notification) error {
	if n.LinkLabel == "" {
		n.LinkLabel = "Open"
	}
	icon := nr.iconFile()
	if err := nr.platform.show(nr.o, n, icon); err != nil {
		return fmt.Errorf("show the notification %q: %w", n.Title, err)
	}
	return nil
}

// Close stops listening for the user's actions on the notifications shown so far.
func (nr *Notifier) Close() { nr.platform.close() }

// opened opens link for an action of the user on a notification, and tells Failed when that fails.
func (o NotifierOptions) opened(link string) {
	if o.Open == nil {
		return
	}
	if err := o.Open(link); err != nil && o.Failed != nil {
		o.Failed(err)
	}
}

// iconFile is the path of the icon file, written at the first call (again only when an earlier release left
// another icon there); "" when there is none or it cannot be written (the notification goes without).
func (nr *Notifier) iconFile() string {
	if nr.o.IconPath == "" || len(nr.o.Icon) == 0 {
		return ""
	}
	nr.iconOnce.Do(func() { nr.iconErr = writeIcon(nr.o.IconPath, nr.o.Icon) })
	if nr.iconErr != nil {
		return ""
	}
	return nr.o.IconPath
}

func writeIcon(path string, icon []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, icon) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, icon, 0o644)
}
