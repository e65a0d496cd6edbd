package headless

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/app"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
)

// run runs the binary's Main with args, stdin empty (not a terminal).
func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Main(args, "1.2.3", strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestHelpOnStdout: --help and -h print the usage of the binary and of each command on stdout, exit 0, so that
// `--help | less` shows it; help and version are commands too. A usage error still goes to stderr, exit 2.
func TestHelpOnStdout(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--help"}, "gemini-search-mcp connect CLIENT --print"},
		{[]string{"-h"}, "-http"},
		{[]string{"help"}, "gemini-search-mcp help [COMMAND]"},
		{[]string{"doctor", "--help"}, "Usage: gemini-search-mcp doctor [--offline]"},
		{[]string{"help", "doctor"}, "-offline"},
		{[]string{"connect", "-h"}, "gemini-search-mcp connect CLIENT [--yes] [--project DIR]"},
		{[]string{"help", "connect"}, "-print"},
		{[]string{"disconnect", "--help"}, "Usage: gemini-search-mcp disconnect CLIENT"},
		{[]string{"version"}, "gemini-search-mcp 1.2.3\n"},
		{[]string{"--version"}, "gemini-search-mcp 1.2.3\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := run(t, tt.args...)
			if code != 0 || !strings.Contains(stdout, tt.want) || stderr != "" {
				t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant exit 0 and %q on stdout alone", code, stdout, stderr, tt.want)
			}
		})
	}
	for _, args := range [][]string{{"--bogus"}, {"doctor", "--bogus"}, {"connect", "--bogus"}, {"help", "nothing"},
		{"nothing"}} {
		code, stdout, stderr := run(t, args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, "gemini-search-mcp") {
			t.Errorf("%q: exit %d, stdout %q, stderr:\n%s\nwant exit 2 and the usage on stderr", args, code, stdout, stderr)
		}
	}
}

// home is a user's home for the connect command: its clients' files are under it, and nothing of the developer's
// environment reaches the configuration.
type home struct {
	dir string
	src app.Source
}

func newHome(t *testing.T, env map[string]string) home {
	t.Helper()
	dir := t.TempDir()
	if env == nil {
		env = map[string]string{}
	}
	env["GEMINI_SEARCH_CONFIG_DIR"] = filepath.Join(dir, "config")
	lookup := func(name string) (string, bool) {
		v, ok := env[name]
		return v, ok
	}
	flags := app.NewFlags("gemini-search-mcp", usage, os.Stderr)
	return home{dir: dir, src: app.Source{Flags: flags, Env: config.Env{Lookup: lookup, GOOS: "linux", Home: dir,
		XDGConfigHome: filepath.Join(dir, ".config")}}}
}

