package clients

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pelletier/go-toml/v2"
	"go.yaml.in/yaml/v3"
)

// client is the client id of All on a Linux home.
func client(t *testing.T, home, id string, s Server) Client {
	t.Helper()
	for _, c := range All(Platform{GOOS: "linux", Home: home, XDGConfigHome: filepath.Join(home, ".config")}, s) {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no client %s", id)
	return Client{}
}

// roundTrip connects c to a file holding original, checks that what connect wrote is original with the entry
// added (every line of original kept, in order) and that the file reads back in its format, then disconnects and
// wants original back, byte for byte.
func roundTrip(t *testing.T, c Client, original string, check func(after string)) {
	t.Helper()
	writeFile(t, c.Path, original, 0o600)
	now := time.Date(2026, 11, 28, 1, 0, 0, 0, time.UTC)
	if _, err := c.Connect(now); err != nil {
		t.Fatal(err)
	}
	after := readFile(t, c.Path)
	if st := c.Status(); st.State != Connected {
		t.Fatalf("status %s after connect:\n%s", st, after)
	}
	rest := after
	for _, line := range strings.SplitAfter(original, "\n") {
		i := strings.Index(rest, line)
		if i < 0 {
			t.Fatalf("line %q of the original is gone or moved:\n%s", line, after)
		}
		rest = rest[i+len(line):]
	}
	check(after)
	if _, err := c.Disconnect(now.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, c.Path); got != original {
		t.Errorf("after disconnect:\n%s\nwant the original back:\n%s", got, original)
	}
}

const codexFile = `# Codex settings
model = "o4-mini"

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"] # pinned

[mcp_servers.docs.env]
TOKEN = "x"

# Profiles follow.
[profiles.fast]
model = "gpt-5"
`

// TestCodexTOML: the entry is a [mcp_servers.gemini-search] table of its own, added at the end; the other servers,
// tables and comments stay as written, a later connect to another port replaces the table where it is, and the
// printed snippet is TOML that reads back as the entry.
func TestCodexTOML(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	tokenServer := Server{URL: server.URL, AuthToken: "s3cret"}
	c := client(t, home, "codex", tokenServer)
	roundTrip(t, c, codexFile, func(after string) {
		const table = "\n[mcp_servers.gemini-search]\nurl = \"http://127.0.0.1:3000/mcp\"\n" +
			"http_headers = { Authorization = \"Bearer s3cret\" }\n"
		if after != codexFile+table {
			t.Errorf("after connect:\n%s\nwant the table appended:\n%s", after, codexFile+table)
		}
		var v struct {
			Servers map[string]struct {
				URL     string            `toml:"url"`
				Command string            `toml:"command"`
				Headers map[string]string `toml:"http_headers"`
			} `toml:"mcp_servers"`
		}
		if err := toml.Unmarshal([]byte(after), &v); err != nil {
			t.Fatal(err)
		}
		if v.Servers["docs"].Command != "npx" || v.Servers["gemini-search"].Headers["Authorization"] != "Bearer s3cret" {
			t.Errorf("read back %+v", v.Servers)
		}
	})

	// Moved: the table is replaced where it stands, before a table that follows it.
	withNext := codexFile + "\n[mcp_servers.gemini-search]\nurl = \"http://127.0.0.1:3000/mcp\"\n\n# Later.\n[tui]\nnotifications = true\n"
	writeFile(t, c.Path, withNext, 0o600)
	moved := client(t, home, "codex", Server{URL: "http://127.0.0.1:3100/mcp"})
	if st := moved.Status(); st.State != Outdated {
		t.Fatalf("status %s, want %s", st, Outdated)
	}
	if _, err := moved.Connect(time.Now()); err != nil {
		t.Fatal(err)
	}
	if got, want := readFile(t, c.Path), strings.Replace(withNext, ":3000/", ":3100/", 1); got != want {
		t.Errorf("after moving:\n%s\nwant:\n%s", got, want)
	}

	snippet, err := c.Snippet()
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]map[string]map[string]any
	if err := toml.Unmarshal([]byte(snippet), &v); err != nil || v["mcp_servers"]["gemini-search"]["url"] != server.URL {
		t.Errorf("snippet %q reads back as %v (%v)", snippet, v, err)
	}
}

