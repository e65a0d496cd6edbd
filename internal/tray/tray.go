package tray

import (
	"context"
	"errors"

	"fyne.io/systray"
)

// ErrNoTray means there is no desktop session to show a tray icon in (on Linux: no D-Bus session bus).
var ErrNoTray = errors.New("no desktop session for a tray icon")

// Run shows the icon and the menu until ctx is cancelled, then removes them. It returns ErrNoTray at once when
// there is no session to show them in, so the caller can go on without a tray. Call it from the main goroutine
// (macOS and Windows need their UI there), and only once per process: systray cannot start twice.
func Run(ctx context.Context, o Options) error {
	if err := sessionAvailable(); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m := newMenu(o)
	// systray runs onReady while it is still registering on D-Bus, and an icon set in that window is lost
	// (SetIcon sees no exported properties yet, and the properties are exported with the icon from before).
	// Setting the first icon before Run makes it part of the exported properties; the menu's loop sets it
	// again once registration is surely over, for a state that changed meanwhile.
	st := o.App.State()
	m.setIcon(render(st, m.o.Now()).Icon)
	systray.Run(func() {
		m.build(ctx)
		loopDone := make(chan struct{})
		go func() {
			defer close(loopDone)
			m.loop(ctx)
		}()
		go func() {
			<-ctx.Done()
			// Quit closes systray's D-Bus connection, and systray.SetIcon panics on a closed one: the loop may be
			// drawing a change that came with the cancellation (a search the client just cancelled), so it must
			// have returned first.
			<-loopDone
			systray.Quit()
		}()
	}, cancel)
	return nil
}

// HostPresent reports whether a tray host (a StatusNotifierWatcher on Linux) is there to show the icon. Without
// one the menu still exists and appears as soon as a host starts.
func HostPresent() bool { return hostPresent() }
