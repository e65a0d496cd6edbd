package desktop

import (
	"errors"
	"fmt"

	"golang.org/x/sys/windows/registry"
)

// NewAutostart returns the autostart entry of exe for this platform: a value in the current user's Run key.
func NewAutostart(exe string) (Autostart, error) {
	return runKey{exe: exe}, nil
}

const runKeyPath = `Software\Microsoft\Windows\CurrentVersion\Run`

type runKey struct{ exe string }

func (r runKey) Enabled() (bool, error) {
	k, err := registry.OpenKey(registry.CURRENT_USER, runKeyPath, registry.QUERY_VALUE)
	if err != nil {
		return false, fmt.Errorf("read the Run key: %w", err)
	}
	defer k.Close()
	_, _, err = k.GetStringValue(appID)
	if errors.Is(err, registry.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

func (r runKey) SetEnabled(on bool) error {
	k, _, err := registry.CreateKey(registry.CURRENT_USER, runKeyPath, registry.SET_VALUE)
	if err != nil {
		return fmt.Errorf("open the Run key: %w", err)
	}
	defer k.Close()
	if !on {
		if err := k.DeleteValue(appID); err != nil && !errors.Is(err, registry.ErrNotExist) {
			return fmt.Errorf("turn off start at login: %w", err)
		}
		return nil
	}
	if err := k.SetStringValue(appID, `"`+r.exe+`"`); err != nil {
		return fmt.Errorf("turn on start at login: %w", err)
	}
	return nil
}
