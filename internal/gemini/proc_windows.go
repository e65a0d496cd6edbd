//go:build windows

package gemini

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"golang.org/x/sys/windows"
)

// setProcessGroup starts the CLI in a new process group, away from the
// server's console signals, and without a console window of its own: the
// tray is a GUI program, and a console program it starts would flash one.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{HideWindow: true,
		CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP | windows.CREATE_NO_WINDOW}
}

// terminate kills the CLI's process tree: Windows has no SIGTERM to ask
// politely with.
func terminate(p *os.Process) error {
	kill := exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(p.Pid))
	kill.SysProcAttr = &syscall.SysProcAttr{HideWindow: true, CreationFlags: windows.CREATE_NO_WINDOW}
	if err := kill.Run(); err != nil {
		return p.Kill()
	}
	return nil
}

// killGroup does nothing on Windows: once the CLI has exited its tree cannot
// be found by its ID any more. (A job object would be needed to do better.)
func killGroup(*os.Process) {}
