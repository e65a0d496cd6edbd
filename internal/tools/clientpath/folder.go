// Package clientpath holds the rules for the paths a client names: where output_file may write a report, and which
// folder ask may hand to the agent (workingDirectory). A stdio client is a process the user started on this
// machine; any other (Streamable HTTP) is held to GEMINI_OUTPUT_DIR and GEMINI_WORKSPACE_ROOTS.
package clientpath

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/pathcheck"
)

// A folder handed to the agent (ask's workingDirectory) lets it read every file there, and the files the prompt
// names with @path. A stdio client is a process the user started, so it may hand over any folder, as the user's
// own Gemini CLI could read it. Any other client (Streamable HTTP: any local process, with no token by default)
// may hand over only a folder under GEMINI_WORKSPACE_ROOTS, and none when that is not set; and even there never a
// hidden folder (.ssh, .gnupg, .config, …) nor one inside or holding a private folder (the config dir with the
// .env file and its keys; the user's config, data, state and cache dirs).
//
// Over HTTP the path is first checked as written, made clean: absolute, under a root, not hidden and, on Windows,
// no network share or device (\\server\share, \\?\, \\.\), so that nothing on disk is opened for a path
// elsewhere (Windows would connect to the share with the user's credentials; macOS would mount /net/host). Only
// then is it looked at, its links resolved, and checked again: the resolved folder against the roots and the
// private folders by identity (os.SameFile), not by name, since macOS and Windows take names in other cases or
// Unicode normalizations for the same folder. The resolved folder is what the agent gets, so a link cannot be
// swapped in between the check and the run.

// Workspace is what decides which folders a client other than stdio may hand to the agent.
type Workspace struct {
	Roots   []string // GEMINI_WORKSPACE_ROOTS: absolute folders; none refuses every folder
	Private []string // absolute folders never handed over, nor any folder inside or holding one
}

// AgentFolder checks dir, the folder a client would hand to the agent, against the rule of the transport the call
// came over, and returns the folder to hand over: dir made clean over stdio, with its links resolved otherwise.
// Its error follows "workingDirectory ".
func AgentFolder(dir string, stdio bool, w Workspace) (string, error) {
	if !stdio && len(w.Roots) == 0 {
		return "", fmt.Errorf("is refused over HTTP because the server's GEMINI_WORKSPACE_ROOTS is not set: set "+
			"GEMINI_WORKSPACE_ROOTS to the folders (absolute paths, separated by %q) under which a client may name "+
			"one, or leave workingDirectory out", os.PathListSeparator)
	}
	if !filepath.IsAbs(dir) {
		return "", fmt.Errorf("%q is not an absolute path", dir)
	}
	clean := filepath.Clean(dir)
	if stdio {
		if err := checkFolder(clean); err != nil {
			return "", err
		}
		return clean, nil
	}
	if runtime.GOOS == "windows" && pathcheck.IsShareOrDevice(clean) {
		return "", fmt.Errorf("%q names a network share or a device: over HTTP the agent may be handed only a "+
			"folder on a local disk", dir)
	}
	if err := checkHidden(dir, clean); err != nil {
		return "", err
	}
	if !slices.ContainsFunc(w.Roots, func(root string) bool {
		return pathcheck.Within(filepath.Clean(root), clean) || pathcheck.Within(resolvedOrClean(root), clean)
	}) {
		return "", notUnderRoots(dir, w)
	}

	if err := checkFolder(clean); err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(clean)
	if err != nil {
		return "", fmt.Errorf("%q cannot be resolved: %w", dir, err)
	}
	if err := checkHidden(dir, real); err != nil {
		return "", err
	}
	for _, p := range w.Private {
		if under(p, real) || under(real, resolvedOrClean(p)) {
			return "", fmt.Errorf("%q is, holds or lies inside %s, a folder of this server's settings and keys or "+
				"of other programs' data: it is never handed to the agent over HTTP", dir, p)
		}
	}
	if !slices.ContainsFunc(w.Roots, func(root string) bool { return under(root, real) }) {
		return "", notUnderRoots(dir, w)
	}
	return real, nil
}

func notUnderRoots(dir string, w Workspace) error {
	return fmt.Errorf("%q is not under GEMINI_WORKSPACE_ROOTS (%s): over HTTP the agent may be handed only a "+
		"folder under one of those", dir, strings.Join(w.Roots, string(os.PathListSeparator)))
}

// checkHidden says, about dir, that path is or lies inside a hidden folder, or nil.
func checkHidden(dir, path string) error {
	if name := hiddenPart(path); name != "" {
		return fmt.Errorf("%q is or lies inside a hidden folder (%s): hidden folders hold keys and settings, and "+
			"are never handed to the agent over HTTP", dir, name)
	}
	return nil
}

// checkFolder says why dir, absolute, cannot be a folder the agent looks into, or nil.
func checkFolder(dir string) error {
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

// under reports whether path is the folder dir or lies inside it, comparing folders by identity (os.SameFile), not
// by name: a name in another case or Unicode normalization, or reached through a link, names the same folder. path
// must have its links resolved, so that each parent of its name is the parent of its folder; a path or dir that
// does not exist is under nothing, and nothing is under it.
func under(dir, path string) bool {
	want, err := os.Stat(dir)
	if err != nil {
		return false
	}
	for p := path; ; p = filepath.Dir(p) {
		if info, err := os.Stat(p); err == nil && os.SameFile(info, want) {
			return true
		}
		if filepath.Dir(p) == p {
			return false
		}
	}
}
