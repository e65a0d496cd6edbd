// Package clients writes this server's entry into MCP clients' configuration files (Cursor, Claude Desktop, VS Code,
// Claude Code, Windsurf, Zed, Codex, Gemini CLI, LM Studio, Goose, OpenCode, Kiro, Cline, Continue, Crush) and
// renders the same entry as a snippet to paste or a one-click install link. A change edits the file as a careful
// person would: only the entry is written, and every other byte (comments, trailing commas, indentation, the order
// of keys, other tables and mappings) stays as it was; the old file is backed up first.
package clients

import (
	"encoding/json"
	"fmt"
	"path/filepath"
)

// serverName is this server's key in a client's list of servers.
const serverName = "gemini-search"

// Format is how a client's file is written.
type Format int

// Formats of the clients' files.
const (
	JSON Format = iota // JSON, or JSON with comments and trailing commas (VS Code's mcp.json, Zed's settings.json)
	TOML               // Codex's config.toml
	YAML               // Goose's and Continue's config.yaml
)

func (f Format) String() string { return [...]string{"JSON", "TOML", "YAML"}[f] }

// Client is one MCP client's configuration file and the entry this server should have in it.
type Client struct {
	ID     string   // its name on the command line: "cursor"
	Name   string   // "Cursor"
	Path   string   // its configuration file
	Format Format   // how the file is written
	Key    []string // where the servers are, from the top of the file: "mcpServers", or "mcp", "servers"…
	Entry  any      // this server's entry, encoded as JSON
	// ProjectFile is the client's file in a project's folder (".cursor/mcp.json"), for the servers of that project
	// alone; "" when the client has no such file.
	ProjectFile string
	home        string // the user's home, shown as ~ in messages
	server      Server // what the entry points at
	listKey     string // for servers listed as a sequence (Continue), the field that names each
	newFile     string // what a missing file starts as, when an empty one is not valid for the client
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

// IDs name the clients on the command line, in All's order.
var IDs = []string{"cursor", "claude-desktop", "vscode", "claude-code", "windsurf", "zed", "codex", "gemini-cli",
	"lm-studio", "goose", "opencode", "kiro", "cline", "continue", "crush"}

// All returns the clients this server can be added to, in menu order: each user-wide file.
func All(p Platform, s Server) []Client {
	all := []Client{cursor(p, s), claudeDesktop(p, s), vsCode(p, s), claudeCode(p, s), windsurf(p, s), zed(p, s),
		codex(p, s), geminiCLI(p, s), lmStudio(p, s), goose(p, s), openCode(p, s), kiro(p, s), cline(p, s),
		continueDev(p, s), crush(p, s)}
	for i := range all {
		all[i].ID, all[i].home, all[i].server = IDs[i], p.Home, s
	}
	return all
}

// InProject is the client with its project file in dir instead of its user-wide one; ok is false for a client
// that has no project file.
func (c Client) InProject(dir string) (project Client, ok bool) {
	if c.ProjectFile == "" {
		return c, false
	}
	c.Path = filepath.Join(dir, filepath.FromSlash(c.ProjectFile))
	return c, true
}

// entryOf is an entry of these members, in this order.
func entryOf(members ...member) object { return members }

// member is one member of an entry, in the order the entry is written.
type member struct {
	Key   string
	Value any
}

// object is an entry whose members keep their order when encoded as JSON, so that files and snippets read as
// people write them ("type" first, then "url").
type object []member

// MarshalJSON writes the members in order; a nil value is left out.
func (o object) MarshalJSON() ([]byte, error) {
	out := []byte{'{'}
	for _, m := range o {
		if m.Value == nil {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		key, _ := json.Marshal(m.Key)
		value, err := json.Marshal(m.Value)
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", m.Key, err)
		}
		out = append(append(append(out, key...), ':'), value...)
	}
	return append(out, '}'), nil
}

// headers is the bearer header the server asks for when it has a token; nil (left out) without one.
func headers(s Server) any {
	if s.AuthToken == "" {
		return nil
	}
	return map[string]string{"Authorization": "Bearer " + s.AuthToken}
}

// cursor reaches the server over HTTP; its user-wide file is ~/.cursor/mcp.json on every platform.
func cursor(p Platform, s Server) Client {
	return Client{Name: "Cursor", Path: filepath.Join(p.Home, ".cursor", "mcp.json"), Key: []string{"mcpServers"},
		Entry: entryOf(member{"url", s.URL}, member{"headers", headers(s)}), ProjectFile: ".cursor/mcp.json"}
}

// claudeDesktop starts stdio servers only, so its entry runs gemini-search-mcp.
func claudeDesktop(p Platform, s Server) Client {
	return Client{Name: "Claude Desktop", Path: filepath.Join(appConfigDir(p), "Claude", "claude_desktop_config.json"),
		Key: []string{"mcpServers"}, Entry: stdioEntry(s)}
}

// stdioEntry runs gemini-search-mcp, with the config dir and PATH of this server.
func stdioEntry(s Server) any {
	env := map[string]string{}
	if s.ConfigDir != "" {
		env["GEMINI_SEARCH_CONFIG_DIR"] = s.ConfigDir
	}
	if s.Path != "" {
		env["PATH"] = s.Path
	}
	entry := object{{"command", s.StdioCommand}, {"args", []string{}}}
	if len(env) > 0 {
		entry = append(entry, member{"env", env})
	}
	return entry
}

// vsCode reaches the server over HTTP; the entry goes into the user's mcp.json, or a workspace's .vscode/mcp.json.
func vsCode(p Platform, s Server) Client {
	return Client{Name: "VS Code", Path: filepath.Join(appConfigDir(p), "Code", "User", "mcp.json"),
		Key: []string{"servers"}, Entry: vsCodeEntry(s), ProjectFile: ".vscode/mcp.json"}
}

func vsCodeEntry(s Server) any {
	return entryOf(member{"type", "http"}, member{"url", s.URL}, member{"headers", headers(s)})
}

// claudeCode reaches the server over HTTP; `claude mcp add --scope user` keeps its entry in ~/.claude.json, and a
// project's in its .mcp.json.
func claudeCode(p Platform, s Server) Client {
	return Client{Name: "Claude Code", Path: filepath.Join(p.Home, ".claude.json"), Key: []string{"mcpServers"},
		Entry: vsCodeEntry(s), ProjectFile: ".mcp.json"}
}

// windsurf names the address of a remote server serverUrl; its file is ~/.codeium/windsurf/mcp_config.json.
func windsurf(p Platform, s Server) Client {
	return Client{Name: "Windsurf", Path: filepath.Join(p.Home, ".codeium", "windsurf", "mcp_config.json"),
		Key: []string{"mcpServers"}, Entry: entryOf(member{"serverUrl", s.URL}, member{"headers", headers(s)})}
}

// zed keeps its servers as context_servers in its settings.json (JSON with comments), or a project's
// .zed/settings.json.
func zed(p Platform, s Server) Client {
	dir := filepath.Join(xdgConfigDir(p), "zed")
	if p.GOOS == "windows" {
		dir = filepath.Join(appConfigDir(p), "Zed")
	}
	return Client{Name: "Zed", Path: filepath.Join(dir, "settings.json"), Key: []string{"context_servers"},
		Entry: entryOf(member{"url", s.URL}, member{"headers", headers(s)}), ProjectFile: ".zed/settings.json"}
}

// codex keeps its servers as [mcp_servers.<name>] tables of ~/.codex/config.toml, or a trusted project's
// .codex/config.toml; static headers are http_headers (Codex refuses an inline bearer_token).
func codex(p Platform, s Server) Client {
	return Client{Name: "Codex", Path: filepath.Join(p.Home, ".codex", "config.toml"), Format: TOML,
		Key: []string{"mcp_servers"}, Entry: entryOf(member{"url", s.URL}, member{"http_headers", headers(s)}),
		ProjectFile: ".codex/config.toml"}
}

// geminiCLI takes a Streamable HTTP server as httpUrl (its url is SSE), in ~/.gemini/settings.json or a project's
// .gemini/settings.json.
func geminiCLI(p Platform, s Server) Client {
	return Client{Name: "Gemini CLI", Path: filepath.Join(p.Home, ".gemini", "settings.json"),
		Key: []string{"mcpServers"}, Entry: entryOf(member{"httpUrl", s.URL}, member{"headers", headers(s)}),
		ProjectFile: ".gemini/settings.json"}
}

// lmStudio follows Cursor's notation, in ~/.lmstudio/mcp.json on every platform.
func lmStudio(p Platform, s Server) Client {
	return Client{Name: "LM Studio", Path: filepath.Join(p.Home, ".lmstudio", "mcp.json"), Key: []string{"mcpServers"},
		Entry: lmStudioEntry(s)}
}

func lmStudioEntry(s Server) any {
	return entryOf(member{"url", s.URL}, member{"headers", headers(s)})
}

// goose keeps its extensions in config.yaml: ~/.config/goose, or %APPDATA%\Block\goose\config on Windows.
func goose(p Platform, s Server) Client {
	dir := filepath.Join(xdgConfigDir(p), "goose")
	if p.GOOS == "windows" {
		dir = filepath.Join(appConfigDir(p), "Block", "goose", "config")
	}
	return Client{Name: "Goose", Path: filepath.Join(dir, "config.yaml"), Format: YAML, Key: []string{"extensions"},
		Entry: entryOf(member{"enabled", true}, member{"type", "streamable_http"}, member{"name", serverName},
			member{"description", "Web research through Gemini"}, member{"uri", s.URL}, member{"headers", headers(s)},
			member{"envs", map[string]string{}}, member{"env_keys", []string{}}, member{"timeout", 300})}
}

// openCode keeps its servers under mcp in ~/.config/opencode/opencode.json, or a project's opencode.json.
func openCode(p Platform, s Server) Client {
	return Client{Name: "OpenCode", Path: filepath.Join(xdgConfigDir(p), "opencode", "opencode.json"),
		Key: []string{"mcp"}, Entry: entryOf(member{"type", "remote"}, member{"url", s.URL},
			member{"headers", headers(s)}, member{"enabled", true}), ProjectFile: "opencode.json"}
}

// kiro keeps its servers in ~/.kiro/settings/mcp.json, or a workspace's .kiro/settings/mcp.json.
func kiro(p Platform, s Server) Client {
	return Client{Name: "Kiro", Path: filepath.Join(p.Home, ".kiro", "settings", "mcp.json"), Key: []string{"mcpServers"},
		Entry: entryOf(member{"url", s.URL}, member{"headers", headers(s)}), ProjectFile: ".kiro/settings/mcp.json"}
}

// cline is a VS Code extension: its file is in the extension's global storage. A url without a type would be
// taken for SSE.
func cline(p Platform, s Server) Client {
	return Client{Name: "Cline", Path: filepath.Join(appConfigDir(p), "Code", "User", "globalStorage",
		"saoudrizwan.claude-dev", "settings", "cline_mcp_settings.json"), Key: []string{"mcpServers"},
		Entry: entryOf(member{"type", "streamableHttp"}, member{"url", s.URL}, member{"headers", headers(s)},
			member{"disabled", false})}
}

// continueDev lists its servers, each with its name, in ~/.continue/config.yaml, which needs a name, version and
// schema of its own.
func continueDev(p Platform, s Server) Client {
	var options any
	if h := headers(s); h != nil {
		options = map[string]any{"headers": h}
	}
	return Client{Name: "Continue", Path: filepath.Join(p.Home, ".continue", "config.yaml"), Format: YAML,
		Key: []string{"mcpServers"}, listKey: "name", newFile: "name: Local Config\nversion: 1.0.0\nschema: v1\n",
		Entry: entryOf(member{"name", serverName}, member{"type", "streamable-http"}, member{"url", s.URL},
			member{"requestOptions", options})}
}

// crush keeps its servers under mcp in ~/.config/crush/crush.json (%LOCALAPPDATA%\crush on Windows), or a
// project's crush.json. Crush now prefers a Bash crushrc beside it, but still loads crush.json (deprecated, kept
// "for the foreseeable future") and merges the two, the crushrc winning where both set a key: the entry is read
// either way.
func crush(p Platform, s Server) Client {
	dir := filepath.Join(xdgConfigDir(p), "crush")
	if p.GOOS == "windows" {
		dir = filepath.Join(p.Home, "AppData", "Local", "crush")
	}
	return Client{Name: "Crush", Path: filepath.Join(dir, "crush.json"), Key: []string{"mcp"},
		Entry:       entryOf(member{"type", "http"}, member{"url", s.URL}, member{"headers", headers(s)}),
		ProjectFile: "crush.json"}
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
	return xdgConfigDir(p)
}

// xdgConfigDir is where command-line tools keep their settings on every platform but Windows, macOS included:
// $XDG_CONFIG_HOME, or ~/.config.
func xdgConfigDir(p Platform) string {
	if filepath.IsAbs(p.XDGConfigHome) {
		return p.XDGConfigHome
	}
	return filepath.Join(p.Home, ".config")
}

// path is where the entry stands in the file: the servers' key, then this server's name.
func (c Client) path() []string { return append(append([]string(nil), c.Key...), serverName) }

// entryJSON is the entry as the files hold it.
func (c Client) entryJSON() (json.RawMessage, error) {
	data, err := json.Marshal(c.Entry)
	if err != nil {
		return nil, fmt.Errorf("encode the %s entry: %w", c.Name, err)
	}
	return data, nil
}

// Snippet is the client's configuration with only this server, in the client's format, to paste by hand.
func (c Client) Snippet() (string, error) {
	entry, err := c.entryJSON()
	if err != nil {
		return "", err
	}
	doc, err := c.parse(nil)
	if err != nil {
		return "", err
	}
	if _, err := doc.Set(entry, c.path()...); err != nil {
		return "", err
	}
	return string(doc.Bytes()), nil
}
