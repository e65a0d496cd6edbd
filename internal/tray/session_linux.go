//go:build linux || freebsd || openbsd || netbsd

package tray

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/godbus/dbus/v5"
)

// escapeLabel keeps a label's underscores: dbusmenu shows "__" as one "_" and takes a lone "_" for the mark of
// an access key, dropping it ("deep_search" showed as "deepsearch").
func escapeLabel(s string) string { return strings.ReplaceAll(s, "_", "__") }

// sessionAvailable checks for a D-Bus session bus before systray uses one: without it systray's Quit would
// panic. It never lets godbus launch a bus of its own (it would when DBUS_SESSION_BUS_ADDRESS is unset).
func sessionAvailable() error {
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		runtimeDir := os.Getenv("XDG_RUNTIME_DIR")
		if runtimeDir == "" {
			return fmt.Errorf("%w: DBUS_SESSION_BUS_ADDRESS is not set", ErrNoTray)
		}
		if _, err := os.Stat(filepath.Join(runtimeDir, "bus")); err != nil {
			return fmt.Errorf("%w: DBUS_SESSION_BUS_ADDRESS is not set and %s has no bus", ErrNoTray, runtimeDir)
		}
	}
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNoTray, err)
	}
	return conn.Close()
}

func hostPresent() bool {
	if sessionAvailable() != nil {
		return false
	}
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return false
	}
	defer conn.Close()
	var has bool
	err = conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, "org.kde.StatusNotifierWatcher").Store(&has)
	return err == nil && has
}
