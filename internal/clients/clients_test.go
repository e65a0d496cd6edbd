package clients

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/jsonedit"
)

var server = Server{URL: "http://127.0.0.1:3000/mcp", StdioCommand: "/opt/gsm/gemini-search-mcp"}

func TestPaths(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		p    Platform
		want []string // in All's order
	}{
		{"linux", Platform{GOOS: "linux", Home: "/home/me", XDGConfigHome: "/home/me/.cfg"}, []string{
			"/home/me/.cursor/mcp.json", "/home/me/.cfg/Claude/claude_desktop_config.json", "/home/me/.cfg/Code/User/mcp.json",
			"/home/me/.claude.json", "/home/me/.codeium/windsurf/mcp_config.json", "/home/me/.cfg/zed/settings.json",
			"/home/me/.codex/config.toml", "/home/me/.gemini/settings.json", "/home/me/.lmstudio/mcp.json",
			"/home/me/.cfg/goose/config.yaml", "/home/me/.cfg/opencode/opencode.json", "/home/me/.kiro/settings/mcp.json",
			"/home/me/.cfg/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
			"/home/me/.continue/config.yaml", "/home/me/.cfg/crush/crush.json"}},
		{"linux relative XDG is ignored", Platform{GOOS: "linux", Home: "/home/me", XDGConfigHome: "cfg"}, []string{
			"/home/me/.cursor/mcp.json", "/home/me/.config/Claude/claude_desktop_config.json", "/home/me/.config/Code/User/mcp.json",
			"/home/me/.claude.json", "/home/me/.codeium/windsurf/mcp_config.json", "/home/me/.config/zed/settings.json",
			"/home/me/.codex/config.toml", "/home/me/.gemini/settings.json", "/home/me/.lmstudio/mcp.json",
			"/home/me/.config/goose/config.yaml", "/home/me/.config/opencode/opencode.json", "/home/me/.kiro/settings/mcp.json",
			"/home/me/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
			"/home/me/.continue/config.yaml", "/home/me/.config/crush/crush.json"}},
		{"darwin", Platform{GOOS: "darwin", Home: "/Users/me"}, []string{
			"/Users/me/.cursor/mcp.json", "/Users/me/Library/Application Support/Claude/claude_desktop_config.json",
			"/Users/me/Library/Application Support/Code/User/mcp.json", "/Users/me/.claude.json",
			"/Users/me/.codeium/windsurf/mcp_config.json", "/Users/me/.config/zed/settings.json",
			"/Users/me/.codex/config.toml", "/Users/me/.gemini/settings.json", "/Users/me/.lmstudio/mcp.json",
			"/Users/me/.config/goose/config.yaml", "/Users/me/.config/opencode/opencode.json",
			"/Users/me/.kiro/settings/mcp.json",
			"/Users/me/Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
			"/Users/me/.continue/config.yaml", "/Users/me/.config/crush/crush.json"}},
		{"windows", Platform{GOOS: "windows", Home: "/c/me", AppData: "/c/me/AppData/Roaming"}, []string{
			"/c/me/.cursor/mcp.json", "/c/me/AppData/Roaming/Claude/claude_desktop_config.json",
			"/c/me/AppData/Roaming/Code/User/mcp.json", "/c/me/.claude.json", "/c/me/.codeium/windsurf/mcp_config.json",
			"/c/me/AppData/Roaming/Zed/settings.json", "/c/me/.codex/config.toml", "/c/me/.gemini/settings.json",
			"/c/me/.lmstudio/mcp.json", "/c/me/AppData/Roaming/Block/goose/config/config.yaml",
			"/c/me/.config/opencode/opencode.json", "/c/me/.kiro/settings/mcp.json",
			"/c/me/AppData/Roaming/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
			"/c/me/.continue/config.yaml", "/c/me/AppData/Local/crush/crush.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, c := range All(tt.p, server) {
				got = append(got, filepath.ToSlash(c.Path))
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q,\nwant %q", got, tt.want)
			}
		})
	}
}

