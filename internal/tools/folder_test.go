package tools

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
)

// folderTree is a user's home folder in a temporary folder, as the folder rule sees it.
type folderTree struct {
	home    string // holds everything below; a GEMINI_WORKSPACE_ROOTS entry in the tests
	ssh     string // home/.ssh
	config  string // the config dir, with the .env file: home/Library/Application Support/gemini-search-mcp
	cache   string // a private dir too: home/Library/Caches
	project string // home/src/project, a folder a client may hand over
	toConf  string // home/src/settings, a symbolic link to the config dir
	toSSH   string // home/src/keys, a symbolic link to home/.ssh
	toProj  string // home/src/current, a symbolic link to the project
	toOut   string // home/src/elsewhere, a symbolic link to outside
	outside string // a folder under no root
}

func newFolderTree(t *testing.T) folderTree {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir()) // macOS: /var is a link to /private/var
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "home")
	f := folderTree{home: home, ssh: filepath.Join(home, ".ssh"),
		config:  filepath.Join(home, "Library", "Application Support", "gemini-search-mcp"),
		cache:   filepath.Join(home, "Library", "Caches"),
		project: filepath.Join(home, "src", "project"),
		toConf:  filepath.Join(home, "src", "settings"), toSSH: filepath.Join(home, "src", "keys"),
		toProj: filepath.Join(home, "src", "current"), toOut: filepath.Join(home, "src", "elsewhere"),
		outside: filepath.Join(base, "elsewhere")}
	for _, d := range []string{f.ssh, filepath.Join(f.config, "prompts"), f.config + "2", f.cache, f.project, f.outside} {
		mustMkdir(t, d)
	}
	for _, file := range []string{filepath.Join(f.config, ".env"), filepath.Join(f.ssh, "id_ed25519")} {
		if err := os.WriteFile(file, []byte("SECRET=1\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{f.toConf: f.config, f.toSSH: f.ssh, f.toProj: f.project, f.toOut: f.outside} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// workspace is the rule with the tree's home as the one root.
func (f folderTree) workspace() Workspace {
	return Workspace{Roots: []string{f.home}, Private: []string{f.config, f.cache}}
}

func TestAgentFolder(t *testing.T) {
	t.Parallel()
	f := newFolderTree(t)
	tests := []struct {
		name    string
		dir     string
		stdio   bool
		w       Workspace
		want    string
		wantErr string
	}{
		{"http: a project under a root", f.project, false, f.workspace(), f.project, ""},
		{"http: the root itself", f.project, false, Workspace{Roots: []string{f.project}}, f.project, ""},
		{"http: a link to a project, resolved", f.toProj, false, f.workspace(), f.project, ""},
		{"http: unclean", f.project + "/../project/", false, f.workspace(), f.project, ""},
		{"http: no roots", f.project, false, Workspace{Private: []string{f.config}}, "", "GEMINI_WORKSPACE_ROOTS is not set"},
		{"http: the home dir", f.home, false, f.workspace(), "", "holds or lies inside " + f.config},
		{"http: ~/.ssh", f.ssh, false, f.workspace(), "", "hidden folder (.ssh)"},
		{"http: a link to ~/.ssh", f.toSSH, false, f.workspace(), "", "hidden folder (.ssh)"},
		{"http: /", string(filepath.Separator), false, Workspace{Roots: []string{string(filepath.Separator)},
			Private: []string{f.config}}, "", "holds or lies inside"},
		{"http: the config dir", f.config, false, f.workspace(), "", "holds or lies inside " + f.config},
		{"http: inside the config dir", filepath.Dir(f.config), false, f.workspace(), "", "holds or lies inside"},
		{"http: a link to the config dir", f.toConf, false, f.workspace(), "", "holds or lies inside " + f.config},
		{"http: a private dir", f.cache, false, f.workspace(), "", "holds or lies inside " + f.cache},
		{"http: under no root", f.outside, false, f.workspace(), "", "is not under GEMINI_WORKSPACE_ROOTS"},
		{"http: relative", "src", false, f.workspace(), "", `"src" is not an absolute path`},
		{"http: missing", filepath.Join(f.home, "gone"), false, f.workspace(), "", "does not exist"},
		// Nothing is looked at before the path, as written, is under a root and not hidden: a missing folder
		// elsewhere is refused for where it is, not found missing.
		{"http: missing, under no root", filepath.Join(f.outside, "gone"), false, f.workspace(), "", "is not under GEMINI_WORKSPACE_ROOTS"},
		{"http: missing, hidden", filepath.Join(f.home, ".gnupg"), false, f.workspace(), "", "hidden folder (.gnupg)"},
		{"http: up and out", f.home + "/../elsewhere", false, f.workspace(), "", "is not under GEMINI_WORKSPACE_ROOTS"},
		{"http: a link out of the roots", f.toOut, false, f.workspace(), "", "is not under GEMINI_WORKSPACE_ROOTS"},
		{"http: a folder next to the config dir", f.config + "2", false, f.workspace(), f.config + "2", ""},
		// Private folders are compared by identity: named through a link, or missing, they still count.
		{"http: inside a private dir named through a link", filepath.Join(f.config, "prompts"), false,
			Workspace{Roots: []string{f.home}, Private: []string{f.toConf}}, "", "holds or lies inside " + f.toConf},
		{"http: holding a private dir named through a link", filepath.Dir(f.config), false,
			Workspace{Roots: []string{f.home}, Private: []string{f.toConf}}, "", "holds or lies inside " + f.toConf},
		{"http: holding a private dir yet to be made", f.project, false,
			Workspace{Roots: []string{f.home}, Private: []string{filepath.Join(f.project, "state", "runs")}}, "", "holds or lies inside"},
		{"stdio: any folder, as given", f.toSSH, true, Workspace{}, f.toSSH, ""},
		{"stdio: the config dir", f.config + "/", true, Workspace{}, f.config, ""},
		{"stdio: relative", "src", true, Workspace{}, "", "is not an absolute path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := agentFolder(tt.dir, tt.stdio, tt.w)
			switch {
			case tt.wantErr == "" && (err != nil || got != tt.want):
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("got %q, %v; want an error saying %q", got, err, tt.wantErr)
			}
		})
	}
}

// TestUnder: a folder is under another when one of its parents, or itself, is that folder, whatever name it goes by;
// a name that only starts alike is not.
func TestUnder(t *testing.T) {
	t.Parallel()
	f := newFolderTree(t)
	prompts := filepath.Join(f.config, "prompts")
	tests := []struct {
		name      string
		dir, path string
		want      bool
	}{
		{"itself", f.config, f.config, true},
		{"inside", f.config, prompts, true},
		{"inside, dir named through a link", f.toConf, prompts, true},
		{"the root of the file system", string(filepath.Separator), f.project, true},
		{"a parent is not under its child", prompts, f.config, false},
		{"a name that starts alike", f.config, f.config + "2", false},
		{"elsewhere", f.config, f.outside, false},
		{"dir missing", filepath.Join(f.home, "gone"), f.project, false},
		{"path missing", f.home, filepath.Join(f.outside, "gone"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := under(tt.dir, tt.path); got != tt.want {
				t.Errorf("under(%s, %s): got %v, want %v", tt.dir, tt.path, got, tt.want)
			}
		})
	}
}

// TestPrivateDirOtherSpelling: where the file system takes a name in another Unicode normalization or case for the
// same folder (APFS, NTFS), a folder named so is still found inside a private dir or holding it. Elsewhere (ext4:
// names are bytes) the other spelling names no folder, and there is nothing to test.
func TestPrivateDirOtherSpelling(t *testing.T) {
	t.Parallel()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, made, spelled string }{
		{"NFD for NFC", "caf\u00e9", "cafe\u0301"},
		{"other case", "Keys", "kEYS"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := filepath.Join(base, strings.ReplaceAll(tt.name, " ", "-"))
			private := filepath.Join(root, tt.made)
			mustMkdir(t, filepath.Join(private, "sub"))
			if _, err := os.Stat(filepath.Join(root, tt.spelled)); err != nil {
				t.Skipf("this file system tells %q and %q apart", tt.made, tt.spelled)
			}
			w := Workspace{Roots: []string{root}, Private: []string{private}}
			for _, dir := range []string{filepath.Join(root, tt.spelled), filepath.Join(root, tt.spelled, "sub")} {
				if got, err := agentFolder(dir, false, w); err == nil || !strings.Contains(err.Error(), "holds or lies inside") {
					t.Errorf("%q: got %q, %v; want it refused as a private dir", dir, got, err)
				}
			}
			w.Private = []string{filepath.Join(root, tt.spelled, "sub")}
			if got, err := agentFolder(private, false, w); err == nil || !strings.Contains(err.Error(), "holds or lies inside") {
				t.Errorf("%q holding %q: got %q, %v; want it refused", private, w.Private[0], got, err)
			}
		})
	}
}

