package prompts

import (
	"strings"
	"testing"
)

// FuzzRender renders a template (an embedded one, or a user's replacement) with the texts a user or a model wrote:
// a topic, a request, a draft, an answer, a JSON Schema, validation errors. Each goes in verbatim and is never read
// as a template: braces, placeholders ("{topic}", "{{.Topic}}") and all. So rendering with the texts equals
// rendering with markers in their places, then putting each text where its marker is.
func FuzzRender(f *testing.F) {
	for _, name := range Names {
		tmpl, err := Load(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(tmpl, "why does {depth} stay literal? {model}", "Compare {{.Topic}} with {{template \"x\"}}",
			"# Draft\n{draft}", "```json\n{\"report\": \"{output}\"}\n```", `{"type":"object"}`, "missing {schema}")
	}
	f.Add("T={topic} D={depth} at {date}, {max_iterations} steps", "{topic}{topic", "{prompt}", "}{", "{", "}", "{errors}")
	f.Add("Read {prior_report}, then answer {prompt} from [{next_source}] on.", "", "{prior_report} [{next_source}]",
		"", "", "", "")
	f.Fuzz(func(t *testing.T, tmpl, topic, prompt, draft, output, schema, errs string) {
		if strings.Contains(tmpl, "\x00") {
			t.Skip("the markers below are made of NUL bytes, which no template holds")
		}
		server := Values{Depth: "detailed", Model: "gemini-2.5-pro", Date: "2026-11-21", MaxIterations: 7, MaxSources: 8,
			Round: 2, MaxRounds: 3, PriorReport: "@prior-report.md", NextSource: 4}
		written := server
		written.Topic, written.Prompt, written.Draft, written.Output, written.Schema, written.Errors =
			topic, prompt, draft, output, schema, errs
		marked := server
		marked.Topic, marked.Prompt, marked.Draft, marked.Output, marked.Schema, marked.Errors =
			"\x00topic\x00", "\x00prompt\x00", "\x00draft\x00", "\x00output\x00", "\x00schema\x00", "\x00errors\x00"

		got := Render(tmpl, written)
		want := strings.NewReplacer(marked.Topic, topic, marked.Prompt, prompt, marked.Draft, draft,
			marked.Output, output, marked.Schema, schema, marked.Errors, errs).Replace(Render(tmpl, marked))
		if got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
		if strings.Contains(tmpl, "{topic}") && !strings.Contains(got, topic) {
			t.Errorf("the topic %q is not in the prompt verbatim: %q", topic, got)
		}
		if !strings.Contains(tmpl, "{") && got != tmpl {
			t.Errorf("a template without placeholders changed: got %q, want %q", got, tmpl)
		}
	})
}
