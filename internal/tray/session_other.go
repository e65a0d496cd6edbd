//go:build !(linux || freebsd || openbsd || netbsd)

package tray

// escapeLabel: macOS and Windows show a label's underscores as they are.
func escapeLabel(s string) string { return s }

// sessionAvailable: macOS and Windows always have a place for the icon in a desktop session.
func sessionAvailable() error { return nil }

func hostPresent() bool { return true }
