package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/atomicfile"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/pathcheck"
)

// output_file: search and deep_search can also write their report to a file. A stdio client is a process the user
// started on this machine, so it may name any path, a relative one resolved against the server's working directory.
// Any other client (Streamable HTTP) may write only inside GEMINI_OUTPUT_DIR, and not at all when it is not set.
// A call counts as stdio only when ServeStdio marked its context: the mark is the server's own, no client can set
// it, and a call without it (HTTP, an in-process client) gets the stricter rule.

// maxPathLen bounds a path argument (output_file, workingDirectory), in characters.
const maxPathLen = 4096

type stdioKey struct{}

// WithStdio marks ctx as the context of calls that came over stdio.
func WithStdio(ctx context.Context) context.Context {
	return context.WithValue(ctx, stdioKey{}, true)
}

func overStdio(ctx context.Context) bool {
	stdio, _ := ctx.Value(stdioKey{}).(bool)
	return stdio
}

func outputFileArgument() mcp.ToolOption {
	return mcp.WithString("output_file", mcp.MinLength(1), mcp.MaxLength(maxPathLen),
		mcp.Description("Also write the whole report (Markdown) to this file; the result's output_file says whether it "+
			"was written, and the report is returned either way. Over stdio: any path, a relative one resolved against "+
			"the server's working directory. Over HTTP: only inside the server's GEMINI_OUTPUT_DIR, a relative path "+
			"resolved under it; refused when GEMINI_OUTPUT_DIR is not set. Missing folders are created; an existing "+
			"file is replaced."))
}

// outputFile is where a call asked for its report to be written; the zero value asks for no file.
type outputFile struct {
	path string // absolute and clean, as the client named it
	dir  string // the folder the file must stay inside (GEMINI_OUTPUT_DIR); "" over stdio
}

// OutputFileStatus is the output_file of a report's structured content.
type OutputFileStatus struct {
	Path    string `json:"path"`
	Written bool   `json:"written"`
	Error   string `json:"error,omitempty"`
}

// outputPath resolves name, the output_file argument, without looking at any file. Over stdio any path goes, a
// relative one resolved against cwd. Otherwise the path must lie inside dir (GEMINI_OUTPUT_DIR: absolute and clean;
// "" refuses every path), a relative one resolved under it. confine then checks the symbolic links on the way.
func outputPath(name string, stdio bool, cwd, dir string) (outputFile, error) {
	if strings.TrimSpace(name) == "" {
		return outputFile{}, errors.New("output_file must name a file, not only white space")
	}
	if strings.HasSuffix(name, "/") || strings.HasSuffix(name, string(filepath.Separator)) {
		return outputFile{}, fmt.Errorf("output_file %q names a folder: give a file name, like report.md", name)
	}
	if stdio {
		if filepath.IsAbs(name) {
			return outputFile{path: filepath.Clean(name)}, nil
		}
		if !filepath.IsAbs(cwd) {
			return outputFile{}, fmt.Errorf("output_file %q is relative, and the server's working directory is "+
				"unknown: give an absolute path", name)
		}
		return outputFile{path: filepath.Join(cwd, name)}, nil
	}
	if dir == "" {
		return outputFile{}, errors.New("output_file is refused over HTTP because the server's GEMINI_OUTPUT_DIR is not " +
			"set: set GEMINI_OUTPUT_DIR to the folder where reports may be written (a relative output_file is then " +
			"resolved under it), or leave output_file out")
	}
	path := filepath.Clean(name)
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, name)
	}
	if !pathcheck.Inside(dir, path) {
		return outputFile{}, fmt.Errorf("output_file %q is outside GEMINI_OUTPUT_DIR (%s): over HTTP a report may be "+
			"written only inside that folder; give a path relative to it", name, dir)
	}
	return outputFile{path: path, dir: dir}, nil
}

// confine checks that no symbolic link leads o's path out of its folder. Over stdio it has nothing to check.
func confine(o outputFile) error {
	if o.dir == "" {
		return nil
	}
	dir, err := resolveExisting(o.dir)
	if err == nil {
		var path string
		if path, err = resolveExisting(o.path); err == nil && !pathcheck.Inside(dir, path) {
			return fmt.Errorf("output_file %s leads outside GEMINI_OUTPUT_DIR (%s) through a symbolic link: over HTTP "+
				"a report may be written only inside that folder", o.path, o.dir)
		}
	}
	if err != nil {
		return fmt.Errorf("output_file %s cannot be checked: %w", o.path, err)
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

// outputFile reads name, a call's output_file argument ("" for none), and applies the rule of the transport the
// call came over. A refusal is an *Error, before any research runs.
func (t *Tools) outputFile(ctx context.Context, tool, name string) (outputFile, error) {
	if name == "" {
		return outputFile{}, nil
	}
	stdio := overStdio(ctx)
	var cwd string
	if stdio {
		cwd, _ = os.Getwd() // "" when unknown: outputPath then refuses relative paths
	}
	o, err := outputPath(name, stdio, cwd, t.opts.OutputDir())
	if err == nil {
		err = confine(o)
	}
	if err != nil {
		return outputFile{}, &Error{Code: backend.CodeInvalidArgument, Message: fmt.Sprintf("invalid arguments for %s: %v", tool, err)}
	}
	return o, nil
}

// writeReport writes report to o (creating missing folders 0700, the file 0600, atomically) and says how it went.
// The folder's links are checked again first: they may have changed while the research ran.
func (t *Tools) writeReport(o outputFile, report string) *OutputFileStatus {
	err := confine(o)
	if err == nil {
		if info, serr := os.Stat(o.path); serr == nil && info.IsDir() {
			err = fmt.Errorf("%s is a folder, not a file", o.path)
		}
	}
	if err == nil {
		err = os.MkdirAll(filepath.Dir(o.path), 0o700)
	}
	if err == nil {
		err = atomicfile.Write(o.path, []byte(report), 0o600)
	}
	if err != nil {
		t.opts.Logger.Warn("could not write the report to output_file", "path", o.path, "err", err)
		return &OutputFileStatus{Path: o.path, Error: err.Error()}
	}
	t.opts.Logger.Info("wrote the report to output_file", "path", o.path)
	return &OutputFileStatus{Path: o.path, Written: true}
}
