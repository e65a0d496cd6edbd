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

// withDocuments hands the CLI req's documents that its prompt names, as files: each is
// written into a folder made for this run, which joins the run's folders (--include-directories), so that the
// prompt's @name reference, relative to that folder, brings the CLI the file's contents; only the folder's path
// goes into argv. A folder whose path the CLI could not read back from an @ reference (quoteRef: a user name with
// accents in the temp folder's path, say) would bring the agent nothing: the documents then go into the prompt
// itself, on stdin, after it, as the CLI would have put them there. It returns the request to run and what removes
// the folder once the run has ended.
func withDocuments(req backend.Request) (backend.Request, func(), error) {
	docs := req.NamedDocuments()
	if len(docs) == 0 {
		return req, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "gemini-docs-") // private to the user
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
