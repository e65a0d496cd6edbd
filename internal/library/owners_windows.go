package library

import (
	"errors"
	"os"
	"syscall"
)

// errSharingViolation is Windows' ERROR_SHARING_VIOLATION, which package syscall does not name.
const errSharingViolation syscall.Errno = 32

// tryLock opens path, creating it, shared with nobody: errLocked when another handle (in this process or another)
// has it open. Windows closes a process's handles when it ends.
func tryLock(path string) (*os.File, error) {
	name, err := syscall.UTF16PtrFromString(path)
	if err != nil {
		return nil, err
	}
	h, err := syscall.CreateFile(name, syscall.GENERIC_READ|syscall.GENERIC_WRITE, 0, nil, syscall.OPEN_ALWAYS,
		syscall.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		if errors.Is(err, errSharingViolation) {
			return nil, errLocked
		}
		return nil, err
	}
	return os.NewFile(uintptr(h), path), nil
}
