// Package watch reports changes to a few files, each watched through its parent directory so that atomic
// replaces (temp file + rename) and editor saves (vim's rename-and-recreate) are seen. That directory is watched
// through its own parent too: when it is deleted or renamed its files are reported missing, and when it appears
// again it is watched again and its files looked at. Events are debounced per file, and a change is only
// reported when the file's contents differ from the last ones seen, so touching a file, or the program's own
// writes (announce them with Wrote), report nothing.
package watch

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Change is the new state of a watched file.
type Change struct {
	Path   string
	Exists bool   // false when the file was removed
	Data   []byte // its contents when it exists
}

// Watcher watches files; it is safe for concurrent use. Handlers run one at a time on Run's goroutine.
type Watcher struct {
	fs       *fsnotify.Watcher
	debounce time.Duration
	log      *slog.Logger

	mu    sync.Mutex
	files map[string]*file // by cleaned path
	dirs  map[string]bool  // the folders watched now: each file's folder and that folder's parent
	due   chan string
}

type file struct {
	handle func(Change)
	seen   [sha256.Size]byte // hash of the contents last reported or written; zero for "missing"
	timer  *time.Timer
}

// New returns a Watcher that waits debounce after the last event on a file before looking at it.
func New(debounce time.Duration, logger *slog.Logger) (*Watcher, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch files: %w", err)
	}
	return &Watcher{fs: fw, debounce: debounce, log: logger, files: map[string]*file{}, dirs: map[string]bool{},
		due: make(chan string, 16)}, nil
}

// Add watches path (its directory must exist) and calls handle on each change of its contents.
func (w *Watcher) Add(path string, handle func(Change)) error {
	path = filepath.Clean(path)
	dir := filepath.Dir(path)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.watchLocked(dir); err != nil {
		return err
	}
	if err := w.watchLocked(filepath.Dir(dir)); err != nil {
		w.log.Warn("if this folder is deleted, it will not be watched again when it comes back", "folder", dir, "err", err)
	}
	w.files[path] = &file{handle: handle, seen: hashOf(read(path))}
	return nil
}

func (w *Watcher) watchLocked(dir string) error {
	if w.dirs[dir] {
		return nil
	}
	if err := w.fs.Add(dir); err != nil {
		return fmt.Errorf("watch %s: %w", dir, err)
	}
	w.dirs[dir] = true
	return nil
}

// oursLocked reports whether dir is a folder the watcher needs: a file's folder, or that folder's parent.
func (w *Watcher) oursLocked(dir string) bool {
	for path := range w.files {
		if within(path, dir) {
			return true
		}
	}
	return false
}

// within reports whether path lies in dir or in a folder of dir.
func within(path, dir string) bool {
	return filepath.Dir(path) == dir || filepath.Dir(filepath.Dir(path)) == dir
}

// Wrote records that the program itself wrote data to path (nil: removed it), so the events that write causes
// report nothing.
func (w *Watcher) Wrote(path string, data []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if f, ok := w.files[filepath.Clean(path)]; ok {
		f.seen = hashOf(data, data != nil)
	}
}

// Run delivers changes until ctx is cancelled, then releases the watches.
func (w *Watcher) Run(ctx context.Context) error {
	defer w.fs.Close()
	for {
		select {
		case <-ctx.Done():
			w.mu.Lock()
			for _, f := range w.files {
				if f.timer != nil {
					f.timer.Stop()
				}
			}
			w.mu.Unlock()
			return nil
		case ev, ok := <-w.fs.Events:
			if !ok {
				return errors.New("watch: event channel closed")
			}
			w.event(ev)
		case err, ok := <-w.fs.Errors:
			if !ok {
				return errors.New("watch: error channel closed")
			}
			w.log.Warn("file watch error", "err", err)
		case path := <-w.due:
			w.check(path)
		}
	}
}

func (w *Watcher) event(ev fsnotify.Event) {
	if ev.Op == fsnotify.Chmod {
		return
	}
	path := filepath.Clean(ev.Name)
	w.mu.Lock()
	defer w.mu.Unlock()
	if f, ok := w.files[path]; ok {
		w.scheduleLocked(path, f)
	}
	if !w.oursLocked(path) {
		return
	}
	switch {
	case ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename):
		// The folder's watch is gone, or follows it elsewhere; so do those of the folders in it.
		for dir := range w.dirs {
			if dir == path || filepath.Dir(dir) == path {
				delete(w.dirs, dir)
				_ = w.fs.Remove(dir) // the watch is usually gone already
			}
		}
	case ev.Has(fsnotify.Create):
		// The folder is back (or another one took its name): watch it, and the folders of ours in it, again.
		for p := range w.files {
			for _, dir := range []string{filepath.Dir(p), filepath.Dir(filepath.Dir(p))} {
				if dir != path && filepath.Dir(dir) != path {
					continue
				}
				if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
					continue
				}
				if err := w.fs.Add(dir); err != nil {
					w.log.Warn("cannot watch a folder again", "folder", dir, "err", err)
					continue
				}
				w.dirs[dir] = true
			}
		}
	default:
		return
	}
	// Look at the files the folder holds: they are gone, or may have come back with it.
	for p, f := range w.files {
		if within(p, path) {
			w.scheduleLocked(p, f)
		}
	}
}

// scheduleLocked looks at path once no event on it came for the debounce time.
func (w *Watcher) scheduleLocked(path string, f *file) {
	if f.timer != nil {
		f.timer.Stop()
	}
	f.timer = time.AfterFunc(w.debounce, func() { w.due <- path })
}

// check reads path and reports it when its contents differ from the last ones seen.
func (w *Watcher) check(path string) {
	data, exists := read(path)
	sum := hashOf(data, exists)
	w.mu.Lock()
	f := w.files[path]
	same := f.seen == sum
	f.seen = sum
	w.mu.Unlock()
	if same {
		return
	}
	f.handle(Change{Path: path, Exists: exists, Data: data})
}

func read(path string) ([]byte, bool) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false
	}
	return data, true // an unreadable file is reported as present and empty; its handler will say why
}

func hashOf(data []byte, exists bool) [sha256.Size]byte {
	if !exists {
		return [sha256.Size]byte{}
	}
	return sha256.Sum256(append([]byte{1}, data...)) // never zero, even for an empty file
}
