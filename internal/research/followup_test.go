package research

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
)

// priorOfTwo is a prior report with two numbered sources.
var priorOfTwo = Prior{ID: "20261122T100000.123456-0a1b2c3d", Topic: "Föhn in Munich",
	Report: "# Föhn\n\nThe Föhn is a warm wind [1]. It brings headaches, some say [2].",
	Sources: []backend.Source{
		{URL: "https://de.example/foehn", Title: "Föhn-Lexikon"},
		{URL: "https://med.example/headache", Title: "Föhn and headaches"},
	}}

func TestRenumber(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, text string
		number     map[int]int
		want       string
	}{
		{"prior markers stay, others go", "Warm [1]. Stray [3]. Two [1][2][9] and on [5], or [0]!",
			nil, "Warm [1]. Stray. Two [1][2] and on, or!"},
		{"the agent's numbers become the report's", "New [3], old again [4], prior [2].",
			map[int]int{3: 5, 4: 1}, "New [5], old again [1], prior [2]."},
		{"no marker in indexes, links or code", "a[3] and [3](https://x.example) and `b [3]`\n```\nc = [3]\n```\nend [3]",
			nil, "a[3] and [3](https://x.example) and `b [3]`\n```\nc = [3]\n```\nend"},
		{"a cut-off fence keeps the rest as code", "x [3]\n```\n[3]", nil, "x\n```\n[3]"},
		{"groups and ranges become the markers of their numbers", "A [1, 4]. B [3-5]. C [1–2, 4]. D [2,2]. E [4, 5].",
			map[int]int{4: 3}, "A [1][3]. B [3]. C [1][2][3]. D [2]. E [3]."},
		{"groups of no source go", "A [3, 5]. B [6-8].", nil, "A. B."},
		{"no marker in years or long spans", "In [2020-2021] and [1-40] and [5-3].", nil, "In [2020-2021] and [1-40] and [5-3]."},
		{"no marker in intervals, thousands or lists past the sources", "In [0, 1], [0, 255], [01-3], [1,000] and [1, 2, 30]; ages [10-12].",
			nil, "In [0, 1], [0, 255], [01-3], [1,000] and [1, 2, 30]; ages [10-12]."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, _ := renumber(tc.text, 2, 9, tc.number); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// renumber tells where each place of the text went, so that a part of it is found in the result.
func TestRenumberMovesPlaces(t *testing.T) {
	t.Parallel()
	text := "One [7]. Two [3] and [1]."
	got, moved := renumber(text, 2, 0, map[int]int{3: 4})
	if got != "One. Two [4] and [1]." {
		t.Fatalf("got %q", got)
	}
	for _, tc := range []struct{ part, want string }{
		{"Two [3] and", "Two [4] and"}, {"[1].", "[1]."}, {"One [7].", "One."}, {"[7]. Two", ". Two"}, {text, got},
	} {
		at := strings.Index(text, tc.part)
		if part := got[moved(at):moved(at+len(tc.part))]; part != tc.want {
			t.Errorf("%q became %q, want %q", tc.part, part, tc.want)
		}
	}
}

// TestFollowUpOnTheCLI: the agent gets the prior report and its numbered sources as a file of the run's own folder
// that its prompt names; the answer keeps the prior sources' numbers, a source it lists again under a new number is
// the prior one, a new one follows them, and a marker of no source is dropped. The folder is gone after the run.
func TestFollowUpOnTheCLI(t *testing.T) {
	t.Setenv(geminitest.EnvAnswer, "```json\n"+`{"success": true,
  "report": "Headaches are disputed [2]; a 2025 study finds none [3]; the wind is warm [4]; see also [9].",
  "metadata": {"sources": [
    {"number": 2, "url": "https://med.example/headache", "title": "Föhn and headaches"},
    {"number": 3, "url": "https://study.example/2025", "title": "A 2025 study", "snippet": "No link\nfound."},
    {"number": 4, "url": "https://de.example/foehn", "title": "Föhn-Lexikon"}],
   "sources_visited": ["https://study.example/2025"], "search_queries_used": ["föhn headache study"], "iterations": 2}}`+"\n```")
	e, fake, _ := newEngine(t, geminitest.ScenarioOK, Settings{})
	rep, err := e.FollowUp(context.Background(), FollowUpRequest{Question: "Does the Föhn cause headaches?", Prior: priorOfTwo})
	if err != nil {
		t.Fatal(err)
	}
	wantText := "Headaches are disputed [2]; a 2025 study finds none [3]; the wind is warm [1]; see also."
	if rep.Summary != wantText || !strings.HasPrefix(rep.Report, wantText+"\n\n---\n**Sources:**\n"+
		"1. [Föhn-Lexikon](https://de.example/foehn)\n2. [Föhn and headaches](https://med.example/headache)\n"+
		"3. [A 2025 study](https://study.example/2025)\n") {
		t.Errorf("report %q", rep.Report)
	}
	if !strings.HasSuffix(rep.Report, "*A follow-up of report "+priorOfTwo.ID+" (Föhn in Munich): its sources keep "+
		"their numbers here.*") {
		t.Errorf("the report does not say what it follows up: %q", rep.Report)
	}
	m := rep.Metadata
	if m.FollowUpOf != priorOfTwo.ID || m.Topic != "Does the Föhn cause headaches?" || len(m.Sources) != 3 ||
		m.Sources[2].Snippet != "No link found." {
		t.Errorf("metadata: %+v", m)
	}

	calls := fake.Calls()
	if len(calls) != 1 {
		t.Fatalf("%d runs, want 1", len(calls))
	}
	i := slices.Index(calls[0].Args, "--include-directories")
	if i < 0 || i+1 == len(calls[0].Args) {
		t.Fatalf("the run has no folder of its own: %q", calls[0].Args)
	}
	folder := calls[0].Args[i+1]
	if len(calls[0].Refs) != 1 {
		t.Fatalf("the prompt names %d files, want the prior report: %q", len(calls[0].Refs), calls[0].Stdin)
	}
	for path, text := range calls[0].Refs {
		// The folder's own name: the prompt names the file by the folder's path with links resolved.
		if filepath.Base(path) != "prior-report.md" || filepath.Base(filepath.Dir(path)) != filepath.Base(folder) {
			t.Errorf("the prompt names %s, want prior-report.md in the run's folder %s", path, folder)
		}
		for _, want := range []string{priorOfTwo.Report, "[1] Föhn-Lexikon: https://de.example/foehn",
			"[2] Föhn and headaches: https://med.example/headache", `<prior_research id="` + priorOfTwo.ID + `">`} {
			if !strings.Contains(text, want) {
				t.Errorf("the prior report's file lacks %q:\n%s", want, text)
			}
		}
		if !strings.Contains(calls[0].Stdin, "@"+path) || strings.Contains(calls[0].Stdin, priorOfTwo.Report) ||
			!strings.Contains(calls[0].Stdin, "from [3] on") {
			t.Errorf("the prompt does not point to the file (or holds the report itself):\n%s", calls[0].Stdin)
		}
		if strings.Contains(strings.Join(calls[0].Args, " "), "warm wind") {
			t.Errorf("the report is in argv: %q", calls[0].Args)
		}
	}
	if _, err := os.Stat(folder); !os.IsNotExist(err) {
		t.Errorf("the run's folder %s outlives the run: %v", folder, err)
	}
}

// TestFollowUpWithoutJSON: an answer that is not JSON keeps the prior sources and their markers, and drops the
// markers of sources it never listed.
func TestFollowUpWithoutJSON(t *testing.T) {
	t.Setenv(geminitest.EnvAnswer, "The wind is warm [1], and dry [4].")
	e, _, _ := newEngine(t, geminitest.ScenarioOK, Settings{})
	rep, err := e.FollowUp(context.Background(), FollowUpRequest{Question: "Is it dry?", Prior: priorOfTwo})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.ParseWarning || rep.Summary != "The wind is warm [1], and dry." || len(rep.Metadata.Sources) != 2 {
		t.Errorf("got %q, sources %+v", rep.Report, rep.Metadata.Sources)
	}
}
