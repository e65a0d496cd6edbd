//go:build windows

package gemini

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// setProcessGroup starts the CLI in a new process group, away from the
// server's console signals.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// terminate kills the CLI's process tree: Windows has no SIGTERM to ask
// politely with.
func terminate(p *os.Process) error {
	if err := exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(p.Pid)).Run(); err != nil {
		return p.Kill()
	}
	return nil
}

// killGroup does nothing on Windows: once the CLI has exited its tree cannot
// be found by its ID any more. (A job object would be needed to do better.)
func killGroup(*os.Process) {}
