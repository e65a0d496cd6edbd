package clients

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/atomicfile"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/jsonedit"
)

// State is how a client's file stands towards this server.
type State int

// States of a client.
const (
	NotConnected State = iota // no entry for this server
	Connected                 // the entry this server would write now
	Outdated                  // an entry that points elsewhere: an old port, path or token
	Unreadable                // a file that cannot be read: Status.Err says why
)

func (s State) String() string {
	return [...]string{"not connected", "connected", "connected to an old address", "cannot read"}[s]
}

// Status is a client's State and, for an Unreadable file, why.
type Status struct {
	State State
	Err   *FileError // set when State is Unreadable
}

// String is the state, or for a file that cannot be read the reason: "cannot read ~/.cursor/mcp.json: line 3: …".
func (s Status) String() string {
	if s.Err != nil {
		return s.Err.Error()
	}
	return s.State.String()
}

// FileError is a client's file that cannot be read, or not safely changed: it is not valid in its format, names
// the servers key or this server twice, holds something other than an object where the servers are (a
// *ShapeError says what), or cannot be opened. Connect and Disconnect leave such a file untouched.
type FileError struct {
	Path string // as shown to people: ~/.cursor/mcp.json
	Err  error
}

func (e *FileError) Error() string { return "cannot read " + e.Path + ": " + e.Err.Error() }

func (e *FileError) Unwrap() error { return e.Err }

// fileError is err about c's file, or nil when err is no problem of the file itself.
func (c Client) fileError(err error) *FileError {
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		err = pathErr.Err // the path is said once, as people know it
	}
	return &FileError{Path: c.shownPath(), Err: err}
}

// shownPath is the file's path with the home folder written ~.
func (c Client) shownPath() string {
	if c.home != "" {
		if rest, ok := strings.CutPrefix(c.Path, c.home+string(filepath.Separator)); ok {
			return "~" + string(filepath.Separator) + rest
		}
	}
	return c.Path
}

// Status reads the client's file: whether it has this server's entry, whether that entry is the current one, or
// why the file cannot be read. An entry whose members this server writes are as it would write them now is the
// current one, whatever members of the client's own it has besides.
func (c Client) Status() Status {
	data, err := os.ReadFile(c.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return Status{State: NotConnected}
	}
	var doc document
	if err == nil {
		doc, err = c.parse(data)
	}
	var have json.RawMessage
	var found bool
	if err == nil {
		have, found, err = doc.Get(c.path()...)
	}
	if err != nil {
		return Status{State: Unreadable, Err: c.fileError(err)}
	}
	if !found {
		return Status{State: NotConnected}
	}
	if want, err := c.entryJSON(); err == nil && current(have, want) {
		return Status{State: Connected}
	}
	return Status{State: Outdated}
}

// Change is what Connect or Disconnect would do to a client's file: its bytes before and after. Nothing is written
// until Apply.
type Change struct {
	Client Client
	Old    []byte // nil when the file is not there
	New    []byte // equal to Old when there is nothing to change
	exists bool
	target string // the file written: the one a symbolic link points to
}

// Changed reports whether applying the change would write the file.
func (ch Change) Changed() bool { return !bytes.Equal(ch.Old, ch.New) }

// PlanConnect is the change that writes this server's entry into the client's file, creating the file when
// missing. An entry already there is brought up to date (after a change of port or token): only the members this
// server writes change, and the client's own members and settings in it stay (see updated); a current one is left
// as it is. A file that cannot be read, or not safely changed, gives a *FileError.
func (c Client) PlanConnect() (Change, error) {
	entry, err := c.entryJSON()
	if err != nil {
		return Change{}, err
	}
	return c.plan(func(doc document) (bool, error) {
		have, found, err := doc.Get(c.path()...)
		if err != nil || !found {
			if err == nil {
				return doc.Set(entry, c.path()...)
			}
			return false, err
		}
		next, err := updated(have, entry)
		if err != nil || jsonedit.Equal(next, have) {
			return false, err
		}
		return setEntry(doc, c.path(), have, next)
	})
}

// current reports whether have, the entry in a client's file, is want as far as this server writes it.
func current(have, want json.RawMessage) bool {
	next, err := updated(have, want)
	return err == nil && jsonedit.Equal(next, have)
}

// PlanDisconnect is the change that removes this server's entry from the client's file, and nothing else; a file
// without the entry is left alone.
func (c Client) PlanDisconnect() (Change, error) {
	return c.plan(func(doc document) (bool, error) { return doc.Delete(c.path()...) })
}