// TestEveryClient: at least twelve clients, each named on the command line by its own ID, and each snippet in its
// file's format reads back as the entry.
func TestEveryClient(t *testing.T) {
	t.Parallel()
	all := All(Platform{GOOS: "linux", Home: "/home/me"}, Server{URL: server.URL, AuthToken: "tok", StdioCommand: "/x"})
	if len(all) < 12 || len(all) != len(IDs) {
		t.Fatalf("%d clients, %d IDs: want the same number, at least 12", len(all), len(IDs))
	}
	seen := map[string]bool{}
	for i, c := range all {
		if c.ID != IDs[i] || seen[c.ID] || c.Name == "" {
			t.Errorf("client %d: ID %q, name %q", i, c.ID, c.Name)
		}
		seen[c.ID] = true
		snippet, err := c.Snippet()
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		doc, err := c.parse([]byte(snippet))
		if err != nil {
			t.Fatalf("%s: the snippet does not read back: %v\n%s", c.Name, err, snippet)
		}
		have, found, err := doc.Get(c.path()...)
		want, _ := c.entryJSON()
		if err != nil || !found || !jsonedit.Equal(have, want) {
			t.Errorf("%s: the snippet holds %s (%v), want %s", c.Name, have, err, want)
		}
		if c.ID != "claude-desktop" && !strings.Contains(snippet, "Bearer tok") {
			t.Errorf("%s: no bearer header in\n%s", c.Name, snippet)
		}
	}
}