func TestHiddenPart(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]string{
		"/home/me/src":              "",
		"/home/me/.ssh":             ".ssh",
		"/home/me/.config/app/data": ".config",
		"/srv/a.b/c":                "",
		"/":                         "",
	} {
		if got := hiddenPart(filepath.FromSlash(path)); got != want {
			t.Errorf("%s: got %q, want %q", path, got, want)
		}
	}
}

// askServer serves the real engine over a fake CLI that answers in plain text, with the folder rule w.
func askServer(t *testing.T, w Workspace) (*server.MCPServer, *geminitest.Fake) {
	t.Helper()
	fake := geminitest.NewLocal(t, geminitest.ScenarioPlain)
	runner := gemini.NewRunner(gemini.Config{Command: fake.Command(), Dir: t.TempDir(), ExtraEnv: fake.Env()})
	engine, err := research.New(runner, research.Settings{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return newServer(engine, Options{Version: "test", Workspace: func() Workspace { return w }}), fake
}

// TestAskWorkingDirectoryOverHTTP: over Streamable HTTP, the home dir, ~/.ssh, /, the config dir and a link to it
// are each refused before any CLI starts, and so is every folder while GEMINI_WORKSPACE_ROOTS is not set; a folder
// under a root reaches the CLI with its links resolved.
func TestAskWorkingDirectoryOverHTTP(t *testing.T) {
	t.Parallel()
	f := newFolderTree(t)
	w := f.workspace()
	w.Roots = append(w.Roots, string(filepath.Separator)) // so that "/" is refused for what it holds
	s, fake := askServer(t, w)
	c := connectHTTP(t, s)
	for _, dir := range []string{f.home, f.ssh, string(filepath.Separator), f.config, f.toConf} {
		res := call(context.Background(), t, c, "ask", map[string]any{"prompt": "Summarize @.env", "workingDirectory": dir}, nil)
		e, _ := decodeBody(t, res)["error"].(map[string]any)
		if msg, _ := e["message"].(string); !res.IsError || e["code"] != string(backend.CodeInvalidArgument) ||
			!strings.HasPrefix(msg, "invalid arguments for ask: workingDirectory ") {
			t.Errorf("%s: got %s, want INVALID_ARGUMENT", dir, resultText(t, res))
		}
	}
	if n := len(fake.Started()); n != 0 {
		t.Fatalf("%d CLIs started for refused calls, want none", n)
	}

	res := call(context.Background(), t, c, "ask", map[string]any{"prompt": "Explain @main.go", "workingDirectory": f.toProj}, nil)
	if calls := fake.Calls(); res.IsError || len(calls) != 1 || !slices.Contains(calls[0].Args, f.project) {
		t.Fatalf("got %s, calls %+v; want the project handed to the CLI, its link resolved", resultText(t, res), calls)
	}

	unset, fake := askServer(t, Workspace{Private: w.Private})
	res = call(context.Background(), t, connectHTTP(t, unset), "ask", map[string]any{"prompt": "p", "workingDirectory": f.project}, nil)
	if !res.IsError || !strings.Contains(resultText(t, res), "set GEMINI_WORKSPACE_ROOTS to the folders") || len(fake.Started()) != 0 {
		t.Errorf("without GEMINI_WORKSPACE_ROOTS: got %s, want a refusal before the CLI starts, saying how to set it",
			resultText(t, res))
	}
}

// TestAskWorkingDirectoryOverStdio: over stdio the user's own client chooses any folder, as it names it; no roots
// are needed.
func TestAskWorkingDirectoryOverStdio(t *testing.T) {
	t.Parallel()
	f := newFolderTree(t)
	s, fake := askServer(t, Workspace{Private: []string{f.config}})
	c := connectStdio(t, s)
	for _, dir := range []string{f.ssh, f.toConf} {
		res := call(context.Background(), t, c, "ask", map[string]any{"prompt": "p", "workingDirectory": dir}, nil)
		if calls := fake.Calls(); res.IsError || len(calls) == 0 || !slices.Contains(calls[len(calls)-1].Args, dir) {
			t.Errorf("%s: got %s, want the folder handed to the CLI as named", dir, resultText(t, res))
		}
	}
}
