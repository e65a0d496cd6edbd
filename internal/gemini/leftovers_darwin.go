package gemini

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// recordsRuns is true: a record proves its group while its leader runs (groupMembers).
const recordsRuns = true

// procStart is the start time of process pid, in microseconds since the epoch (the kernel's kinfo_proc); 0 when
// the process does not exist.
func procStart(pid int) uint64 {
	p, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || p.Proc.P_pid != int32(pid) {
		return 0
	}
	t := p.Proc.P_starttime
	return uint64(t.Sec)*1_000_000 + uint64(t.Usec)
}

// groupMembers are the processes of rec's group, if the group is proved to be rec's: its leader still runs and
// started when the record says. (macOS gives no other process's working folder, so a group whose leader is gone
// cannot be proved, and is left alone.) The CLI has no parent-death signal here: it is the leader, left running.
func groupMembers(rec runRecord) []int {
	if procStart(rec.Group) != rec.Start {
		return nil
	}
	procs, err := unix.SysctlKinfoProcSlice("kern.proc.pgrp", rec.Group)
	if err != nil {
		return nil
	}
	members := make([]int, 0, len(procs))
	for _, p := range procs {
		members = append(members, int(p.Proc.P_pid))
	}
	return members
}

// killGroupID kills every process of group.
func killGroupID(group int) { _ = syscall.Kill(-group, syscall.SIGKILL) }
