package gemini

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// groupRSS counts every process of the group, not its leader alone: here a shell and the two sleeps it started.
func TestGroupRSSCountsTheWholeGroup(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 60 & sleep 60 & echo started; wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skip("no sh:", err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	if _, err := out.Read(make([]byte, 8)); err != nil { // both sleeps were started
		t.Fatal(err)
	}
	group, ok := groupRSS(cmd.Process.Pid)
	if !ok {
		t.Fatal("no size read")
	}
	leader := leaderRSS(t, cmd.Process.Pid)
	if group <= leader {
		t.Errorf("group %d bytes, want more than the leader's %d", group, leader)
	}
}

// leaderRSS is the resident size of pid alone, from /proc/<pid>/statm.
func leaderRSS(t *testing.T, pid int) int64 {
	t.Helper()
	statm, err := os.ReadFile(fmt.Sprintf("/proc/%d/statm", pid))
	if err != nil {
		t.Fatal(err)
	}
	var size, pages int64
	if _, err := fmt.Sscan(string(statm), &size, &pages); err != nil {
		t.Fatal(err)
	}
	return pages * int64(os.Getpagesize())
}
