package backend

import (
	"regexp"
	"strings"
)

// Document is a text a request's prompt refers to by name, as @Name (the earlier report a follow-up builds on): the
// Gemini CLI gets it as a file of a folder of the run's own, which its @Name reference then reads, and the Gemini
// API as a part of its request after the prompt.
type Document struct {
	Name string // a plain file name, e.g. prior-report.md: see PlainName
	Text string
}

// Ref is how a prompt refers to the document: @ and its name.
func (d Document) Ref() string { return "@" + d.Name }

// plainName is what a document's name looks like: a file name that names no folder, hidden file or path.
var plainName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$`)

// PlainName reports whether name can name a document: letters, digits, '-' and '_', with dots only between them.
func PlainName(name string) bool { return plainName.MatchString(name) }

// NamedDocuments are r's documents that its prompt refers to, with a plain name: a backend hands over no other.
func (r Request) NamedDocuments() []Document {
	var docs []Document
	for _, d := range r.Documents {
		if PlainName(d.Name) && strings.Contains(r.Prompt, d.Ref()) {
			docs = append(docs, d)
		}
	}
	return docs
}
