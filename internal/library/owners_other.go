//go:build !(unix && !aix && !solaris) && !windows

package library

import "os"

// tryLock opens path, creating it. This platform has no lock the library uses: every owner but this process's
// seems gone, so servers sharing a library here may mark each other's running jobs interrupted.
func tryLock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
}
