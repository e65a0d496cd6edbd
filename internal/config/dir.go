package config

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/adrg/xdg"
)

// appName names the config directory on every platform.
const appName = "gemini-search-mcp"

// DirVar is the environment variable that replaces the platform's config
// directory. It is read from the process environment only: the .env file
// lives inside that directory.
const DirVar = "GEMINI_SEARCH_CONFIG_DIR"

// Env is everything platform-specific that Load and defaultDir read, so that
// both can be tested for every platform on any platform. OSEnv returns the
// real one.
type Env struct {
	Lookup        func(string) (string, bool) // process environment; nil means empty
	GOOS          string                      // runtime.GOOS
	Home          string                      // the user's home directory
	XDGConfigHome string                      // adrg/xdg's ConfigHome (honours XDG_CONFIG_HOME)
	XDGCacheHome  string                      // adrg/xdg's CacheHome (honours XDG_CACHE_HOME); "": no history
	XDGStateHome  string                      // adrg/xdg's StateHome (honours XDG_STATE_HOME); "": no run records
	XDGDataHome   string                      // adrg/xdg's DataHome (honours XDG_DATA_HOME); "": no library
	AppData       string                      // %APPDATA% on Windows
}

// OSEnv returns the Env of the running process.
func OSEnv() Env {
	home, _ := os.UserHomeDir() // "" when unknown; defaultDir copes
	return Env{
		Lookup:        os.LookupEnv,
		GOOS:          runtime.GOOS,
		Home:          home,
		XDGConfigHome: xdg.ConfigHome,
		XDGCacheHome:  xdg.CacheHome,
		XDGStateHome:  xdg.StateHome,
		XDGDataHome:   xdg.DataHome,
		AppData:       os.Getenv("APPDATA"),
	}
}

// lookup returns the trimmed value of name in the process environment and
// whether it is set to something other than blanks.
func (e Env) lookup(name string) (string, bool) {
	if e.Lookup == nil {
		return "", false
	}
	v, _ := e.Lookup(name)
	v = strings.TrimSpace(v)
	return v, v != ""
}

// defaultDir returns the directory holding .env and the Gemini CLI workspace:
// $GEMINI_SEARCH_CONFIG_DIR when set (a leading ~ is the home directory,
// relative paths are made absolute), else
//
//	linux and other unix: $XDG_CONFIG_HOME/gemini-search-mcp (~/.config/gemini-search-mcp)
//	darwin:               ~/Library/Application Support/gemini-search-mcp
//	windows:              %APPDATA%\gemini-search-mcp (roaming, not LOCALAPPDATA)
//
// It returns "" when the home directory is needed but unknown.
func defaultDir(e Env) string {
	if dir, ok := e.lookup(DirVar); ok {
		return absPath(expandHome(dir, e.Home))
	}
	switch e.GOOS {
	case "windows":
		base := e.AppData
		if base == "" {
			if e.Home == "" {
				return ""
			}
			base = filepath.Join(e.Home, "AppData", "Roaming")
		}
		return filepath.Join(base, appName)
	case "darwin":
		if e.Home == "" {
			return ""
		}
		return filepath.Join(e.Home, "Library", "Application Support", appName)
	default:
		base := e.XDGConfigHome
		if !filepath.IsAbs(base) { // the XDG spec ignores relative values
			if e.Home == "" {
				return ""
			}
			base = filepath.Join(e.Home, ".config")
		}
		return filepath.Join(base, appName)
	}
}

// expandHome replaces a leading "~" with home, since MCP clients start
// servers without a shell that would do it.
func expandHome(path, home string) string {
	if home == "" || !strings.HasPrefix(path, "~") {
		return path
	}
	rest := path[1:]
	if rest == "" || rest[0] == '/' || rest[0] == filepath.Separator {
		return filepath.Join(home, rest)
	}
	return path // ~user/... is not supported
}

func absPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	return abs
}

// libraryPath returns the research library's database: gemini-search-mcp/library.db in the user's data dir, which
// adrg/xdg finds for every platform (~/.local/share on Linux, ~/Library/Application Support on macOS,
// %LOCALAPPDATA% on Windows) and XDG_DATA_HOME replaces on every platform: not the cache dir, which the system or
// the user may wipe. It returns "" when the data dir is unknown or relative, and the server then keeps no library.
func libraryPath(e Env) string {
	if !filepath.IsAbs(e.XDGDataHome) {
		return ""
	}
	return filepath.Join(e.XDGDataHome, appName, "library.db")
}

// historyDir returns the folder where releases before the library kept their reports: gemini-search-mcp/history in
// the user's cache dir, which adrg/xdg finds for every platform (~/.cache on Linux, ~/Library/Caches on macOS,
// %LOCALAPPDATA%\cache on Windows) and XDG_CACHE_HOME replaces on every platform. The library imports them once.
// It returns "" when the cache dir is unknown or relative.
func historyDir(e Env) string {
	if !filepath.IsAbs(e.XDGCacheHome) {
		return ""
	}
	return filepath.Join(e.XDGCacheHome, appName, "history")
}

// runsDir is where the Gemini CLI runs in progress are recorded, in the user's state dir, so that a server started
// after a crash can end what its predecessor left running. "" when the state dir is unknown or relative.
func runsDir(e Env) string {
	if !filepath.IsAbs(e.XDGStateHome) {
		return ""
	}
	return filepath.Join(e.XDGStateHome, appName, "runs")
}

// privateDirs are the folders whose files must never reach the agent: the config dir (dir, which holds the .env
// file with the keys), the user's config, data, state and cache dirs (where this program and others keep theirs),
// on Windows %APPDATA% and on macOS ~/Library (Keychains, Mail, Cookies besides those dirs). Unknown or relative
// ones are left out.
func privateDirs(e Env, dir string) []string {
	var library string
	if e.GOOS == "darwin" && e.Home != "" {
		library = filepath.Join(e.Home, "Library")
	}
	var dirs []string
	for _, d := range []string{dir, e.XDGConfigHome, e.XDGDataHome, e.XDGStateHome, e.XDGCacheHome, e.AppData, library} {
		if filepath.IsAbs(d) && !slices.Contains(dirs, filepath.Clean(d)) {
			dirs = append(dirs, filepath.Clean(d))
		}
	}
	return dirs
}
