package research_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	mg "github.com/gemini-search-mcp/gemini-search-mcp/internal/mockgemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
)

// TestFollowUpOnTheAPI: the request carries the prior report and its numbered sources as a part of its own after
// the prompt; the grounding's sources that are prior ones take their numbers, the others follow them, and a marker
// the model wrote for no prior source is dropped, from the answer and from the segment that quotes it.
func TestFollowUpOnTheAPI(t *testing.T) {
	t.Parallel()
	prior := research.Prior{ID: "20261122T100000.123456-0a1b2c3d", Topic: "Föhn in Munich",
		Report: "# Föhn\n\nThe Föhn is a warm wind [1]. It brings headaches, some say [2].",
		Sources: []backend.Source{{URL: "https://de.example/foehn", Title: "Föhn-Lexikon"},
			{URL: "https://med.example/headache", Title: "Föhn and headaches"}}}
	mock := mg.New()
	report := "Headaches are disputed [2]. A 2025 study finds no link [7]. The wind is warm."
	mock.Handle(mg.KindSearch, mg.Always(mg.GroundedAnswer(jsonAnswer(report),
		[]mg.Source{{URI: "https://study.example/2025", Title: "A 2025 study"}, {URI: "https://de.example/foehn", Title: "Föhn"}},
		mg.Cite("A 2025 study finds no link [7].", 0), mg.Cite("The wind is warm.", 1))))
	e := apiEngine(t, mock, time.Minute, research.Settings{})

	rep, err := e.FollowUp(t.Context(), research.FollowUpRequest{Question: "Does the Föhn cause headaches?", Prior: prior})
	if err != nil {
		t.Fatal(err)
	}
	want := "Headaches are disputed [2]. A 2025 study finds no link.[3] The wind is warm.[1]"
	if rep.Summary != want || !strings.Contains(rep.Report, "**Sources:**\n1. [Föhn-Lexikon](https://de.example/foehn)\n"+
		"2. [Föhn and headaches](https://med.example/headache)\n3. [A 2025 study](https://study.example/2025)\n") {
		t.Errorf("report:\n got %q\nwant %q and the three sources", rep.Report, want)
	}
	if m := rep.Metadata; m.FollowUpOf != prior.ID || len(m.Citations) != 2 || m.Citations[0].Sources[0] != 3 ||
		m.Citations[1].Sources[0] != 1 || m.Sources[2].Snippet != "A 2025 study finds no link." {
		t.Errorf("metadata: %+v", m)
	}

	reqs := mock.RequestsOf(mg.KindSearch)
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	var body struct {
		Contents []struct {
			Role  string
			Parts []struct{ Text string }
		}
	}
	if err := json.Unmarshal(reqs[0].Body, &body); err != nil || len(body.Contents) != 1 || len(body.Contents[0].Parts) != 2 {
		t.Fatalf("the request is not one turn of the prompt and the prior report: %s (%v)", reqs[0].Body, err)
	}
	prompt, doc := body.Contents[0].Parts[0].Text, body.Contents[0].Parts[1].Text
	if !strings.Contains(prompt, "is in @prior-report.md.") || strings.Contains(prompt, prior.Report) {
		t.Errorf("the prompt does not refer to the prior report apart:\n%s", prompt)
	}
	for _, want := range []string{"--- Content from @prior-report.md ---\n<prior_research", prior.Report,
		"[1] Föhn-Lexikon: https://de.example/foehn", "[2] Föhn and headaches: https://med.example/headache",
		"</prior_research>\n\n--- End of @prior-report.md ---"} {
		if !strings.Contains(doc, want) {
			t.Errorf("the prior report's part lacks %q:\n%s", want, doc)
		}
	}
}

// TestFollowUpOnTheAPIMarksEachSourceOnce: a segment the grounding cites with a prior source whose marker the model
// wrote already, in it or right after it, gets no second marker for that source, only those of the others; and a
// segment that spans code is found by its place in the answer, so that its citation is kept.
func TestFollowUpOnTheAPIMarksEachSourceOnce(t *testing.T) {
	t.Parallel()
	prior := research.Prior{ID: "20261122T100000.123456-0a1b2c3d", Topic: "Föhn in Munich",
		Report: "# Föhn\n\nThe Föhn is a warm wind [1]. It brings headaches, some say [2].",
		Sources: []backend.Source{{URL: "https://de.example/foehn", Title: "Föhn-Lexikon"},
			{URL: "https://med.example/headache", Title: "Föhn and headaches"}}}
	mock := mg.New()
	report := "Headaches are disputed [2]. Föhn days are warm.[1] Set the heating so:\n```\nlevel = [5]\n```\n" +
		"That keeps a room warm."
	answer := jsonAnswer(report)
	// The segment of the code block, as the JSON answer has it, escapes and all.
	code := answer[strings.Index(answer, "level = [5]") : strings.Index(answer, "warm.\"")+len("warm.")]
	mock.Handle(mg.KindSearch, mg.Always(mg.GroundedAnswer(answer,
		[]mg.Source{{URI: "https://med.example/headache", Title: "Headaches"}, {URI: "https://study.example/2025",
			Title: "A 2025 study"}, {URI: "https://de.example/foehn", Title: "Föhn"}},
		mg.Cite("Headaches are disputed [2].", 0, 1), mg.Cite("Föhn days are warm.", 2), mg.Cite(code, 1))))
	e := apiEngine(t, mock, time.Minute, research.Settings{})

	rep, err := e.FollowUp(t.Context(), research.FollowUpRequest{Question: "Does the Föhn cause headaches?", Prior: prior})
	if err != nil {
		t.Fatal(err)
	}
	want := "Headaches are disputed [2].[3] Föhn days are warm.[1] Set the heating so:\n```\nlevel = [5]\n```\n" +
		"That keeps a room warm.[3]"
	if rep.Summary != want {
		t.Errorf("report:\n got %q\nwant %q", rep.Summary, want)
	}
	if c := rep.Metadata.Citations; len(c) != 3 || !slices.Equal(c[0].Sources, []int{2, 3}) ||
		c[2].Text != "level = [5]\n```\nThat keeps a room warm." || !slices.Equal(c[2].Sources, []int{3}) {
		t.Errorf("citations %+v, want the three segments, each with the report's numbers", c)
	}
	if s := rep.Metadata.ClaimsSupported; s == nil || *s != 3 {
		t.Errorf("%v claims supported, want 3", s)
	}
}