func TestSnippet(t *testing.T) {
	t.Parallel()
	p := Platform{GOOS: "linux", Home: "/home/me"}
	tests := []struct {
		client Client
		want   string
	}{
		{cursor(p, server), `{"mcpServers":{"gemini-search":{"url":"http://127.0.0.1:3000/mcp"}}}`},
		{cursor(p, Server{URL: server.URL, AuthToken: "tok"}), `{"mcpServers":{"gemini-search":{"url":"http://127.0.0.1:3000/mcp","headers":{"Authorization":"Bearer tok"}}}}`},
		{claudeDesktop(p, server), `{"mcpServers":{"gemini-search":{"command":"/opt/gsm/gemini-search-mcp","args":[]}}}`},
		{claudeDesktop(p, Server{StdioCommand: "/x", ConfigDir: "/cfg"}), `{"mcpServers":{"gemini-search":{"command":"/x","args":[],"env":{"GEMINI_SEARCH_CONFIG_DIR":"/cfg"}}}}`},
		{vsCode(p, server), `{"servers":{"gemini-search":{"type":"http","url":"http://127.0.0.1:3000/mcp"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.client.Name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.client.Snippet()
			if err != nil {
				t.Fatal(err)
			}
			if c := compact(t, []byte(got)); c != tt.want {
				t.Errorf("got %s, want %s", c, tt.want)
			}
		})
	}
}

func compact(t *testing.T, data []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, data); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestConnect(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 1, 2, 3, 0, time.UTC)
	tests := []struct {
		name       string
		existing   string // "" for no file
		want       string // compact JSON of the result
		wantFile   string // or the file's bytes
		wantBackup bool
		wantErr    string
	}{
		{name: "new file", want: `{"mcpServers":{"gemini-search":{"url":"http://127.0.0.1:3000/mcp"}}}`},
		{name: "other servers and keys untouched, order kept",
			existing:   "{\n  \"zeta\": 1,\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\", \"args\": [\"--a\"]},\n    \"gemini-search\": {\"url\": \"http://old/mcp\"}\n  }\n}\n",
			want:       `{"zeta":1,"mcpServers":{"other":{"command":"x","args":["--a"]},"gemini-search":{"url":"http://127.0.0.1:3000/mcp"}}}`,
			wantBackup: true},
		{name: "no servers key yet", existing: `{"theme":"dark"}`,
			want: `{"theme":"dark","mcpServers":{"gemini-search":{"url":"http://127.0.0.1:3000/mcp"}}}`, wantBackup: true},
		{name: "already connected: nothing written", existing: `{"mcpServers":{"gemini-search":{"url":"http://127.0.0.1:3000/mcp"}}}`,
			want: `{"mcpServers":{"gemini-search":{"url":"http://127.0.0.1:3000/mcp"}}}`},
		{name: "comments are kept", existing: "{ // comment\n}",
			wantFile:   "{ // comment\n  \"mcpServers\": {\n    \"gemini-search\": {\n      \"url\": \"http://127.0.0.1:3000/mcp\"\n    }\n  }\n}",
			wantBackup: true},
		{name: "not JSON: refused", existing: "{\n  \"mcpServers\": {\n    \"x\": ]\n  }\n}\n",
			wantErr: "cannot read ~/.cursor/mcp.json: line 3: invalid character ']' at start of value"},
		{name: "not an object: refused", existing: "[]", wantErr: "cannot read ~/.cursor/mcp.json: line 1: not a JSON object"},
		{name: "servers not an object: refused", existing: `{"mcpServers":[]}`,
			wantErr: `cannot read ~/.cursor/mcp.json: line 1: "mcpServers" is not an object`},
		{name: "servers twice: refused", existing: "{\"mcpServers\": {},\n\"mcpServers\": {\"other\": {}}}",
			wantErr: `cannot read ~/.cursor/mcp.json: line 2: "mcpServers" is there twice (also on line 1): remove one`},
		{name: "entry twice: refused", existing: "{\"mcpServers\": {\n\"gemini-search\": {},\n\"gemini-search\": {\"url\": \"x\"}}}",
			wantErr: `cannot read ~/.cursor/mcp.json: line 3: "gemini-search" is there twice (also on line 2): remove one`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			c := All(Platform{GOOS: "linux", Home: home}, server)[0]
			if tt.existing != "" {
				if err := os.MkdirAll(filepath.Dir(c.Path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(c.Path, []byte(tt.existing), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			backup, err := c.Connect(now)
			if tt.wantErr != "" {
				var fileErr *FileError
				if err == nil || err.Error() != tt.wantErr || !errors.As(err, &fileErr) {
					t.Fatalf("got %v, want %s", err, tt.wantErr)
				}
				if data, _ := os.ReadFile(c.Path); string(data) != tt.existing {
					t.Errorf("file changed to %q", data)
				}
				// The list says the same, rather than "not connected".
				if st := c.Status(); st.State != Unreadable || st.String() != tt.wantErr {
					t.Errorf("status %q (%s), want %s", st, st.State, tt.wantErr)
				}
				if _, err := c.Disconnect(now); err == nil || err.Error() != tt.wantErr {
					t.Errorf("disconnect: got %v, want %s", err, tt.wantErr)
				}
				if entries, _ := os.ReadDir(filepath.Dir(c.Path)); len(entries) != 1 {
					t.Errorf("%d files beside the client's, want none: no backup for no change", len(entries)-1)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(c.Path)
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantFile != "" {
				if string(data) != tt.wantFile {
					t.Errorf("got\n%s\nwant\n%s", data, tt.wantFile)
				}
			} else if got := compact(t, data); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
			if (backup != "") != tt.wantBackup {
				t.Fatalf("backup %q, want one: %v", backup, tt.wantBackup)
			}
			if backup != "" {
				if want := c.Path + ".20261122-010203.bak"; backup != want {
					t.Errorf("backup at %s, want %s", backup, want)
				}
				if old, _ := os.ReadFile(backup); string(old) != tt.existing {
					t.Errorf("backup holds %q, want the old file", old)
				}
				if fi, _ := os.Stat(c.Path); fi.Mode().Perm() != 0o600 {
					t.Errorf("mode %v, want the old file's 0600", fi.Mode().Perm())
				}
			}
			if fi, _ := os.Stat(c.Path); tt.existing == "" && fi.Mode().Perm() != 0o600 {
				t.Errorf("new file mode %v, want 0600: it may hold the bearer token", fi.Mode().Perm())
			}
		})
	}
}

// TestStateAndDisconnect: a client's file is not connected, connected, or connected to an old address; Disconnect
// removes only this server's entry, after a backup, and leaves a file without it alone.
func TestStateAndDisconnect(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	p := Platform{GOOS: "linux", Home: home, XDGConfigHome: filepath.Join(home, ".config")}
	c := All(p, server)[0]
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	if c.Status() != (Status{State: NotConnected}) {
		t.Fatalf("state of a missing file: %s", c.Status())
	}
	if backup, err := c.Disconnect(now); err != nil || backup != "" {
		t.Fatalf("disconnect from a missing file: %q, %v", backup, err)
	}
	if err := os.MkdirAll(filepath.Dir(c.Path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.Path, []byte(`{"mcpServers": {"other": {"url": "http://x"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Connect(now); err != nil || c.Status().State != Connected {
		t.Fatalf("after Connect: %s, %v", c.Status(), err)
	}
	moved := server
	moved.URL = "http://127.0.0.1:3100/mcp"
	if s := All(p, moved)[0].Status().State; s != Outdated {
		t.Errorf("the server on another port sees %s, want %s", s, Outdated)
	}
	backup, err := c.Disconnect(now.Add(time.Minute))
	data, _ := os.ReadFile(c.Path)
	if err != nil || backup == "" || c.Status().State != NotConnected || string(data) != `{"mcpServers": {"other": {"url": "http://x"}}}` {
		t.Errorf("after Disconnect: %s, backup %q, %v:\n%s", c.Status(), backup, err, data)
	}
}
