package gemini

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// processRSS is the resident size of pid in bytes, from /proc.
func processRSS(pid int) (int64, bool) {
	statm, err := os.ReadFile(fmt.Sprintf("/proc/%d/statm", pid))
	if err != nil {
		return 0, false
	}
	fields := strings.Fields(string(statm))
	if len(fields) < 2 {
		return 0, false
	}
	pages, err := strconv.ParseInt(fields[1], 10, 64)
	if err != nil {
		return 0, false
	}
	return pages * int64(os.Getpagesize()), true
}
