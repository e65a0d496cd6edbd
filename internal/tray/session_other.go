//go:build !(linux || freebsd || openbsd || netbsd)

package tray

// sessionAvailable: macOS and Windows always have a place for the icon in a desktop session.
func sessionAvailable() error { return nil }

func hostPresent() bool { return true }
