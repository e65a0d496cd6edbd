//go:build unix && !aix && !solaris

package library

import (
	"errors"
	"os"
	"syscall"
)

// tryLock opens path, creating it, and takes an exclusive flock on it without waiting: errLocked when another open
// file (in this process or another) holds it.
func tryLock(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errLocked
		}
		return nil, err
	}
	return f, nil
}
