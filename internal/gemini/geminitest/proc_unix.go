//go:build unix

package geminitest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
)

// alive reports whether pid is a running process of this fake: one whose
// environment names recordDir, so that a reused pid is not mistaken for it.
// Where /proc exists a zombie (state Z or X) counts as gone: a reparented
// grandchild may never be reaped in a container.
func alive(pid int, recordDir string) bool {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		err := syscall.Kill(pid, 0) // no /proc: no zombie or identity check
		return err == nil || errors.Is(err, syscall.EPERM)
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && (stat[i+2] == 'Z' || stat[i+2] == 'X') {
		return false
	}
	environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return true // cannot tell: assume it is ours
	}
	return slices.Contains(strings.Split(string(environ), "\x00"), EnvRecordDir+"="+recordDir)
}

func kill(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }

// detach starts cmd in a session of its own, out of its parent's process group.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
