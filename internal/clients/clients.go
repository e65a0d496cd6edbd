// Package clients writes this server's entry into MCP clients' configuration files (Cursor, Claude Desktop,
// VS Code, Claude Code) and renders the same entry as a snippet to paste. A change edits the file as a careful
// person would: only the entry is written, and every other byte (comments, trailing commas, indentation, the
// order of keys) stays as it was; the old file is backed up first.
package clients

import (
	"path/filepath"

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
	home       string // the user's home, shown as ~ in messages
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
	all := []Client{cursor(p, s), claudeDesktop(p, s), vsCode(p, s), claudeCode(p, s)}
	for i := range all {
		all[i].home = p.Home
	}
	return all
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
