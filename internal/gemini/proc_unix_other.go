//go:build unix && !linux

package gemini

import (
	"os"
	"syscall"
)

// setParentDeathSignal does nothing: only Linux has a parent-death signal.
func setParentDeathSignal(*syscall.SysProcAttr) {}

// killPipeHolders does nothing: only Linux shows which process holds a pipe (/proc). A process of the run that
// left its group and holds its pipes is left running.
func killPipeHolders(...*os.File) {}
