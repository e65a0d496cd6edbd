//go:build !unix

package httpserver

import "testing"

// ensureFiles: Windows has no per-process limit on sockets to raise.
func ensureFiles(*testing.T, uint64) {}
