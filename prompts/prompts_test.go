package prompts

import (
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