// TestCodexTOMLRefusesWhatItCannotChangeSafely: an entry written inline, and a file that is not TOML, are left
// alone with the reason.
func TestCodexTOMLRefusesWhatItCannotChangeSafely(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, file, wantErr string }{
		{"inline entry", "[mcp_servers]\ngemini-search = { url = \"http://old/mcp\" }\n",
			"cannot read ~/.codex/config.toml: [mcp_servers.gemini-search] is written inline: write it as a table of its own, or change it by hand"},
		{"not TOML", "model = \n", "cannot read ~/.codex/config.toml: line 1: "},
		{"servers not a table", "mcp_servers = 3\n", `cannot read ~/.codex/config.toml: "mcp_servers" is not a table`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := client(t, t.TempDir(), "codex", server)
			writeFile(t, c.Path, tt.file, 0o600)
			if _, err := c.Connect(time.Now()); err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
				t.Errorf("got %v, want %s…", err, tt.wantErr)
			}
			if got := readFile(t, c.Path); got != tt.file {
				t.Errorf("file changed to %q", got)
			}
		})
	}
}

const gooseFile = `GOOSE_PROVIDER: anthropic
GOOSE_MODEL: claude-sonnet-4

extensions:
  # Always on.
  developer:
    enabled: true
    type: builtin
    name: developer
    timeout: 300

  memory:
    enabled: false
    type: builtin
    name: memory
GOOSE_MODE: smart_approve
`

// TestGooseYAML: the extension goes after the last one, in the file's indentation, blank lines and comments
// kept; disconnect gives back the file as it was.
func TestGooseYAML(t *testing.T) {
	t.Parallel()
	c := client(t, t.TempDir(), "goose", server)
	roundTrip(t, c, gooseFile, func(after string) {
		if !strings.Contains(after, "    name: memory\n  gemini-search:\n    enabled: true\n    type: streamable_http\n") ||
			!strings.HasSuffix(after, "    timeout: 300\nGOOSE_MODE: smart_approve\n") {
			t.Errorf("after connect:\n%s", after)
		}
		var v struct {
			Extensions map[string]struct {
				Type    string `yaml:"type"`
				URI     string `yaml:"uri"`
				Enabled bool   `yaml:"enabled"`
			} `yaml:"extensions"`
		}
		if err := yaml.Unmarshal([]byte(after), &v); err != nil {
			t.Fatal(err)
		}
		if e := v.Extensions["gemini-search"]; e.Type != "streamable_http" || e.URI != server.URL || !e.Enabled ||
			v.Extensions["developer"].Type != "builtin" {
			t.Errorf("read back %+v", v.Extensions)
		}
	})
}

