// Package clients writes this server's entry into MCP clients' configuration files (Cursor, Claude Desktop,
// VS Code) and renders the same entry as a snippet to paste. Merging keeps every other server and key of the
// file as it was, and backs the old file up first.
package clients

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/atomicfile"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/jsonedit"
)

// serverName is this server's key in a client's list of servers.
const serverName = "gemini-search"

// Client is one MCP client's configuration file and the entry this server should have in it.
type Client struct {
	Name       string // "Cursor"
	Path       string // its configuration file
	ServersKey string // the top-level key holding the servers: "mcpServers" or "servers"
	Entry      any    // this server's entry, encoded as JSON
}

// Server is what the entries point at.
type Server struct {
	URL          string // the MCP endpoint, http://127.0.0.1:3000/mcp
	AuthToken    string // MCP_AUTH_TOKEN, sent as a bearer token when set
	StdioCommand string // the gemini-search-mcp executable, for clients that only start stdio servers
	ConfigDir    string // set when the config dir is not the default one, so a stdio server finds the same one
	// Path is the PATH a stdio server needs to find the Gemini CLI and Node, for a client started from the dock,
	// which does not inherit a shell's PATH; "" adds none.
	Path string
}

// Platform is where the clients keep their files.
type Platform struct {
	GOOS          string
	Home          string
	AppData       string // %APPDATA% on Windows
	XDGConfigHome string // $XDG_CONFIG_HOME (~/.config) on Linux
}

type httpEntry struct {
	Type    string            `json:"type,omitempty"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers,omitempty"`
}

type stdioEntry struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env,omitempty"`
}

func headers(s Server) map[string]string {
	if s.AuthToken == "" {
		return nil
	}
	return map[string]string{"Authorization": "Bearer " + s.AuthToken}
}

// All returns the clients the tray can connect, in menu order.
func All(p Platform, s Server) []Client {
	return []Client{cursor(p, s), claudeDesktop(p, s), vsCode(p, s), claudeCode(p, s)}
}

// IDs name the clients on the command line, in All's order.
var IDs = []string{"cursor", "claude-desktop", "vscode", "claude-code"}

// cursor reaches the server over HTTP; its user-wide file is ~/.cursor/mcp.json on every platform.
func cursor(p Platform, s Server) Client {
	return Client{
		Name:       "Cursor",
		Path:       filepath.Join(p.Home, ".cursor", "mcp.json"),
		ServersKey: "mcpServers",
		Entry:      httpEntry{URL: s.URL, Headers: headers(s)},
	}
}

// claudeDesktop starts stdio servers only, so its entry runs gemini-search-mcp.
func claudeDesktop(p Platform, s Server) Client {
	entry := stdioEntry{Command: s.StdioCommand, Args: []string{}, Env: map[string]string{}}
	if s.ConfigDir != "" {
		entry.Env["GEMINI_SEARCH_CONFIG_DIR"] = s.ConfigDir
	}
	if s.Path != "" {
		entry.Env["PATH"] = s.Path
	}
	if len(entry.Env) == 0 {
		entry.Env = nil
	}
	return Client{
		Name:       "Claude Desktop",
		Path:       filepath.Join(appConfigDir(p), "Claude", "claude_desktop_config.json"),
		ServersKey: "mcpServers",
		Entry:      entry,
	}
}

// vsCode reaches the server over HTTP; the entry goes into the user's mcp.json.
func vsCode(p Platform, s Server) Client {
	return Client{
		Name:       "VS Code",
		Path:       filepath.Join(appConfigDir(p), "Code", "User", "mcp.json"),
		ServersKey: "servers",
		Entry:      httpEntry{Type: "http", URL: s.URL, Headers: headers(s)},
	}
}

// claudeCode reaches the server over HTTP; `claude mcp add --scope user` keeps its entry in ~/.claude.json.
func claudeCode(p Platform, s Server) Client {
	return Client{
		Name:       "Claude Code",
		Path:       filepath.Join(p.Home, ".claude.json"),
		ServersKey: "mcpServers",
		Entry:      httpEntry{Type: "http", URL: s.URL, Headers: headers(s)},
	}
}

// appConfigDir is where desktop apps keep their settings: %APPDATA%, ~/Library/Application Support, or
// $XDG_CONFIG_HOME.
func appConfigDir(p Platform) string {
	switch p.GOOS {
	case "windows":
		if p.AppData != "" {
			return p.AppData
		}
		return filepath.Join(p.Home, "AppData", "Roaming")
	case "darwin":
		return filepath.Join(p.Home, "Library", "Application Support")
	}
	if filepath.IsAbs(p.XDGConfigHome) {
		return p.XDGConfigHome
	}
	return filepath.Join(p.Home, ".config")
}

