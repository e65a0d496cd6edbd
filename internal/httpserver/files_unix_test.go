//go:build unix

package httpserver

import (
	"syscall"
	"testing"
)

// ensureFiles makes sure the process may open n files, raising its soft limit up to the hard one if need be, and
// skips the test when it cannot.
func ensureFiles(t *testing.T, n uint64) {
	t.Helper()
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Skipf("cannot read the open files limit: %v", err)
	}
	if lim.Cur >= n {
		return
	}
	if lim.Max < n {
		t.Skipf("needs %d open files; the hard limit is %d (raise it with ulimit -Hn)", n, lim.Max)
	}
	lim.Cur = n
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Skipf("needs %d open files; cannot raise the limit: %v", n, err)
	}
}
