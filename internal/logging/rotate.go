package logging

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// RotatingFile is an io.Writer appending to a log file that is rotated when it would grow past a size: path
// becomes path.1, path.1 becomes path.2 and so on, keeping a fixed number of old files. Safe for concurrent use.
type RotatingFile struct {
	path     string
	maxBytes int64
	keep     int

	mu     sync.Mutex
	f      *os.File // nil when a reopen failed
	size   int64
	closed bool
}

// OpenRotating opens (or creates, mode 0600, with its directory) the log file at path. A write that would take
// the file past maxBytes rotates it first; keep old files are kept.
func OpenRotating(path string, maxBytes int64, keep int) (*RotatingFile, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create log dir: %w", err)
	}
	r := &RotatingFile{path: path, maxBytes: maxBytes, keep: keep}
	if err := r.open(); err != nil {
		return nil, err
	}
	return r, nil
}

// Path is the current log file.
func (r *RotatingFile) Path() string { return r.path }

func (r *RotatingFile) open() error {
	f, err := os.OpenFile(r.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open log file: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("open log file: %w", err)
	}
	r.f, r.size = f, fi.Size()
	return nil
}

// Write appends p, rotating first when the file would grow past the limit. A single write larger than the
// limit still goes into one file.
func (r *RotatingFile) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return 0, os.ErrClosed
	}
	if r.f == nil { // a reopen failed earlier: try again
		if err := r.open(); err != nil {
			return 0, err
		}
	}
	if r.size > 0 && r.size+int64(len(p)) > r.maxBytes {
		if err := r.rotate(); err != nil {
			return 0, err
		}
	}
	n, err := r.f.Write(p)
	r.size += int64(n)
	return n, err
}

// rotate moves the file aside and opens a new one. Whatever happens to the old file (someone removed it, say),
// logging goes on in a file at path: a failure to move it only delays the rotation to the next write.
func (r *RotatingFile) rotate() error {
	r.f.Close() // appended writes are already in the file
	r.f = nil
	os.Remove(r.old(r.keep))
	for i := r.keep - 1; i >= 1; i-- {
		os.Rename(r.old(i), r.old(i+1)) // a missing one is fine
	}
	if r.keep > 0 {
		os.Rename(r.path, r.old(1))
	} else {
		os.Remove(r.path)
	}
	return r.open()
}

func (r *RotatingFile) old(i int) string { return fmt.Sprintf("%s.%d", r.path, i) }

// Close closes the file; later writes fail.
func (r *RotatingFile) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}
