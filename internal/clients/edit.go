package clients

import (
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

// FileError is a client's file that cannot be read, or not safely changed: it is neither JSON nor JSON with
// comments, names the servers key or this server twice, holds something other than an object where the servers
// are, or cannot be opened. Connect and Disconnect leave such a file untouched.
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
// why the file cannot be read.
func (c Client) Status() Status {
	data, err := os.ReadFile(c.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return Status{State: NotConnected}
	}
	var doc *jsonedit.Doc
	if err == nil {
		doc, err = jsonedit.ParseDoc(data)
	}
	var have json.RawMessage
	var found bool
	if err == nil {
		have, found, err = doc.Get(c.ServersKey, serverName)
	}
	if err != nil {
		return Status{State: Unreadable, Err: c.fileError(err)}
	}
	if !found {
		return Status{State: NotConnected}
	}
	if want, err := json.Marshal(c.Entry); err == nil && jsonedit.Equal(have, want) {
		return Status{State: Connected}
	}
	return Status{State: Outdated}
}

// Connect writes this server's entry into the client's file, creating the file (0600) when missing, and changes
// no other byte of it. When the file changes, the old one is first copied to <file>.<time>.bak, whose path is
// returned. A file that cannot be read is left alone: the error is a *FileError.
func (c Client) Connect(now time.Time) (backup string, err error) {
	entry, err := json.Marshal(c.Entry)
	if err != nil {
		return "", fmt.Errorf("encode the %s entry: %w", c.Name, err)
	}
	return c.edit(now, func(doc *jsonedit.Doc) (bool, error) { return doc.Set(entry, c.ServersKey, serverName) })
}

// Disconnect removes this server's entry from the client's file, and nothing else, with the same backup as
// Connect; a file without the entry is left alone.
func (c Client) Disconnect(now time.Time) (backup string, err error) {
	return c.edit(now, func(doc *jsonedit.Doc) (bool, error) { return doc.Delete(c.ServersKey, serverName) })
}

// edit applies change to the client's file (an empty one when missing) and writes it when that changed it, after
// a backup of the old one. A symbolic link is followed to the file it points to, which is written, so the link
// stays; a dangling one gets its file.
func (c Client) edit(now time.Time, change func(*jsonedit.Doc) (bool, error)) (backup string, err error) {
	path, err := linkTarget(c.Path)
	if err != nil {
		return "", c.fileError(err)
	}
	old, err := os.ReadFile(path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", c.fileError(err)
	}
	doc, err := jsonedit.ParseDoc(old)
	if err != nil {
		return "", c.fileError(err)
	}
	changed, err := change(doc)
	var dup *jsonedit.DuplicateKeyError
	var notObject *jsonedit.NotObjectError
	switch {
	case errors.As(err, &dup) || errors.As(err, &notObject):
		return "", c.fileError(err)
	case err != nil:
		return "", err
	case !changed:
		return "", nil
	}

	mode := fs.FileMode(0o600) // a new file may hold the bearer token; an existing one keeps its mode
	if exists {
		if fi, err := os.Stat(path); err == nil {
			mode = fi.Mode().Perm()
		}
		if backup, err = backUp(c.Path, old, mode, now); err != nil {
			return "", fmt.Errorf("back up %s: %w", c.Path, err)
		}
	} else if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	if err := atomicfile.Write(path, doc.Bytes(), mode); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
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