// connect runs the connect or disconnect command in h, with stdin answering as a person at a terminal would when
// answer is set.
func (h home) connect(t *testing.T, command, answer string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = clientsCommand(command, h.src, args, answer != "", strings.NewReader(answer), &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestConnectList: the list names every client, at least twelve, each with its state and file.
func TestConnectList(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{nil, {"--list"}} {
		h := newHome(t, nil)
		code, stdout, _ := h.connect(t, "connect", "", args...)
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		if code != 0 || len(lines) < 12 {
			t.Fatalf("%q: exit %d, %d clients listed, want at least 12:\n%s", args, code, len(lines), stdout)
		}
		for _, want := range []string{"codex ", "goose ", "continue ", "zed ", "lm-studio ", "gemini-cli "} {
			if !strings.Contains(stdout, "\n"+want) {
				t.Errorf("%q: no %s in\n%s", args, want, stdout)
			}
		}
		if !strings.Contains(stdout, "not connected                "+filepath.Join(h.dir, ".codex", "config.toml")) {
			t.Errorf("the list does not give Codex's state and file:\n%s", stdout)
		}
	}
}

// TestConnectPrint: --print prints the entry in the client's own format: TOML for Codex, with the bearer header
// when MCP_AUTH_TOKEN is set, and the address of --port.
func TestConnectPrint(t *testing.T) {
	t.Parallel()
	h := newHome(t, map[string]string{"MCP_AUTH_TOKEN": "tok-0123456789abcdef"})
	code, stdout, stderr := h.connect(t, "connect", "", "codex", "--print")
	var v struct {
		Servers map[string]struct {
			URL     string            `toml:"url"`
			Headers map[string]string `toml:"http_headers"`
		} `toml:"mcp_servers"`
	}
	if err := toml.Unmarshal([]byte(stdout), &v); code != 0 || err != nil {
		t.Fatalf("exit %d, %v: stdout is not TOML:\n%s\n%s", code, err, stdout, stderr)
	}
	if e := v.Servers["gemini-search"]; e.URL != "http://127.0.0.1:3000/mcp" || e.Headers["Authorization"] != "Bearer tok-0123456789abcdef" {
		t.Errorf("codex --print: %+v", v.Servers)
	}

	h = newHome(t, nil)
	code, stdout, _ = h.connect(t, "connect", "", "cursor", "--port", "3100", "--print")
	if code != 0 || !strings.Contains(stdout, `"url": "http://127.0.0.1:3100/mcp"`) || strings.Contains(stdout, "headers") {
		t.Errorf("cursor --port 3100 --print: exit %d\n%s", code, stdout)
	}
	if _, err := os.Stat(filepath.Join(h.dir, ".cursor")); err == nil {
		t.Error("--print wrote Cursor's file")
	}
}

// TestConnectShowsTheDiffFirst: connect prints the change as a diff; without a terminal to ask and without --yes
// nothing is written, and the message says how to confirm; --yes writes it; at a terminal, yes writes and anything
// else does not.
func TestConnectShowsTheDiffFirst(t *testing.T) {
	t.Parallel()
	h := newHome(t, nil)
	goose := filepath.Join(h.dir, ".config", "goose", "config.yaml")
	const original = "GOOSE_PROVIDER: openai\nextensions:\n  developer:\n    enabled: true\n    type: builtin\n"
	if err := os.MkdirAll(filepath.Dir(goose), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(goose, []byte(original), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := h.connect(t, "connect", "", "goose")
	if code != 1 || !strings.Contains(stdout, "+++ ~/.config/goose/config.yaml\n") || !strings.Contains(stdout, "+  gemini-search:\n") ||
		!strings.Contains(stderr, "gemini-search-mcp connect: nothing was written: add --yes to the command to write this change") {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if data, _ := os.ReadFile(goose); string(data) != original {
		t.Fatalf("written without --yes:\n%s", data)
	}

	if code, stdout, _ = h.connect(t, "connect", "no\n", "goose"); code != 1 || !strings.Contains(stdout, "[y/N] Nothing was written.") {
		t.Errorf("answered no: exit %d\n%s", code, stdout)
	}
	if data, _ := os.ReadFile(goose); string(data) != original {
		t.Fatalf("written after no:\n%s", data)
	}
	if code, stdout, _ = h.connect(t, "connect", "y\n", "goose"); code != 0 || !strings.Contains(stdout, "Goose: connected (") {
		t.Errorf("answered yes: exit %d\n%s", code, stdout)
	}
	if data, _ := os.ReadFile(goose); !strings.HasPrefix(string(data), original+"  gemini-search:\n") {
		t.Errorf("after yes:\n%s", data)
	}
	if code, stdout, _ = h.connect(t, "connect", "", "goose"); code != 0 || !strings.Contains(stdout, "nothing to change") {
		t.Errorf("connected again: exit %d\n%s", code, stdout)
	}

	code, stdout, _ = h.connect(t, "disconnect", "", "goose", "--yes")
	if data, _ := os.ReadFile(goose); code != 0 || string(data) != original || !strings.Contains(stdout, "-  gemini-search:\n") {
		t.Errorf("disconnect --yes: exit %d\n%s\nfile:\n%s", code, stdout, data)
	}
}

// TestConnectProject: --project writes the client's project file in that folder; a client without one says so.
func TestConnectProject(t *testing.T) {
	t.Parallel()
	h := newHome(t, nil)
	project := t.TempDir()
	if code, stdout, stderr := h.connect(t, "connect", "", "vscode", "--project", project, "--yes"); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	data, err := os.ReadFile(filepath.Join(project, ".vscode", "mcp.json"))
	if err != nil || !strings.Contains(string(data), `"type": "http"`) {
		t.Errorf("the project's .vscode/mcp.json: %v\n%s", err, data)
	}
	if _, err := os.Stat(filepath.Join(h.dir, ".config", "Code")); err == nil {
		t.Error("the user's VS Code file was written too")
	}
	if code, _, stderr := h.connect(t, "connect", "", "claude-desktop", "--project", project, "--yes"); code != 2 ||
		!strings.Contains(stderr, "Claude Desktop has no project file") {
		t.Errorf("claude-desktop --project: exit %d\n%s", code, stderr)
	}
}

// TestConnectHidesTheToken: the diff connect prints (a CI log, with --yes) shows the bearer token's last four
// characters only; the client's file gets the token.
func TestConnectHidesTheToken(t *testing.T) {
	t.Parallel()
	const token = "0123456789abcdef0123456789abcdef"
	h := newHome(t, map[string]string{"MCP_AUTH_TOKEN": token})
	code, stdout, stderr := h.connect(t, "connect", "", "cursor", "--yes")
	if code != 0 || strings.Contains(stdout+stderr, token) || !strings.Contains(stdout, `+        "Authorization": "Bearer ••••cdef"`) {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	data, err := os.ReadFile(filepath.Join(h.dir, ".cursor", "mcp.json"))
	if err != nil || !strings.Contains(string(data), `"Authorization": "Bearer `+token+`"`) {
		t.Errorf("the file (%v):\n%s", err, data)
	}
}
