//go:build !windows

package desktop

import "os/exec"

// noConsole does nothing: only Windows opens a console window for a console program.
func noConsole(*exec.Cmd) {}