// TestGooseYAMLShapes: a missing file, no extensions yet, `extensions: {}` (its comment kept), and a flow mapping
// (refused).
func TestGooseYAMLShapes(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, file, want, wantErr string }{
		{name: "missing file", want: "extensions:\n  gemini-search:\n    enabled: true\n"},
		{name: "no extensions", file: "GOOSE_MODEL: x\n", want: "GOOSE_MODEL: x\nextensions:\n  gemini-search:\n"},
		{name: "empty extensions", file: "extensions: {}\nGOOSE_MODEL: x\n",
			want: "extensions:\n  gemini-search:\n    enabled: true\n"},
		{name: "empty extensions with a comment", file: "extensions: {}  # none yet\nGOOSE_MODEL: x\n",
			want: "extensions: # none yet\n  gemini-search:\n    enabled: true\n"},
		{name: "no extensions with a comment", file: "extensions: # mine\nGOOSE_MODEL: x\n",
			want: "extensions: # mine\n  gemini-search:\n    enabled: true\n"},
		{name: "flow style refused", file: "extensions: {developer: {enabled: true}}\n",
			wantErr: `cannot read ~/.config/goose/config.yaml: line 1: "extensions" is written in flow style`},
		{name: "not YAML", file: "extensions:\n  a: [\n", wantErr: "cannot read ~/.config/goose/config.yaml: line "},
		{name: "keys that are not strings", file: "extensions: {}\nports:\n  1: a\n",
			wantErr: "cannot read ~/.config/goose/config.yaml: the change cannot be checked"},
		{name: "key twice", file: "extensions: {}\nextensions: {}\n",
			wantErr: `cannot read ~/.config/goose/config.yaml: line 2: mapping key "extensions" already defined at line 1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := client(t, t.TempDir(), "goose", server)
			if tt.name != "missing file" {
				writeFile(t, c.Path, tt.file, 0o600)
			}
			_, err := c.Connect(time.Now())
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Errorf("got %v, want %s…", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, c.Path); !strings.HasPrefix(got, tt.want) || c.Status().State != Connected {
				t.Errorf("got\n%s\nwant it to start with\n%s", got, tt.want)
			}
			if strings.HasPrefix(tt.name, "empty extensions") {
				want := strings.Replace(tt.file, "{}  #", "{} #", 1) // the comment stays, after one space
				if _, err := c.Disconnect(time.Now().Add(time.Second)); err != nil || readFile(t, c.Path) != want {
					t.Errorf("after disconnect (%v):\n%s", err, readFile(t, c.Path))
				}
			}
		})
	}
}

const continueFile = `name: Local Config
version: 1.0.0
schema: v1
models:
  - name: Llama
    provider: ollama
mcpServers:
  # Files first.
  - name: files
    command: npx
    args:
      - "-y"
      - "@modelcontextprotocol/server-filesystem"
`

// TestContinueYAML: Continue lists its servers, each with its name: the entry is the item named gemini-search,
// added after the last one; a missing file starts with the name, version and schema Continue requires.
func TestContinueYAML(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	c := client(t, home, "continue", server)
	roundTrip(t, c, continueFile, func(after string) {
		const item = "  - name: gemini-search\n    type: streamable-http\n    url: http://127.0.0.1:3000/mcp\n"
		if after != continueFile+item {
			t.Errorf("after connect:\n%s\nwant the item appended:\n%s", after, continueFile+item)
		}
	})

	fresh := client(t, t.TempDir(), "continue", Server{URL: server.URL, AuthToken: "tok"})
	if _, err := fresh.Connect(time.Now()); err != nil {
		t.Fatal(err)
	}
	want := "name: Local Config\nversion: 1.0.0\nschema: v1\nmcpServers:\n  - name: gemini-search\n    type: streamable-http\n" +
		"    url: http://127.0.0.1:3000/mcp\n    requestOptions:\n      headers:\n        Authorization: Bearer tok\n"
	if got := readFile(t, fresh.Path); got != want {
		t.Errorf("new file:\n%s\nwant:\n%s", got, want)
	}
	if _, err := fresh.Disconnect(time.Now().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, fresh.Path); got != "name: Local Config\nversion: 1.0.0\nschema: v1\nmcpServers: []\n" {
		t.Errorf("after disconnect:\n%s", got)
	}
}

// TestZedJSONCKeepsComments: Zed's settings.json has comments and trailing commas; only the entry is added.
func TestZedJSONCKeepsComments(t *testing.T) {
	t.Parallel()
	const zedFile = "// Zed settings\n{\n  \"theme\": \"One Dark\", // dark\n  \"context_servers\": {\n    /* local */\n" +
		"    \"git\": {\"command\": \"mcp-git\", \"args\": [],},\n  },\n}\n"
	c := client(t, t.TempDir(), "zed", server)
	roundTrip(t, c, zedFile, func(after string) {
		if !strings.Contains(after, "\"git\": {\"command\": \"mcp-git\", \"args\": [],},\n    \"gemini-search\": {\n      \"url\": \"http://127.0.0.1:3000/mcp\"\n    },\n  },") {
			t.Errorf("after connect:\n%s", after)
		}
	})
}

// TestClientsOwnMembers: an entry to which the client added members of its own (Cline's autoApprove) is this
// server's entry still: connected, and connect leaves it alone.
func TestClientsOwnMembers(t *testing.T) {
	t.Parallel()
	c := client(t, t.TempDir(), "cline", server)
	const file = `{"mcpServers": {"gemini-search": {"type": "streamableHttp", "url": "http://127.0.0.1:3000/mcp", "disabled": false, "autoApprove": ["search"]}}}`
	writeFile(t, c.Path, file, 0o600)
	if st := c.Status(); st.State != Connected {
		t.Errorf("status %s, want connected", st)
	}
	if backup, err := c.Connect(time.Now()); err != nil || backup != "" || readFile(t, c.Path) != file {
		t.Errorf("connect changed the file (backup %q, %v):\n%s", backup, err, readFile(t, c.Path))
	}
}

// TestPlanShowsADiffAndWritesNothing: a planned change is a diff of the file, and nothing is written until Apply.
func TestPlanShowsADiffAndWritesNothing(t *testing.T) {
	t.Parallel()
	c := client(t, t.TempDir(), "cursor", server)
	const file = "{\n  \"mcpServers\": {\n    \"other\": {\"url\": \"http://x\"}\n  }\n}\n"
	writeFile(t, c.Path, file, 0o600)
	ch, err := c.PlanConnect()
	if err != nil {
		t.Fatal(err)
	}
	want := "--- ~/.cursor/mcp.json\n+++ ~/.cursor/mcp.json\n@@ -1,5 +1,8 @@\n {\n   \"mcpServers\": {\n" +
		"-    \"other\": {\"url\": \"http://x\"}\n+    \"other\": {\"url\": \"http://x\"},\n+    \"gemini-search\": {\n" +
		"+      \"url\": \"http://127.0.0.1:3000/mcp\"\n+    }\n   }\n }\n"
	if got := ch.Diff(); got != want {
		t.Errorf("diff:\n%s\nwant:\n%s", got, want)
	}
	if readFile(t, c.Path) != file {
		t.Fatal("planning wrote the file")
	}
	writeFile(t, c.Path, file+" ", 0o600) // changed by someone else meanwhile
	if _, err := ch.Apply(time.Now()); err == nil || !strings.Contains(err.Error(), "changed meanwhile") {
		t.Errorf("apply over a changed file: %v", err)
	}
	writeFile(t, c.Path, file, 0o600)
	if _, err := ch.Apply(time.Now()); err != nil || c.Status().State != Connected {
		t.Errorf("apply: %v, status %s", err, c.Status())
	}
	if again, err := c.PlanConnect(); err != nil || again.Changed() || again.Diff() != "" {
		t.Errorf("planning again: changed %v, diff %q, %v", again.Changed(), again.Diff(), err)
	}

	missing := client(t, t.TempDir(), "cursor", server)
	ch, err = missing.PlanConnect()
	if err != nil || !strings.HasPrefix(ch.Diff(), "--- /dev/null\n+++ ~/.cursor/mcp.json\n@@ -0,0 +1,7 @@\n+{\n") {
		t.Errorf("diff of a new file (%v):\n%s", err, ch.Diff())
	}
	if _, err := os.Stat(missing.Path); err == nil {
		t.Error("planning created the file")
	}
}

// TestInProject: clients with a project file put it in the project's folder; the others have none.
func TestInProject(t *testing.T) {
	t.Parallel()
	want := map[string]string{"cursor": ".cursor/mcp.json", "vscode": ".vscode/mcp.json", "claude-code": ".mcp.json",
		"zed": ".zed/settings.json", "codex": ".codex/config.toml", "gemini-cli": ".gemini/settings.json",
		"opencode": "opencode.json", "kiro": ".kiro/settings/mcp.json", "crush": "crush.json"}
	for _, c := range All(Platform{GOOS: "linux", Home: "/home/me"}, server) {
		p, ok := c.InProject("/src/app")
		if file, has := want[c.ID]; ok != has || (ok && filepath.ToSlash(p.Path) != "/src/app/"+file) {
			t.Errorf("%s in a project: %s, %v; want %q", c.ID, p.Path, ok, file)
		}
	}
}

// TestInstallLinks: Cursor, VS Code and LM Studio have install links carrying the entry each expects, with the
// bearer header only when asked; the other clients have none.
func TestInstallLinks(t *testing.T) {
	t.Parallel()
	all := All(Platform{GOOS: "linux", Home: "/home/me"}, Server{URL: server.URL, AuthToken: "s3cret"})
	wantPage := map[string]string{"cursor": "https://cursor.com/install-mcp?", "vscode": "https://vscode.dev/redirect/mcp/install?",
		"lm-studio": "https://lmstudio.ai/install-mcp?"}
	configOf := func(c Client, withToken bool) map[string]any {
		link, err := c.InstallLink(withToken)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(link, wantPage[c.ID]) || (link == "") != (wantPage[c.ID] == "") {
			t.Fatalf("%s: link %q", c.ID, link)
		}
		if link == "" {
			return nil
		}
		u, err := url.Parse(link)
		if err != nil {
			t.Fatal(err)
		}
		raw := []byte(u.Query().Get("config"))
		if c.ID != "vscode" {
			if raw, err = base64.StdEncoding.DecodeString(string(raw)); err != nil {
				t.Fatal(err)
			}
		}
		var v map[string]any
		if err := json.Unmarshal(raw, &v); err != nil || u.Query().Get("name") != "gemini-search" {
			t.Fatalf("%s: %s (%v)", c.ID, link, err)
		}
		if strings.Contains(link, "s3cret") != (withToken && c.ID == "vscode") { // base64 hides it in the others
			t.Errorf("%s: the token in the link %s, asked for: %v", c.ID, link, withToken)
		}
		return v
	}
	for _, c := range all {
		if !c.NeedsToken() {
			t.Errorf("%s: the server has a token", c.ID)
		}
		v := configOf(c, false)
		if v == nil {
			continue
		}
		if v["url"] != server.URL || v["headers"] != nil {
			t.Errorf("%s config %v", c.ID, v)
		}
		if c.ID == "vscode" && v["type"] != "http" {
			t.Errorf("VS Code config %v, want type http", v)
		}
		headers, _ := configOf(c, true)["headers"].(map[string]any)
		if headers["Authorization"] != "Bearer s3cret" {
			t.Errorf("%s asked with the token: %v", c.ID, configOf(c, true))
		}
	}
}

// TestReadmeLinks: the README's one-click links are the links of the default address, without a token.
func TestReadmeLinks(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range All(Platform{GOOS: "linux", Home: "/home/me"}, Server{URL: "http://127.0.0.1:3000/mcp"}) {
		link, err := c.InstallLink(false)
		if err != nil || (link != "" && !strings.Contains(string(readme), "("+link+")")) {
			t.Errorf("the README lacks %s's link %s (%v)", c.Name, link, err)
		}
	}
}

// TestReplaceInPlace: an old entry is brought up to date where it stands, its subtables (TOML) kept as subtables,
// its deeper lines (YAML) replaced, whatever follows it; what the client or the person set in it (an environment,
// enabled: false) stays; line breaks stay the file's (\r\n).
func TestReplaceInPlace(t *testing.T) {
	t.Parallel()
	tests := []struct{ id, file, want string }{
		{"codex", "[mcp_servers.gemini-search]\r\nurl = \"http://old/mcp\"\r\n\r\n[mcp_servers.gemini-search.env]\r\nA = \"1\"\r\n\r\n# next\r\n[mcp_servers.z]\r\ncommand = \"z\"\r\n",
			"[mcp_servers.gemini-search]\r\nurl = \"http://127.0.0.1:3000/mcp\"\r\n\r\n[mcp_servers.gemini-search.env]\r\nA = \"1\"\r\n\r\n# next\r\n[mcp_servers.z]\r\ncommand = \"z\"\r\n"},
		{"goose", "extensions:\n  gemini-search:\n    enabled: false\n    uri: http://old/mcp\n    args:\n      - a\n\n  zeta:\n    enabled: true\nGOOSE_MODE: auto\n",
			"extensions:\n  gemini-search:\n    enabled: false\n    type: streamable_http\n    name: gemini-search\n    description: Web research through Gemini\n" +
				"    uri: http://127.0.0.1:3000/mcp\n    envs: {}\n    env_keys: []\n    timeout: 300\n\n  zeta:\n    enabled: true\nGOOSE_MODE: auto\n"},
		{"continue", "name: c\nversion: 1.0.0\nschema: v1\nmcpServers:\n- name: gemini-search\n  url: http://old/mcp\n- name: files\n  command: npx\n",
			"name: c\nversion: 1.0.0\nschema: v1\nmcpServers:\n- name: gemini-search\n  type: streamable-http\n  url: http://127.0.0.1:3000/mcp\n- name: files\n  command: npx\n"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			t.Parallel()
			c := client(t, t.TempDir(), tt.id, server)
			writeFile(t, c.Path, tt.file, 0o600)
			if st := c.Status(); st.State != Outdated {
				t.Fatalf("status %s, want %s", st, Outdated)
			}
			if _, err := c.Connect(time.Now()); err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, c.Path); got != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}
