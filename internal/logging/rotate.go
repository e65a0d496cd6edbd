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

	mu   sync.Mutex
	f    *os.File
	size int64
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
	if r.f == nil {
		return 0, os.ErrClosed
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

func (r *RotatingFile) rotate() error {
	if err := r.f.Close(); err != nil {
		return fmt.Errorf("rotate log file: %w", err)
	}
	r.f = nil
	os.Remove(r.old(r.keep))
	for i := r.keep - 1; i >= 1; i-- {
		os.Rename(r.old(i), r.old(i+1)) // a missing one is fine
	}
	if r.keep > 0 {
		if err := os.Rename(r.path, r.old(1)); err != nil {
			return fmt.Errorf("rotate log file: %w", err)
		}
	} else if err := os.Remove(r.path); err != nil {
		return fmt.Errorf("rotate log file: %w", err)
	}
	return r.open()
}

func (r *RotatingFile) old(i int) string { return fmt.Sprintf("%s.%d", r.path, i) }

// Close closes the file; later writes fail.
func (r *RotatingFile) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}
