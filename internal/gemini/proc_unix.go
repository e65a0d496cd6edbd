//go:build unix

package gemini

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// setProcessGroup starts the CLI as the leader of a new process group, so
// its MCP servers (grandchildren) can be signalled with it.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setParentDeathSignal(cmd.SysProcAttr)
}

// contain does nothing here: the process group holds the run's processes (setProcessGroup).
func contain(*os.Process) {}

// terminate asks the whole group to stop.
func terminate(p *os.Process) error {
	err := syscall.Kill(-p.Pid, syscall.SIGTERM)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

// killGroup kills whatever is left of the group once the CLI has exited.
// The group ID stays reserved while any member lives, so this cannot hit an
// unrelated process.
func killGroup(p *os.Process) {
	_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
}
