//go:build !darwin && !windows

package desktop

import "github.com/adrg/xdg"

// NewAutostart returns the autostart entry of exe for this platform.
func NewAutostart(exe string) (Autostart, error) {
	return xdgAutostart(xdg.ConfigHome, exe), nil
}
