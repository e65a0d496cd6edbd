package clientpath

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools/clientpath/clientpathtest"
)

// workspaceOf is the rule with the tree's home as the one root.
func workspaceOf(f clientpathtest.Tree) Workspace {
	return Workspace{Roots: []string{f.Home}, Private: []string{f.Config, f.Cache}}
}

func TestAgentFolder(t *testing.T) {
	t.Parallel()
	f := clientpathtest.NewTree(t)
	tests := []struct {
		name    string
		dir     string
		stdio   bool
		w       Workspace
		want    string
		wantErr string
	}{
		{"http: a project under a root", f.Project, false, workspaceOf(f), f.Project, ""},
		{"http: the root itself", f.Project, false, Workspace{Roots: []string{f.Project}}, f.Project, ""},
		{"http: a link to a project, resolved", f.ToProj, false, workspaceOf(f), f.Project, ""},
		{"http: unclean", f.Project + "/../project/", false, workspaceOf(f), f.Project, ""},
		{"http: no roots", f.Project, false, Workspace{Private: []string{f.Config}}, "", "GEMINI_WORKSPACE_ROOTS is not set"},
		{"http: the home dir", f.Home, false, workspaceOf(f), "", "holds or lies inside " + f.Config},
		{"http: ~/.ssh", f.SSH, false, workspaceOf(f), "", "hidden folder (.ssh)"},
		{"http: a link to ~/.ssh", f.ToSSH, false, workspaceOf(f), "", "hidden folder (.ssh)"},
		{"http: /", string(filepath.Separator), false, Workspace{Roots: []string{string(filepath.Separator)},
			Private: []string{f.Config}}, "", "holds or lies inside"},
		{"http: the config dir", f.Config, false, workspaceOf(f), "", "holds or lies inside " + f.Config},
		{"http: inside the config dir", filepath.Dir(f.Config), false, workspaceOf(f), "", "holds or lies inside"},
		{"http: a link to the config dir", f.ToConf, false, workspaceOf(f), "", "holds or lies inside " + f.Config},
		{"http: a private dir", f.Cache, false, workspaceOf(f), "", "holds or lies inside " + f.Cache},
		{"http: under no root", f.Outside, false, workspaceOf(f), "", "is not under GEMINI_WORKSPACE_ROOTS"},
		{"http: relative", "src", false, workspaceOf(f), "", `"src" is not an absolute path`},
		{"http: missing", filepath.Join(f.Home, "gone"), false, workspaceOf(f), "", "does not exist"},
		// Nothing is looked at before the path, as written, is under a root and not hidden: a missing folder
		// elsewhere is refused for where it is, not found missing.
		{"http: missing, under no root", filepath.Join(f.Outside, "gone"), false, workspaceOf(f), "", "is not under GEMINI_WORKSPACE_ROOTS"},
		{"http: missing, hidden", filepath.Join(f.Home, ".gnupg"), false, workspaceOf(f), "", "hidden folder (.gnupg)"},
		{"http: up and out", f.Home + "/../elsewhere", false, workspaceOf(f), "", "is not under GEMINI_WORKSPACE_ROOTS"},
		{"http: a link out of the roots", f.ToOut, false, workspaceOf(f), "", "is not under GEMINI_WORKSPACE_ROOTS"},
		{"http: a folder next to the config dir", f.Config + "2", false, workspaceOf(f), f.Config + "2", ""},
		// Private folders are compared by identity: named through a link, or missing, they still count.
		{"http: inside a private dir named through a link", filepath.Join(f.Config, "prompts"), false,
			Workspace{Roots: []string{f.Home}, Private: []string{f.ToConf}}, "", "holds or lies inside " + f.ToConf},
		{"http: holding a private dir named through a link", filepath.Dir(f.Config), false,
			Workspace{Roots: []string{f.Home}, Private: []string{f.ToConf}}, "", "holds or lies inside " + f.ToConf},
		{"http: holding a private dir yet to be made", f.Project, false,
			Workspace{Roots: []string{f.Home}, Private: []string{filepath.Join(f.Project, "state", "runs")}}, "", "holds or lies inside"},
		{"stdio: any folder, as given", f.ToSSH, true, Workspace{}, f.ToSSH, ""},
		{"stdio: the config dir", f.Config + "/", true, Workspace{}, f.Config, ""},
		{"stdio: relative", "src", true, Workspace{}, "", "is not an absolute path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := AgentFolder(tt.dir, tt.stdio, tt.w)
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
	f := clientpathtest.NewTree(t)
	prompts := filepath.Join(f.Config, "prompts")
	tests := []struct {
		name      string
		dir, path string
		want      bool
	}{
		{"itself", f.Config, f.Config, true},
		{"inside", f.Config, prompts, true},
		{"inside, dir named through a link", f.ToConf, prompts, true},
		{"the root of the file system", string(filepath.Separator), f.Project, true},
		{"a parent is not under its child", prompts, f.Config, false},
		{"a name that starts alike", f.Config, f.Config + "2", false},
		{"elsewhere", f.Config, f.Outside, false},
		{"dir missing", filepath.Join(f.Home, "gone"), f.Project, false},
		{"path missing", f.Home, filepath.Join(f.Outside, "gone"), false},
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
			clientpathtest.Mkdir(t, filepath.Join(private, "sub"))
			if _, err := os.Stat(filepath.Join(root, tt.spelled)); err != nil {
				t.Skipf("this file system tells %q and %q apart", tt.made, tt.spelled)
			}
			w := Workspace{Roots: []string{root}, Private: []string{private}}
			for _, dir := range []string{filepath.Join(root, tt.spelled), filepath.Join(root, tt.spelled, "sub")} {
				if got, err := AgentFolder(dir, false, w); err == nil || !strings.Contains(err.Error(), "holds or lies inside") {
					t.Errorf("%q: got %q, %v; want it refused as a private dir", dir, got, err)
				}
			}
			w.Private = []string{filepath.Join(root, tt.spelled, "sub")}
			if got, err := AgentFolder(private, false, w); err == nil || !strings.Contains(err.Error(), "holds or lies inside") {
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
