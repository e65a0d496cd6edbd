package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/atomicfile"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools/clientpath"
)

// output_file: search and deep_search can also write their report to a file, where the rules of clientpath allow.
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

// OutputFileStatus is the output_file of a report's structured content.
type OutputFileStatus struct {
	Path    string `json:"path"`
	Written bool   `json:"written"`
	Error   string `json:"error,omitempty"`
}

// outputFile reads name, a call's output_file argument ("" for none), and applies the rule of the transport the
// call came over. A refusal is an *Error, before any research runs.
func (t *Tools) outputFile(ctx context.Context, tool, name string) (clientpath.Output, error) {
	if name == "" {
		return clientpath.Output{}, nil
	}
	stdio := overStdio(ctx)
	var cwd string
	if stdio {
		cwd, _ = os.Getwd() // "" when unknown: OutputPath then refuses relative paths
	}
	o, err := clientpath.OutputPath(name, stdio, cwd, t.opts.OutputDir())
	if err == nil {
		err = o.Confine()
	}
	switch {
	case err != nil && remoteFrom(ctx) != nil:
		// Research followed on after a restart, whose call was checked when it came: the path read then may read
		// otherwise now (the transport is not known any more). The report is in the library: it is not lost for
		// its file.
		t.opts.Logger.Warn("the research followed on after a restart writes no output_file", "output_file", name, "err", err)
		return clientpath.Output{}, nil
	case err != nil:
		return clientpath.Output{}, &Error{Code: backend.CodeInvalidArgument, Message: fmt.Sprintf("invalid arguments for %s: %v", tool, err)}
	}
	return o, nil
}

// writeReport writes report to o (creating missing folders 0700, the file 0600, atomically) and says how it went.
// The folder's links are checked again first: they may have changed while the research ran.
func (t *Tools) writeReport(o clientpath.Output, report string) *OutputFileStatus {
	err := o.Confine()
	if err == nil {
		if info, serr := os.Stat(o.Path); serr == nil && info.IsDir() {
			err = fmt.Errorf("%s is a folder, not a file", o.Path)
		}
	}
	if err == nil {
		err = os.MkdirAll(filepath.Dir(o.Path), 0o700)
	}
	if err == nil {
		err = atomicfile.Write(o.Path, []byte(report), 0o600)
	}
	if err != nil {
		t.opts.Logger.Warn("could not write the report to output_file", "path", o.Path, "err", err)
		return &OutputFileStatus{Path: o.Path, Error: err.Error()}
	}
	t.opts.Logger.Info("wrote the report to output_file", "path", o.Path)
	return &OutputFileStatus{Path: o.Path, Written: true}
}
