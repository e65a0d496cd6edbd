package gemini

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// setParentDeathSignal has the kernel kill the CLI when the server dies without ending it (SIGKILL, a crash): a
// warm CLI whose stdin closes before its prompt would otherwise send the API a blank one. The kernel sends it
// when the thread that started the CLI exits; Go ends a thread only when a goroutine locked to it returns, and
// no goroutine that starts a CLI is locked to its thread.
func setParentDeathSignal(attr *syscall.SysProcAttr) {
	attr.Pdeathsig = syscall.SIGKILL
}

// killPipeHolders kills the processes that hold the write end of pipes, the CLI's stdout and stderr, after the
// CLI and its group are gone: only the run's processes had it (the server closed its copy once the CLI started), so
// a holder is one of the run's that left the group (a grandchild started in a session of its own, as node's
// detached spawn does). The server's read ends, which a process it is starting may hold for a moment, are not
// looked at.
func killPipeHolders(pipes ...*os.File) {
	ours := map[string]bool{}
	for _, f := range pipes {
		if info, err := f.Stat(); err == nil { // Stat, not Fd: that would turn the pipe blocking under its reader
			if st, ok := info.Sys().(*syscall.Stat_t); ok {
				ours[fmt.Sprintf("pipe:[%d]", st.Ino)] = true
			}
		}
	}
	fds, _ := filepath.Glob("/proc/[0-9]*/fd/*")
	for _, fd := range fds {
		pid, err := strconv.Atoi(strings.Split(fd, "/")[2])
		if err != nil || pid == os.Getpid() {
			continue
		}
		if link, err := os.Readlink(fd); err == nil && ours[link] && writes(strings.Replace(fd, "/fd/", "/fdinfo/", 1)) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// writes reports whether the fdinfo file at path describes a descriptor open for writing.
func writes(path string) bool {
	info, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	for line := range strings.Lines(string(info)) {
		if v, ok := strings.CutPrefix(line, "flags:"); ok {
			flags, err := strconv.ParseUint(strings.TrimSpace(v), 8, 64)
			return err == nil && flags&syscall.O_ACCMODE != syscall.O_RDONLY
		}
	}
	return false
}
