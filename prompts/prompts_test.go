package prompts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRenderIsOnePass(t *testing.T) {
	t.Parallel()
	got := Render("T={topic} D={depth} M={model} at {date}, {max_iterations} steps", Values{
		Topic: "why does {depth} stay literal? {model}", Depth: "concise", Model: "gemini-2.5-pro", Date: "2026-11-21", MaxIterations: 7,
	})
	want := "T=why does {depth} stay literal? {model} D=concise M=gemini-2.5-pro at 2026-11-21, 7 steps"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestResearchTemplateHasEveryPlaceholder(t *testing.T) {
	t.Parallel()
	tmpl, err := Load(Research)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"{topic}", "{depth}", "{date}", "{max_iterations}", "```json"} {
		if !strings.Contains(tmpl, p) {
			t.Errorf("research template lacks %s", p)
		}
	}
}

// TestFollowUpTemplate: the follow-up prompt refers to the earlier report, so that the backend hands it over, and
// numbers the sources the answer adds after the report's.
func TestFollowUpTemplate(t *testing.T) {
	t.Parallel()
	tmpl, err := Load(FollowUp)
	if err != nil {
		t.Fatal(err)
	}
	got := Render(tmpl, Values{Prompt: "Is {topic} still true?", PriorReport: "@prior-report.md", NextSource: 4,
		Date: "2026-11-21", MaxIterations: 5, MaxSources: 12})
	for _, want := range []string{"is in @prior-report.md.", "<question>\nIs {topic} still true?\n</question>",
		"from [4] on", "at most 5 search or read steps", "```json"} {
		if !strings.Contains(got, want) {
			t.Errorf("the follow-up prompt lacks %q:\n%s", want, got)
		}
	}
	if err := Check(FollowUp, "Answer {prompt}."); err == nil || !strings.Contains(err.Error(), "{prior_report}") {
		t.Errorf("a follow-up template without {prior_report}: %v, want it refused", err)
	}
}

func TestEveryEmbeddedTemplatePassesItsCheck(t *testing.T) {
	t.Parallel()
	for _, name := range Names {
		tmpl, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := Check(name, tmpl); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestOverrides: a file named like a template replaces it; a typo, an empty file or a missing placeholder is an
// error naming the file, and the good files still count.
func TestOverrides(t *testing.T) {
	t.Parallel()
	if got, err := Overrides(filepath.Join(t.TempDir(), "none")); got != nil || err != nil {
		t.Errorf("a missing folder: %v, %v", got, err)
	}
	dir := t.TempDir()
	for name, text := range map[string]string{
		Verify:      "Check {draft} on {topic}.",
		APISystem:   "Answer briefly.",
		"notes.txt": "not a prompt",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Overrides(dir)
	if err != nil || len(got) != 2 || got[Verify] != "Check {draft} on {topic}." || got[APISystem] != "Answer briefly." {
		t.Fatalf("got %q, %v", got, err)
	}
	if tmpl, _ := Template(Verify, got); tmpl != got[Verify] {
		t.Errorf("Template did not take the replacement: %q", tmpl)
	}
	if tmpl, _ := Template(Research, got); !strings.Contains(tmpl, "autonomous research agent") {
		t.Errorf("Template did not fall back to the embedded one: %q", tmpl)
	}

	for name, text := range map[string]string{
		"reserch.md": "{topic}",
		Correction:   "Turn {output} into JSON.",
		Research:     "  \n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got, err = Overrides(dir)
	for _, want := range []string{
		"reserch.md: not a prompt the server uses",
		"correction.md: must contain the {schema} placeholder, where the JSON shape wanted goes",
		"research.md: is empty",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want it to say %q", err, want)
		}
	}
	if len(got) != 2 {
		t.Errorf("the good files were dropped: %q", got)
	}
}
