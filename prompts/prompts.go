// Package prompts embeds the prompt templates given to the research backends: the Gemini CLI agent and the Gemini API.
//
// Templates use the placeholders {topic}, {depth}, {model}, {date}, {max_iterations}, and for verification and
// correction {draft}, {round}, {max_rounds}, {output} and {schema}. Render fills them in one pass,
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

// Template names.
const (
	Research   = "research.md"   // a research round: search and deep_search's first round
	Verify     = "verify.md"     // a deep_search verification round
	Correction = "correction.md" // turns an answer that was not valid JSON into the required JSON
	APISystem  = "api-system.md" // the Gemini API backend's system instruction, with every prompt above
)

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
	Draft         string // verify: the report to check
	Round         int    // verify: this round's number
	MaxRounds     int    // verify: the most rounds there will be
	Output        string // correction: the text to turn into JSON
	Schema        string // correction: the JSON shape wanted
}

// Render substitutes every placeholder in one pass: text that a substitution inserts is never scanned again.
func Render(template string, v Values) string {
	return strings.NewReplacer(
		"{topic}", v.Topic,
		"{depth}", v.Depth,
		"{model}", v.Model,
		"{date}", v.Date,
		"{max_iterations}", strconv.Itoa(v.MaxIterations),
		"{draft}", v.Draft,
		"{round}", strconv.Itoa(v.Round),
		"{max_rounds}", strconv.Itoa(v.MaxRounds),
		"{output}", v.Output,
		"{schema}", v.Schema,
	).Replace(template)
}
