// Package clientpathtest builds a user's home folder, with hidden, private and linked folders, for the tests of
// the rules for the paths a client names.
package clientpathtest

import (
	"os"
	"path/filepath"
	"testing"
)

// Tree is a user's home folder in a temporary folder, as the rules of clientpath see it.
type Tree struct {
	Home    string // holds everything below; a GEMINI_WORKSPACE_ROOTS entry in the tests
	SSH     string // home/.ssh
	Config  string // the config dir, with the .env file: home/Library/Application Support/gemini-search-mcp
	Cache   string // a private dir too: home/Library/Caches
	Project string // home/src/project, a folder a client may hand over
	ToConf  string // home/src/settings, a symbolic link to the config dir
	ToSSH   string // home/src/keys, a symbolic link to home/.ssh
	ToProj  string // home/src/current, a symbolic link to the project
	ToOut   string // home/src/elsewhere, a symbolic link to outside
	Outside string // a folder under no root
}

// NewTree builds the tree in a temporary folder of t.
func NewTree(t testing.TB) Tree {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir()) // macOS: /var is a link to /private/var
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "home")
	f := Tree{Home: home, SSH: filepath.Join(home, ".ssh"),
		Config:  filepath.Join(home, "Library", "Application Support", "gemini-search-mcp"),
		Cache:   filepath.Join(home, "Library", "Caches"),
		Project: filepath.Join(home, "src", "project"),
		ToConf:  filepath.Join(home, "src", "settings"), ToSSH: filepath.Join(home, "src", "keys"),
		ToProj: filepath.Join(home, "src", "current"), ToOut: filepath.Join(home, "src", "elsewhere"),
		Outside: filepath.Join(base, "elsewhere")}
	for _, d := range []string{f.SSH, filepath.Join(f.Config, "prompts"), f.Config + "2", f.Cache, f.Project, f.Outside} {
		Mkdir(t, d)
	}
	for _, file := range []string{filepath.Join(f.Config, ".env"), filepath.Join(f.SSH, "id_ed25519")} {
		if err := os.WriteFile(file, []byte("SECRET=1\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{f.ToConf: f.Config, f.ToSSH: f.SSH, f.ToProj: f.Project, f.ToOut: f.Outside} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// Mkdir makes dir and its parents, or fails the test.
func Mkdir(t testing.TB, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
}
