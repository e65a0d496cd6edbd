package gemini_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
)

// TestRunGuardsAtPaths: the prompt the CLI reads keeps an @path only for a file in the run's folders, as its
// absolute path; any other @ comes escaped, so that the CLI reads no file of its own folder or elsewhere for it.
func TestRunGuardsAtPaths(t *testing.T) {
	t.Parallel()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
	r := gemini.NewRunner(gemini.Config{Command: fake.Command(), Dir: t.TempDir(), ExtraEnv: fake.Env()})
	defer r.Close()
	for _, dirs := range [][]string{nil, {ws}} {
		if _, err := r.Run(context.Background(), backend.Request{Prompt: "Read @notes.txt and @.env", Dirs: dirs}); err != nil {
			t.Fatal(err)
		}
	}
	calls := fake.Calls()
	if len(calls) != 2 {
		t.Fatalf("got %d runs, want 2", len(calls))
	}
	if got := calls[0].Stdin; !strings.Contains(got, `Read \@notes.txt and \@.env`) {
		t.Errorf("no folders: the CLI read %q, want every @ escaped", got)
	}
	ref := filepath.Join(ws, "notes.txt")
	if strings.Contains(ref, " ") { // as the CLI writes a path with spaces
		ref = strings.ReplaceAll(ref, " ", `\ `)
		if runtime.GOOS == "windows" {
			ref = `"` + filepath.Join(ws, "notes.txt") + `"`
		}
	}
	if got, want := calls[1].Stdin, "Read @"+ref+` and \@.env`; !strings.Contains(got, want) {
		t.Errorf("with a folder: the CLI read %q, want %q", got, want)
	}
}
