// Package attach carries the documents a research prompt refers to by name, as @name (the earlier report a
// follow-up builds on), from the engine to the backend that runs the prompt, with the run's context: the Gemini CLI
// gets each as a file in a folder of the run's own, whose contents its @name reference then reads, and the Gemini
// API as a part of its request after the prompt. It imports nothing of the engine, so that the backends can import
// it.
package attach

import (
	"context"
	"regexp"
	"slices"
	"strings"
)

// Document is a text that a prompt refers to as @Name.
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

type key struct{}

// With is ctx carrying docs, besides those it carries already, for the prompts run with it that name them.
func With(ctx context.Context, docs ...Document) context.Context {
	had, _ := ctx.Value(key{}).([]Document)
	return context.WithValue(ctx, key{}, slices.Concat(had, docs))
}

// Named are the documents ctx carries that prompt refers to (@name), with a plain name: a run gets only the
// documents its own prompt names, so that the other runs of the same call (a JSON correction) go without them.
func Named(ctx context.Context, prompt string) []Document {
	docs, _ := ctx.Value(key{}).([]Document)
	var named []Document
	for _, d := range docs {
		if PlainName(d.Name) && strings.Contains(prompt, d.Ref()) {
			named = append(named, d)
		}
	}
	return named
}
