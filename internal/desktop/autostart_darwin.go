package desktop

import (
	"fmt"
	"os"
)

// NewAutostart returns the autostart entry of exe for this platform.
func NewAutostart(exe string) (Autostart, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, fmt.Errorf("start at login: %w", err)
	}
	return launchAgent(home, exe), nil
}
