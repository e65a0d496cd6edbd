package gemini

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// groupRSS is the resident size in bytes of the process group that pgid leads, from /proc: the CLI and the processes
// it started, its MCP servers among them, which its size alone would leave out.
func groupRSS(pgid int) (int64, bool) {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		return 0, false
	}
	var pages int64
	found := false
	for _, name := range stats {
		b, err := os.ReadFile(name)
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid pgrp … rss is the 24th field; comm may hold spaces and parentheses.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(s[i+1:])
		if len(fields) < 22 || fields[2] != strconv.Itoa(pgid) {
			continue
		}
		if rss, err := strconv.ParseInt(fields[21], 10, 64); err == nil {
			pages += rss
			found = true
		}
	}
	return pages * int64(os.Getpagesize()), found
}
