package gemini

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// recordsRuns is true: a record proves its group (groupMembers).
const recordsRuns = true

// procStart is the start time of process pid, in clock ticks since boot (/proc/<pid>/stat, field 22); 0 when the
// process does not exist.
func procStart(pid int) uint64 {
	fields := procStat(pid)
	if len(fields) < 20 {
		return 0
	}
	start, _ := strconv.ParseUint(fields[19], 10, 64)
	return start
}

// procStat is the fields of /proc/<pid>/stat after the command's name (which may hold spaces): field 3 onwards.
func procStat(pid int) []string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	s := string(data)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
}

// groupMembers are the processes of rec's group, if the group is proved to be rec's: its leader, when it still
// runs, started when the record says; otherwise a member works in the recorded folder. A group id is not reused
// while the group has members, so a leaderless group with the id and the folder is the one recorded.
func groupMembers(rec runRecord) []int {
	var members []int
	inDir := false
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		pid, err := strconv.Atoi(filepath.Base(p))
		if err != nil {
			continue
		}
		fields := procStat(pid)
		if len(fields) < 20 || fields[2] != strconv.Itoa(rec.Group) { // field 5: the process group
			continue
		}
		if pid == rec.Group {
			start, _ := strconv.ParseUint(fields[19], 10, 64)
			if start != rec.Start {
				return nil // another process with the recorded id leads the group
			}
		}
		if cwd, err := os.Readlink(p + "/cwd"); err == nil && cwd == rec.Dir {
			inDir = true
		}
		members = append(members, pid)
	}
	if !inDir && procStart(rec.Group) != rec.Start {
		return nil
	}
	return members
}

// killGroupID kills every process of group.
func killGroupID(group int) { _ = syscall.Kill(-group, syscall.SIGKILL) }
