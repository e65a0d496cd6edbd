// Package assets embeds the tray icons: one per state, as PNG (Linux, macOS) and ICO (Windows). The files are
// drawn by ./gen (go run ./assets/gen).
package assets

import (
	"embed"
	"fmt"
)

//go:embed *.png *.ico
var FS embed.FS

// Icon states.
const (
	Idle        = "idle"
	Researching = "researching"
	Stopped     = "stopped"
	Error       = "error"
	// Failing: serving, with recent failures — a badge on the idle icon.
	Failing = "failing"
)

// States lists every icon state.
var States = []string{Idle, Researching, Stopped, Error, Failing}

// Icon returns the icon for state in format, "png" or "ico".
func Icon(state, format string) ([]byte, error) {
	data, err := FS.ReadFile(state + "." + format)
	if err != nil {
		return nil, fmt.Errorf("icon %s.%s: %w", state, format, err)
	}
	return data, nil
}
