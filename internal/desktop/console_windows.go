package desktop

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// noConsole keeps a console program started by the tray, a GUI program, from flashing a console window.
func noConsole(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{HideWindow: true, CreationFlags: windows.CREATE_NO_WINDOW}
}
