package library

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
)

// Who runs a job. Each open Library is an owner with an id of its own, and holds an exclusive lock on a file named
// after it (library.db.owners/<id>.lock) for as long as it is open. The operating system releases that lock when
// the process ends, however it ends. A job is marked interrupted when it is still running but its owner's lock can
// be taken: its server is gone (it crashed, was killed, or closed the library). The library checks at Open (so a
// restart marks its predecessor's jobs at once) and whenever Job or Jobs reads a running job of another owner, so
// that servers sharing the library never mark each other's live jobs, and each finds a dead one's at once.
type owner struct {
	dir  string
	id   string
	lock *os.File // held while the library is open
}

// newOwner takes a fresh owner id in dir and holds its lock.
func newOwner(dir string) (*owner, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("make the folder of the library's owners: %w", err)
	}
	for range 10 {
		o := &owner{dir: dir, id: record.NewJobID()}
		f, err := tryLock(o.path(o.id))
		if err != nil {
			return nil, fmt.Errorf("lock the library's owner file: %w", err)
		}
		// Another library may have swept the file between its creation and the lock: hold the file the name names.
		if fi, err := f.Stat(); err == nil {
			if now, err := os.Stat(o.path(o.id)); err == nil && os.SameFile(fi, now) {
				o.lock = f
				return o, nil
			}
		}
		f.Close()
	}
	return nil, errors.New("lock the library's owner file: it keeps disappearing")
}

func (o *owner) path(id string) string { return filepath.Join(o.dir, id+".lock") }

// alive reports whether the owner id still holds its lock. An id that is not a name of ours never is.
func (o *owner) alive(id string) bool {
	if id == o.id {
		return true
	}
	if !validOwner(id) {
		return false
	}
	f, err := tryLock(o.path(id))
	if errors.Is(err, errLocked) {
		return true
	}
	if err == nil {
		f.Close()
	}
	return false
}

// forget deletes the lock file of an owner that is gone.
func (o *owner) forget(id string) {
	if validOwner(id) && id != o.id {
		os.Remove(o.path(id))
	}
}

// release lets go of the lock and deletes its file (in that order: Windows deletes no file a handle holds).
func (o *owner) release() {
	o.lock.Close()
	os.Remove(o.path(o.id))
}

// validOwner reports whether id has the form of an owner's id, which is that of a job's.
func validOwner(id string) bool { return record.ValidJobID(id) }

// errLocked is tryLock's error for a file another holds.
var errLocked = errors.New("locked by another")
