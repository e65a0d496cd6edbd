package clientpath

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/pathcheck"
)

// output_file: search and deep_search can also write their report to a file. A stdio client may name any path, a
// relative one resolved against the server's working directory. Any other client (Streamable HTTP) may write only
// inside GEMINI_OUTPUT_DIR, and not at all when it is not set.

// Output is where a call asked for its report to be written; the zero value asks for no file.
type Output struct {
	Path string // absolute and clean, as the client named it
	dir  string // the folder the file must stay inside (GEMINI_OUTPUT_DIR); "" over stdio
}

// OutputPath resolves name, the output_file argument, without looking at any file. Over stdio any path goes, a
// relative one resolved against cwd. Otherwise the path must lie inside dir (GEMINI_OUTPUT_DIR: absolute and clean;
// "" refuses every path), a relative one resolved under it. Confine then checks the symbolic links on the way.
func OutputPath(name string, stdio bool, cwd, dir string) (Output, error) {
	if strings.TrimSpace(name) == "" {
		return Output{}, errors.New("output_file must name a file, not only white space")
	}
	if strings.HasSuffix(name, "/") || strings.HasSuffix(name, string(filepath.Separator)) {
		return Output{}, fmt.Errorf("output_file %q names a folder: give a file name, like report.md", name)
	}
	if stdio {
		if filepath.IsAbs(name) {
			return Output{Path: filepath.Clean(name)}, nil
		}
		if !filepath.IsAbs(cwd) {
			return Output{}, fmt.Errorf("output_file %q is relative, and the server's working directory is "+
				"unknown: give an absolute path", name)
		}
		return Output{Path: filepath.Join(cwd, name)}, nil
	}
	if dir == "" {
		return Output{}, errors.New("output_file is refused over HTTP because the server's GEMINI_OUTPUT_DIR is not " +
			"set: set GEMINI_OUTPUT_DIR to the folder where reports may be written (a relative output_file is then " +
			"resolved under it), or leave output_file out")
	}
	path := filepath.Clean(name)
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, name)
	}
	if !pathcheck.Inside(dir, path) {
		return Output{}, fmt.Errorf("output_file %q is outside GEMINI_OUTPUT_DIR (%s): over HTTP a report may be "+
			"written only inside that folder; give a path relative to it", name, dir)
	}
	return Output{Path: path, dir: dir}, nil
}

// Confine checks that no symbolic link leads o's path out of its folder. Over stdio it has nothing to check.
func (o Output) Confine() error {
	if o.dir == "" {
		return nil
	}
	dir, err := resolveExisting(o.dir)
	if err == nil {
		var path string
		if path, err = resolveExisting(o.Path); err == nil && !pathcheck.Inside(dir, path) {
			return fmt.Errorf("output_file %s leads outside GEMINI_OUTPUT_DIR (%s) through a symbolic link: over HTTP "+
				"a report may be written only inside that folder", o.Path, o.dir)
		}
	}
	if err != nil {
		return fmt.Errorf("output_file %s cannot be checked: %w", o.Path, err)
	}
	return nil
}

// resolveExisting is path with the symbolic links of its longest existing prefix resolved, a link to nothing
// included (writing there would create its target); the rest does not exist, so it holds no link.
func resolveExisting(path string) (string, error) {
	return resolveExistingDepth(path, 0)
}

func resolveExistingDepth(path string, depth int) (string, error) {
	if depth > 40 {
		return "", fmt.Errorf("%s: too many symbolic links", path)
	}
	rest := ""
	for cur := path; ; {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		if target, lerr := os.Readlink(cur); lerr == nil { // a link to nothing: follow it by hand
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(cur), target)
			}
			real, err := resolveExistingDepth(target, depth+1)
			if err != nil {
				return "", err
			}
			return filepath.Join(real, rest), nil
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return path, nil
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}
