package mcpserver

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// A folder handed to the agent (ask's workingDirectory) lets it read every file there, and the files the prompt
// names with @path. A stdio client is a process the user started, so it may hand over any folder, as the user's
// own Gemini CLI could read it. Any other client (Streamable HTTP: any local process, with no token by default)
// may hand over only a folder under GEMINI_WORKSPACE_ROOTS, and none when that is not set; and even there never a
// hidden folder (.ssh, .gnupg, .config, …) nor one inside or holding a private folder (the config dir with the
// .env file and its keys; the user's config, data, state and cache dirs). Every check is made on the folder with
// its symbolic links resolved, and the resolved folder is what the agent gets, so a link cannot be swapped in
// between the check and the run.

// Workspace is what decides which folders a client other than stdio may hand to the agent.
type Workspace struct {
	Roots   []string // GEMINI_WORKSPACE_ROOTS: absolute folders; none refuses every folder
	Private []string // absolute folders never handed over, nor any folder inside or holding one
}

// foldCase is true where file names are case-insensitive by default (macOS, Windows): there a path spelled in
// other case names the same folder, and must not slip past a check.
var foldCase = runtime.GOOS == "darwin" || runtime.GOOS == "windows"

// agentFolder checks dir, the folder a client would hand to the agent, against the rule of the transport the call
// came over, and returns the folder to hand over: dir made clean over stdio, with its links resolved otherwise.
// Its error follows "workingDirectory ".
func agentFolder(dir string, stdio bool, w Workspace) (string, error) {
	if !stdio && len(w.Roots) == 0 {
		return "", fmt.Errorf("is refused over HTTP because the server's GEMINI_WORKSPACE_ROOTS is not set: set "+
			"GEMINI_WORKSPACE_ROOTS to the folders (absolute paths, separated by %q) under which a client may name "+
			"one, or leave workingDirectory out", os.PathListSeparator)
	}
	if err := checkFolder(dir); err != nil {
		return "", err
	}
	if stdio {
		return filepath.Clean(dir), nil
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Errorf("%q cannot be resolved: %w", dir, err)
	}
	for _, p := range []string{filepath.Clean(dir), real} {
		if name := hiddenPart(p); name != "" {
			return "", fmt.Errorf("%q is or lies inside a hidden folder (%s): hidden folders hold keys and "+
				"settings, and are never handed to the agent over HTTP", dir, name)
		}
	}
	for _, p := range w.Private {
		rp := resolvedOrClean(p)
		if sameOrInside(rp, real) || sameOrInside(real, rp) {
			return "", fmt.Errorf("%q is, holds or lies inside %s, a folder of this server's settings and keys or "+
				"of other programs' data: it is never handed to the agent over HTTP", dir, p)
		}
	}
	for _, root := range w.Roots {
		if sameOrInside(resolvedOrClean(root), real) {
			return real, nil
		}
	}
	return "", fmt.Errorf("%q is not under GEMINI_WORKSPACE_ROOTS (%s): over HTTP the agent may be handed only a "+
		"folder under one of those", dir, strings.Join(w.Roots, string(os.PathListSeparator)))
}

// checkFolder says why dir cannot be a folder the agent looks into, or nil.
func checkFolder(dir string) error {
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("%q is not an absolute path", dir)
	}
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%q does not exist", dir)
	case err != nil:
		return fmt.Errorf("%q cannot be read: %v", dir, errors.Unwrap(err))
	case !info.IsDir():
		return fmt.Errorf("%q is not a folder", dir)
	}
	return nil
}

// hiddenPart is the first name in path, absolute and clean, that starts with a dot; "" when none does.
func hiddenPart(path string) string {
	for _, name := range strings.Split(filepath.ToSlash(path), "/") {
		if strings.HasPrefix(name, ".") {
			return name
		}
	}
	return ""
}

// resolvedOrClean is path with its links resolved as far as it exists, or only made clean when that fails.
func resolvedOrClean(path string) string {
	if real, err := resolveExisting(filepath.Clean(path)); err == nil {
		return real
	}
	return filepath.Clean(path)
}

// sameOrInside reports whether path is dir or lies inside it; both are absolute and clean.
func sameOrInside(dir, path string) bool {
	if foldCase {
		dir, path = strings.ToLower(dir), strings.ToLower(path)
	}
	return dir == path || inside(dir, path)
}
