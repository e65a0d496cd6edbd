// Package prompts embeds the prompt templates given to the Gemini CLI research agent.
//
// Templates use the placeholders {topic}, {depth}, {model}, {date} and {max_iterations}; Render fills them in one pass,
// so placeholder-like text inside a user's query stays literal.
package prompts

import (
	"embed"
	"fmt"
	"strconv"
	"strings"
)

//go:embed *.md
var files embed.FS

// Research is the name of the single-round research template used by the search tool.
const Research = "research.md"

// Load returns the embedded template with the given file name.
func Load(name string) (string, error) {
	b, err := files.ReadFile(name)
	if err != nil {
		return "", fmt.Errorf("load prompt %s: %w", name, err)
	}
	return string(b), nil
}

// Values are the substitutions for a template's placeholders.
type Values struct {
	Topic         string
	Depth         string
	Model         string
	Date          string
	MaxIterations int
}

// Render substitutes every placeholder in one pass: text that a substitution inserts is never scanned again.
func Render(template string, v Values) string {
	return strings.NewReplacer(
		"{topic}", v.Topic,
		"{depth}", v.Depth,
		"{model}", v.Model,
		"{date}", v.Date,
		"{max_iterations}", strconv.Itoa(v.MaxIterations),
	).Replace(template)
}
