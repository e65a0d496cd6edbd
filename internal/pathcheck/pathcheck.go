// Package pathcheck holds the checks of a client's path that open nothing, made before anything on disk is
// touched: whether it lies in a folder, as written, and which Windows paths name something other than a file on a
// local disk (Windows connects to the server of \\server\share to look at it, sending the user's NTLM
// credentials, and \\?\ and \\.\ reach devices and the NT namespace).
package pathcheck

import (
	"path/filepath"
	"strings"
)

// Within reports whether path is dir or lies inside it, as written; both are absolute and clean. Names compare as
// filepath.Rel compares them (on Windows, in any case).
func Within(dir, path string) bool {
	_, ok := rel(dir, path)
	return ok
}

// Inside reports whether path lies strictly inside dir, as written; both are absolute and clean.
func Inside(dir, path string) bool {
	r, ok := rel(dir, path)
	return ok && r != "."
}

// rel is path relative to dir, when path is dir or lies inside it.
func rel(dir, path string) (string, bool) {
	r, err := filepath.Rel(dir, path)
	if err != nil || filepath.IsAbs(r) || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	return r, true
}

// IsShareOrDevice reports whether path, read as a Windows path, names a network share (\\server\share) or goes
// through the device namespaces (\\?\…, \\.\…, \??\…). Windows takes / for \, so //server/share is one too.
func IsShareOrDevice(path string) bool {
	sep := func(i int) bool { return i < len(path) && (path[i] == '\\' || path[i] == '/') }
	return sep(0) && (sep(1) || (len(path) >= 4 && path[1:3] == "??" && sep(3)))
}
