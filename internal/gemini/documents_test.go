package gemini_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
)

// priorReport are the documents of a follow-up's request: the one its prompt names, and one no prompt names.
var priorReport = []backend.Document{{Name: "prior-report.md", Text: "# Earlier research\n[1] x"},
	{Name: "unused.md", Text: "never handed over"}}

// envDocumentsServer makes the test binary a server that runs a follow-up (serveDocuments) instead of its tests:
// its value is the server's documentsServer, as JSON.
const envDocumentsServer = "GEMINI_TEST_DOCUMENTS_SERVER"

// documentsServer is how serveDocuments runs the CLI: in folder Dir, recording in Runs, with the fake's variables.
type documentsServer struct {
	Dir, Runs string
	Env       []string
}

// serveDocuments is a server whose run of a follow-up, handing the CLI priorReport, lasts until the server is
// killed (the CLI hangs); it says on stderr why the run ended, if it does.
func serveDocuments() int {
	var s documentsServer
	if err := json.Unmarshal([]byte(os.Getenv(envDocumentsServer)), &s); err != nil {
		fmt.Fprintln(os.Stderr, "documents server:", err)
		return 2
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "documents server:", err)
		return 2
	}
	r := gemini.NewRunner(gemini.Config{Command: gemini.Command{Path: exe}, Dir: s.Dir, RunsDir: s.Runs, ExtraEnv: s.Env})
	_, err = r.Run(context.Background(), backend.Request{Prompt: "Answer from @prior-report.md.", Documents: priorReport})
	fmt.Fprintln(os.Stderr, "documents server: the run ended:", err)
	return 1
}

// includedFolder is the folder a run of the fake added to its workspace; "" for none.
func includedFolder(c geminitest.Call) string {
	if i := slices.Index(c.Args, "--include-directories"); i >= 0 && i+1 < len(c.Args) {
		return c.Args[i+1]
	}
	return ""
}

// TestRunHandsDocumentsAsFiles: a document the prompt names reaches the CLI as a file of a folder of the run's own,
// which the prompt's @ reference brings the CLI, not as text of its prompt or argv; the folder is gone after the
// run. A run whose prompt names no document gets no folder.
func TestRunHandsDocumentsAsFiles(t *testing.T) {
	t.Parallel()
	fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
	r := newRunner(t, fake, nil)
	defer r.Close()
	for _, prompt := range []string{"Answer from @prior-report.md.", "Correct this JSON."} {
		if _, err := r.Run(context.Background(), backend.Request{Prompt: prompt, Documents: priorReport}); err != nil {
			t.Fatal(err)
		}
	}
	calls := fake.Calls()
	if len(calls) != 2 {
		t.Fatalf("got %d runs, want 2", len(calls))
	}
	folder := includedFolder(calls[0])
	if folder == "" || len(calls[0].Refs) != 1 {
		t.Fatalf("the run got no file for the document: args %q, files %v", calls[0].Args, calls[0].Refs)
	}
	for path, text := range calls[0].Refs {
		if filepath.Base(path) != "prior-report.md" || filepath.Base(filepath.Dir(path)) != filepath.Base(folder) ||
			text != "# Earlier research\n[1] x" {
			t.Errorf("the prompt names %s holding %q, want prior-report.md in %s", path, text, folder)
		}
		if !strings.Contains(calls[0].Stdin, "Answer from @"+path+".") || strings.Contains(calls[0].Stdin, "Earlier") {
			t.Errorf("the CLI read %q, want the file's path, not its text", calls[0].Stdin)
		}
	}
	if strings.Contains(strings.Join(calls[0].Args, " "), "Earlier") {
		t.Errorf("the document is in argv: %q", calls[0].Args)
	}
	if _, err := os.Stat(folder); !os.IsNotExist(err) {
		t.Errorf("the run's folder %s outlives the run: %v", folder, err)
	}
	if includedFolder(calls[1]) != "" || calls[1].Refs != nil {
		t.Errorf("a prompt that names no document got a folder: %q", calls[1].Args)
	}
}

// TestRunInlinesDocumentsWhenTheirFolderCannotBeNamed: when the temp folder's path is one the CLI could not read
// back from an @ reference (here: an accented letter), the document goes into the prompt itself, on stdin, after
// it, as the CLI would have put it there.
func TestRunInlinesDocumentsWhenTheirFolderCannotBeNamed(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("os.TempDir reads TMP on Windows, and quoteRef writes other paths there")
	}
	tmp := filepath.Join(t.TempDir(), "tëmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
	r := newRunner(t, fake, nil)
	defer r.Close()
	if _, err := r.Run(context.Background(), backend.Request{Prompt: "Answer from @prior-report.md.", Documents: priorReport}); err != nil {
		t.Fatal(err)
	}
	c := fake.Calls()[0]
	want := "Answer from \\@prior-report.md.\n--- Content from referenced files ---\nContent from \\@prior-report.md:\n" +
		"# Earlier research\n[1] x\n--- End of content ---"
	if strings.TrimSpace(c.Stdin) != want || includedFolder(c) != "" {
		t.Errorf("the CLI read %q with args %q, want %q and no folder", c.Stdin, c.Args, want)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "gemini-docs-*")); len(left) != 0 {
		t.Errorf("the unused folder is left: %v", left)
	}
}
