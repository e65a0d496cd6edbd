package gemini

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

// withDocuments hands the CLI req's documents that its prompt names, as files: each is written into a folder made
// for this run (documentsDir), which joins the run's folders (--include-directories), so that the prompt's @name
// reference, relative to that folder, brings the CLI the file's contents; only the folder's path goes into argv. A
// folder whose path the CLI could not read back from an @ reference (quoteRef: a user name with accents in the
// path, say) would bring the agent nothing: the documents then go into the prompt itself, on stdin, after it, as
// the CLI would have put them there. It returns the request to run and what removes the folder once the run has
// ended.
func withDocuments(req backend.Request, runsDir string) (backend.Request, func(), error) {
	docs := req.NamedDocuments()
	if len(docs) == 0 {
		return req, func() {}, nil
	}
	dir, err := documentsDir(runsDir)
	if err != nil {
		return req, nil, fmt.Errorf("make the folder of the run's documents: %w", err)
	}
	remove := func() { os.RemoveAll(dir) }
	resolved, err := filepath.EvalSymlinks(dir) // the path the prompt's reference is rewritten to (guardPrompt)
	readable := err == nil
	for _, d := range docs {
		if err := os.WriteFile(filepath.Join(dir, d.Name), []byte(d.Text), 0o600); err != nil {
			remove()
			return req, nil, fmt.Errorf("write the run's document %s: %w", d.Name, err)
		}
		_, quotable := quoteRef(filepath.Join(resolved, d.Name), runtime.GOOS == "windows")
		readable = readable && quotable
	}
	if !readable {
		remove()
		req.Prompt = inlined(req.Prompt, docs)
		return req, func() {}, nil
	}
	req.Dirs = append(slices.Clip(req.Dirs), dir)
	return req, remove, nil
}

// documentsPrefix starts the name of a folder of a run's documents in the runs folder; the process id and start
// time (procStart) of the server that made it follow, which tell SweepLeftovers whether that server still runs.
const documentsPrefix = "docs-"

// documentsDir makes the folder of a run's documents, private to the user (they hold a report the user researched):
// in runsDir, named for this server (documentsPrefix), so that once the server is gone, however it ended, the next
// one to start removes what it left (SweepLeftovers); without a runsDir, in the system's temp folder.
func documentsDir(runsDir string) (string, error) {
	if runsDir == "" {
		return os.MkdirTemp("", "gemini-docs-")
	}
	if err := os.MkdirAll(runsDir, 0o700); err != nil {
		return "", err
	}
	return os.MkdirTemp(runsDir, fmt.Sprintf("%s%d-%d-", documentsPrefix, os.Getpid(), procStart(os.Getpid())))
}

// inlined is prompt followed by the contents of docs, as the CLI follows a prompt with the files its @ references
// name.
func inlined(prompt string, docs []backend.Document) string {
	var b strings.Builder
	b.WriteString(prompt)
	b.WriteString("\n--- Content from referenced files ---")
	for _, d := range docs {
		fmt.Fprintf(&b, "\nContent from %s:\n%s", d.Ref(), d.Text)
	}
	b.WriteString("\n--- End of content ---")
	return b.String()
}
