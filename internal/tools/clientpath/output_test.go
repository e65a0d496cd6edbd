package clientpath

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools/clientpath/clientpathtest"
)

func TestOutputPath(t *testing.T) {
	t.Parallel()
	const cwd, dir = "/home/me/project", "/srv/reports"
	tests := []struct {
		name    string
		arg     string
		stdio   bool
		cwd     string
		dir     string
		want    Output
		wantErr string
	}{
		{"stdio relative", "notes/r.md", true, cwd, "", Output{Path: "/home/me/project/notes/r.md"}, ""},
		{"stdio relative up", "../r.md", true, cwd, "", Output{Path: "/home/me/r.md"}, ""},
		{"stdio absolute", "/tmp/a/../r.md", true, cwd, "", Output{Path: "/tmp/r.md"}, ""},
		{"stdio ignores the output dir", "/etc/r.md", true, cwd, dir, Output{Path: "/etc/r.md"}, ""},
		{"stdio relative without a cwd", "r.md", true, "", "", Output{}, "working directory is unknown"},
		{"http without an output dir", "r.md", false, cwd, "", Output{}, "GEMINI_OUTPUT_DIR is not set"},
		{"http relative", "a/b.md", false, cwd, dir, Output{Path: "/srv/reports/a/b.md", dir: dir}, ""},
		{"http absolute inside", "/srv/reports/b.md", false, cwd, dir, Output{Path: "/srv/reports/b.md", dir: dir}, ""},
		{"http dot dot", "../x.md", false, cwd, dir, Output{}, "outside GEMINI_OUTPUT_DIR"},
		{"http dot dot inside a path", "a/../../x.md", false, cwd, dir, Output{}, "outside GEMINI_OUTPUT_DIR"},
		{"http absolute elsewhere", "/etc/x.md", false, cwd, dir, Output{}, "outside GEMINI_OUTPUT_DIR"},
		{"http a sibling with the same prefix", "/srv/reports2/x.md", false, cwd, dir, Output{}, "outside GEMINI_OUTPUT_DIR"},
		{"http the output dir itself", ".", false, cwd, dir, Output{}, "outside GEMINI_OUTPUT_DIR"},
		{"a folder", "notes/", true, cwd, "", Output{}, "names a folder"},
		{"blank", "  ", true, cwd, "", Output{}, "not only white space"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := OutputPath(tt.arg, tt.stdio, tt.cwd, tt.dir)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("got %+v, %v; want an error mentioning %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestConfineFollowsSymlinks(t *testing.T) {
	t.Parallel()
	root, outside := t.TempDir(), t.TempDir()
	dir := filepath.Join(root, "reports")
	clientpathtest.Mkdir(t, filepath.Join(dir, "sub"))
	for link, target := range map[string]string{
		"out":      outside,                        // a folder elsewhere
		"out.md":   filepath.Join(outside, "x.md"), // a file elsewhere, not there yet
		"in":       filepath.Join(dir, "sub"),      // a folder inside
		"../alias": dir,                            // the output dir itself, reached through a link
		"sub/up":   "../..",                        // a relative link that climbs out
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		dir, arg string
		ok       bool
	}{
		{dir, "new/deeper/r.md", true},
		{dir, "in/r.md", true},
		{dir, "sub/r.md", true},
		{filepath.Join(root, "alias"), "in/r.md", true},
		{dir, "out/r.md", false},
		{dir, "out.md", false},
		{dir, "sub/up/r.md", false},
		{filepath.Join(root, "alias"), "out/r.md", false},
	}
	for _, tt := range tests {
		t.Run(tt.arg, func(t *testing.T) {
			o, err := OutputPath(tt.arg, false, "", tt.dir)
			if err != nil {
				t.Fatal(err)
			}
			err = o.Confine()
			if tt.ok && err != nil {
				t.Errorf("got %v, want it allowed", err)
			}
			if !tt.ok && (err == nil || !strings.Contains(err.Error(), "through a symbolic link")) {
				t.Errorf("got %v, want it refused for its symbolic link", err)
			}
		})
	}
}
