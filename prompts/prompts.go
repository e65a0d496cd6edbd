// Package prompts embeds the prompt templates given to the research backends: the Gemini CLI agent and the Gemini API.
// A file of the same name in the config dir's prompts folder replaces a template (Overrides).
//
// Templates use the placeholders {topic}, {depth}, {model}, {date}, {max_iterations}, {max_sources}, for verification and
// correction {draft}, {round}, {max_rounds}, {output} and {schema}, for ask {prompt}, and for a follow-up {prompt},
// {prior_report} and {next_source}. Render fills them in one pass, so placeholder-like text inside a user's query
// stays literal.
package prompts

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

//go:embed *.md
var files embed.FS

// Template names.
const (
	Research      = "research.md"       // a research round: search and deep_search's first round
	Verify        = "verify.md"         // a deep_search verification round
	Correction    = "correction.md"     // turns an answer that was not valid JSON into the required JSON
	Ask           = "ask.md"            // the ask tool: a free request, answered with the research tools
	Structured    = "structured.md"     // the structured tool: a request answered in a caller's JSON Schema
	StructuredFix = "structured-fix.md" // the structured tool's one correction, quoting the validation errors
	FollowUp      = "follow-up.md"      // the follow_up tool: a further question about an earlier report
	APISystem     = "api-system.md"     // the Gemini API backend's system instruction, with every prompt above
)

// Names lists the templates, each of which a file can replace.
var Names = []string{Research, Verify, Correction, Ask, Structured, StructuredFix, FollowUp, APISystem}

// required are the placeholders a template cannot do without, with what goes there: what its prompt is about.
var required = map[string][][2]string{
	Research:   {{"{topic}", "the research question"}},
	Verify:     {{"{topic}", "the research question"}, {"{draft}", "the report to check"}},
	Correction: {{"{output}", "the answer to turn into JSON"}, {"{schema}", "the JSON shape wanted"}},
	Ask:        {{"{prompt}", "the request"}},
	Structured: {{"{prompt}", "the request"}, {"{schema}", "the caller's JSON Schema"}},
	StructuredFix: {{"{output}", "the answer to correct"}, {"{schema}", "the caller's JSON Schema"},
		{"{errors}", "the validation errors"}},
	FollowUp: {{"{prompt}", "the follow-up question"},
		{"{prior_report}", "the reference to the earlier report, which brings the agent its text"}},
}

// Check says what text lacks to stand for the template name: "must contain the {topic} placeholder, where the
// research question goes".
func Check(name, text string) error {
	var missing []string
	for _, p := range required[name] {
		if !strings.Contains(text, p[0]) {
			missing = append(missing, fmt.Sprintf("the %s placeholder, where %s goes", p[0], p[1]))
		}
	}
	if len(missing) > 0 {
		return errors.New("must contain " + strings.Join(missing, ", and "))
	}
	return nil
}

// Load returns the embedded template with the given file name.
func Load(name string) (string, error) {
	b, err := files.ReadFile(name)
	if err != nil {
		return "", fmt.Errorf("load prompt %s: %w", name, err)
	}
	return string(b), nil
}

// Template returns the template name: its replacement in overrides when there is one, else the embedded one.
func Template(name string, overrides map[string]string) (string, error) {
	if t, ok := overrides[name]; ok {
		return t, nil
	}
	return Load(name)
}

// Overrides reads the replacements of the templates in dir (the config dir's prompts folder): research.md there
// replaces the research template, and so on. A missing folder replaces nothing. A Markdown file named like no
// template (a typo), an unreadable one, or one that lacks a required placeholder is an error naming it, so that a
// replacement never silently goes unused.
func Overrides(dir string) (map[string]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the prompts folder: %w", err)
	}
	var errs []error
	overrides := map[string]string{}
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(dir, name)
		switch {
		case filepath.Ext(name) != ".md" || e.IsDir():
			continue
		case !slices.Contains(Names, name):
			errs = append(errs, fmt.Errorf("%s: not a prompt the server uses (%s)", path, strings.Join(Names, ", ")))
			continue
		}
		b, err := os.ReadFile(path)
		switch {
		case err != nil:
			errs = append(errs, err)
		case strings.TrimSpace(string(b)) == "":
			errs = append(errs, fmt.Errorf("%s: is empty (delete it to use the built-in prompt)", path))
		default:
			if err := Check(name, string(b)); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", path, err))
				continue
			}
			overrides[name] = string(b)
		}
	}
	return overrides, errors.Join(errs...)
}

// Values are the substitutions for a template's placeholders.
type Values struct {
	Topic         string
	Depth         string
	Model         string
	Date          string
	MaxIterations int
	MaxSources    int    // the most sources a report cites
	Draft         string // verify: the report to check
	Round         int    // verify: this round's number
	MaxRounds     int    // verify: the most rounds there will be
	Output        string // correction: the text to turn into JSON
	Schema        string // correction: the JSON shape wanted
	Prompt        string // ask, structured: the request
	Errors        string // structured-fix: why the last answer did not validate
	PriorReport   string // follow-up: how the prompt refers to the earlier report (@prior-report.md)
	NextSource    int    // follow-up: the number of the first source the answer adds to the earlier report's
}

// Render substitutes every placeholder in one pass: text that a substitution inserts is never scanned again.
func Render(template string, v Values) string {
	return strings.NewReplacer(
		"{topic}", v.Topic,
		"{depth}", v.Depth,
		"{model}", v.Model,
		"{date}", v.Date,
		"{max_iterations}", strconv.Itoa(v.MaxIterations),
		"{max_sources}", strconv.Itoa(v.MaxSources),
		"{draft}", v.Draft,
		"{round}", strconv.Itoa(v.Round),
		"{max_rounds}", strconv.Itoa(v.MaxRounds),
		"{output}", v.Output,
		"{schema}", v.Schema,
		"{prompt}", v.Prompt,
		"{errors}", v.Errors,
		"{prior_report}", v.PriorReport,
		"{next_source}", strconv.Itoa(v.NextSource),
	).Replace(template)
}