// Connect writes this server's entry into the client's file, creating the file (0600) when missing, and changes
// no other byte of it. When the file changes, the old one is first copied to <file>.<time>.bak, whose path is
// returned. A file that cannot be read is left alone: the error is a *FileError.
func (c Client) Connect(now time.Time) (backup string, err error) {
	ch, err := c.PlanConnect()
	if err != nil {
		return "", err
	}
	return ch.Apply(now)
}

// Disconnect removes this server's entry from the client's file, and nothing else, with the same backup as
// Connect; a file without the entry is left alone.
func (c Client) Disconnect(now time.Time) (backup string, err error) {
	ch, err := c.PlanDisconnect()
	if err != nil {
		return "", err
	}
	return ch.Apply(now)
}

// plan applies change to the client's file as read now (an empty one, or the client's skeleton, when missing). A
// symbolic link is followed to the file it points to, which is the one written, so the link stays; a dangling one
// gets its file.
func (c Client) plan(change func(document) (bool, error)) (Change, error) {
	path, err := linkTarget(c.Path)
	if err != nil {
		return Change{}, c.fileError(err)
	}
	old, err := os.ReadFile(path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Change{}, c.fileError(err)
	}
	start := old
	if !exists && c.newFile != "" {
		start = []byte(c.newFile)
	}
	doc, err := c.parse(start)
	if err != nil {
		return Change{}, c.fileError(err)
	}
	ch := Change{Client: c, Old: old, New: old, exists: exists, target: path}
	changed, err := change(doc)
	switch {
	case err != nil && isFileProblem(err):
		return Change{}, c.fileError(err)
	case err != nil:
		return Change{}, err
	case changed:
		ch.New = doc.Bytes()
	}
	return ch, nil
}

// Apply writes the change, after a backup of the old file, unless the file changed since the change was planned:
// then nothing is written, and the error says to try again.
func (ch Change) Apply(now time.Time) (backup string, err error) {
	if !ch.Changed() {
		return "", nil
	}
	c := ch.Client
	current, err := os.ReadFile(ch.target)
	if (err == nil) != ch.exists || !bytes.Equal(current, ch.Old) {
		return "", fmt.Errorf("%s changed meanwhile: nothing was written; try again", c.shownPath())
	}
	mode := fs.FileMode(0o600) // a new file may hold the bearer token; an existing one keeps its mode
	if ch.exists {
		if fi, err := os.Stat(ch.target); err == nil {
			mode = fi.Mode().Perm()
		}
		if backup, err = backUp(c.Path, ch.Old, mode, now); err != nil {
			return "", fmt.Errorf("back up %s: %w", c.Path, err)
		}
	} else if err := os.MkdirAll(filepath.Dir(ch.target), 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", filepath.Dir(ch.target), err)
	}
	if err := atomicfile.Write(ch.target, ch.New, mode); err != nil {
		return "", fmt.Errorf("write %s: %w", ch.target, err)
	}
	return backup, nil
}

// maxLinks bounds the links followed, as the kernel's ELOOP does.
const maxLinks = 40

// linkTarget follows the symbolic links path is, if any, to the file they end at, which may not exist yet.
func linkTarget(path string) (string, error) {
	for range maxLinks {
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return path, nil // a file, or none: reading it says which
		}
		to, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(to) {
			// Relative to the link's folder as the system resolves it, which may itself be reached through a link.
			dir, err := filepath.EvalSymlinks(filepath.Dir(path))
			if err != nil {
				return "", err
			}
			to = filepath.Join(dir, to)
		}
		path = to
	}
	return "", errors.New("too many levels of symbolic links")
}

// backUp copies data, the file at path as it was, to path.<now>.bak, or to path.<now>.2.bak (.3, …) when an
// earlier change in the same second has that name: a backup is never overwritten, so the first holds the original.
func backUp(path string, data []byte, mode fs.FileMode, now time.Time) (string, error) {
	stamp := now.Format("20060102-150405")
	for n := 1; n <= 10000; n++ {
		name := fmt.Sprintf("%s.%s.bak", path, stamp)
		if n > 1 {
			name = fmt.Sprintf("%s.%s.%d.bak", path, stamp, n)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(name)
			return "", err
		}
		return name, nil
	}
	return "", fmt.Errorf("%s.%s.*.bak: every name is taken", path, stamp)
}
