// Package atomicfile writes files so that readers (the Gemini CLI, an MCP client, a file watcher) see either the old
// contents or the new, never a half-written file.
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Write writes data to a temporary file next to path, syncs it, gives it mode perm and renames it over path. On
// failure the temporary file is removed and path is untouched. When path is a symbolic link (dotfiles managers
// link config files into a repository), the file it points to is replaced and the link stays.
func Write(path string, data []byte, perm fs.FileMode) error {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*.tmp")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