// Snippet is the client's configuration with only this server, to paste by hand.
func (c Client) Snippet() (string, error) {
	servers := jsonedit.Object{}
	if err := servers.SetValue(serverName, c.Entry); err != nil {
		return "", err
	}
	data, err := servers.MarshalJSON()
	if err != nil {
		return "", err
	}
	out, err := jsonedit.Object{{Key: c.ServersKey, Value: data}}.Format()
	return string(out), err
}

// Connect writes this server's entry into the client's file, creating the file when missing, and changes
// nothing else in it. When the file changes, the old one is first copied to <file>.<time>.bak, whose path is
// returned. A file that is not a JSON object is left alone.
func (c Client) Connect(now time.Time) (backup string, err error) {
	return c.edit(now, func(servers *jsonedit.Object) error { return servers.SetValue(serverName, c.Entry) })
}

// Disconnect removes this server's entry from the client's file, and nothing else, with the same backup as
// Connect; a file without the entry is left alone.
func (c Client) Disconnect(now time.Time) (backup string, err error) {
	if _, err := os.Stat(c.Path); errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	return c.edit(now, func(servers *jsonedit.Object) error { servers.Delete(serverName); return nil })
}

// State is how a client's file stands towards this server.
type State int

// States of a client.
const (
	NotConnected State = iota // no entry for this server
	Connected                 // the entry this server would write now
	Outdated                  // an entry that points elsewhere: an old port, path or token
)

func (s State) String() string {
	return [...]string{"not connected", "connected", "connected to an old address"}[s]
}

// State reads the client's file: whether it has this server's entry, and whether that entry is the current one.
func (c Client) State() State {
	data, err := os.ReadFile(c.Path)
	if err != nil {
		return NotConnected
	}
	config, err := jsonedit.Parse(data)
	if err != nil {
		return NotConnected
	}
	servers, _ := config.Object(c.ServersKey)
	have, ok := servers.Get(serverName)
	if !ok {
		return NotConnected
	}
	want, err := json.Marshal(c.Entry)
	if err == nil && sameJSON(have, want) {
		return Connected
	}
	return Outdated
}

// edit applies change to the servers object of the client's file (made when missing) and writes the file when
// that changed it, after a backup of the old one.
func (c Client) edit(now time.Time, change func(servers *jsonedit.Object) error) (backup string, err error) {
	old, err := os.ReadFile(c.Path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("read %s: %w", c.Path, err)
	}
	config, err := jsonedit.Parse(old)
	if err != nil {
		return "", fmt.Errorf("%s is not a JSON object (%v): edit the entry by hand (\"Copy %s config\" has it)", c.Path, err, c.Name)
	}
	servers, ok := config.Object(c.ServersKey)
	if _, present := config.Get(c.ServersKey); present && !ok {
		return "", fmt.Errorf("%s: %q is not an object: edit the entry by hand (\"Copy %s config\" has it)", c.Path, c.ServersKey, c.Name)
	}
	if err := change(&servers); err != nil {
		return "", err
	}
	serversJSON, err := servers.MarshalJSON()
	if err != nil {
		return "", err
	}
	config.Set(c.ServersKey, serversJSON)
	out, err := config.Format()
	if err != nil {
		return "", err
	}
	if exists && sameJSON(old, out) {
		return "", nil
	}

	mode := fs.FileMode(0o600) // a new file may hold the bearer token; an existing one keeps its mode
	if exists {
		if fi, err := os.Stat(c.Path); err == nil {
			mode = fi.Mode().Perm()
		}
		backup = fmt.Sprintf("%s.%s.bak", c.Path, now.Format("20060102-150405"))
		if err := os.WriteFile(backup, old, mode); err != nil {
			return "", fmt.Errorf("back up %s: %w", c.Path, err)
		}
	} else if err := os.MkdirAll(filepath.Dir(c.Path), 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", filepath.Dir(c.Path), err)
	}
	if err := replaceFile(c.Path, out, mode); err != nil {
		return "", err
	}
	return backup, nil
}

// sameJSON reports whether a and b hold the same JSON, formatting aside.
func sameJSON(a, b []byte) bool {
	oa, err1 := jsonedit.Parse(a)
	ob, err2 := jsonedit.Parse(b)
	if err1 != nil || err2 != nil {
		return false
	}
	ca, err1 := oa.MarshalJSON()
	cb, err2 := ob.MarshalJSON()
	return err1 == nil && err2 == nil && bytes.Equal(ca, cb)
}

// replaceFile writes data atomically, so the client never reads half a file.
func replaceFile(path string, data []byte, mode fs.FileMode) error {
	if err := atomicfile.Write(path, data, mode); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
