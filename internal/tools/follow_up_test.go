package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library"
	kept "github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
	mg "github.com/gemini-search-mcp/gemini-search-mcp/internal/mockgemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

// openLibrary is a research library of the test's own, which keeps reports.
func openLibrary(t *testing.T) *library.Library {
	t.Helper()
	lib, err := library.Open(filepath.Join(t.TempDir(), "library.db"),
		library.Options{Retention: library.Retention{MaxReports: 100}, Poll: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	return lib
}

// foehnReport is a finished deep_search's report, with two numbered sources, kept as this release keeps it: with
// the engine's metadata, which numbers them.
var foehnReport = kept.Report{
	Summary:  kept.Summary{Tool: "deep_search", Topic: "Föhn in Munich", Backend: "cli", Duration: time.Minute},
	Markdown: "# Föhn\n\nThe Föhn is a warm wind [1]. It brings headaches, some say [2].",
	Sources: []kept.Source{{URL: "https://de.example/foehn", Title: "Föhn-Lexikon"},
		{URL: "https://med.example/headache", Title: "Föhn and headaches"}},
	Metadata: json.RawMessage(`{"topic": "Föhn in Munich", "backend": "cli", "sources": [
		{"url": "https://de.example/foehn", "title": "Föhn-Lexikon"},
		{"url": "https://med.example/headache", "title": "Föhn and headaches"}]}`),
}

// keepResearch keeps rep in lib as the report of a research job that ended done, and returns the job's id and the
// report's.
func keepResearch(t *testing.T, lib *library.Library, rep kept.Report) (jobID, reportID string) {
	t.Helper()
	rep.Started = time.Now().Add(-rep.Duration)
	reportID, err := lib.Add(rep)
	if err != nil {
		t.Fatal(err)
	}
	jobID = keepJob(t, lib, kept.Job{Tool: rep.Tool, Topic: rep.Topic})
	if _, err := lib.UpdateJob(jobID, func(j *kept.Job) { j.State, j.ReportID = kept.JobDone, reportID }); err != nil {
		t.Fatal(err)
	}
	return jobID, reportID
}

// keepJob keeps j in lib under a fresh id, which it returns.
func keepJob(t *testing.T, lib *library.Library, j kept.Job) string {
	t.Helper()
	j.ID = kept.NewJobID()
	if err := lib.PutJob(j); err != nil {
		t.Fatal(err)
	}
	return j.ID
}

// checkAgainstSchema validates res against the output schema tool declares to c.
func checkAgainstSchema(t *testing.T, c *client.Client, tool string, res *mcp.CallToolResult) {
	t.Helper()
	b, _ := json.Marshal(res.StructuredContent)
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if err := declaredSchemas(t, c)[tool].Validate(inst); err != nil {
		t.Errorf("%s's result does not match its output schema: %v\n%s", tool, err, b)
	}
}

// TestFollowUpOnTheCLI: follow_up of finished research, named by its research_id or by its report's id, hands the
// CLI agent the stored report and its numbered sources as a file of the run's own folder, which its prompt names;
// the answer cites the report's sources with their numbers, and the source it adds with the next one.
func TestFollowUpOnTheCLI(t *testing.T) {
	t.Parallel()
	lib := openLibrary(t)
	jobID, reportID := keepResearch(t, lib, foehnReport)
	answer := "```json\n" + `{"success": true,
  "report": "Headaches are disputed [2]; a 2025 study finds no link [3].",
  "metadata": {"sources": [
    {"number": 2, "url": "https://med.example/headache", "title": "Föhn and headaches"},
    {"number": 3, "url": "https://study.example/2025", "title": "A 2025 study"}],
   "sources_visited": ["https://study.example/2025"], "search_queries_used": ["föhn headache study"], "iterations": 2}}` +
		"\n```"
	s, fake := localFakeServer(t, geminitest.ScenarioOK, 30*time.Second, Options{Library: lib},
		geminitest.EnvAnswer+"="+answer)
	c := connect(t, s)

	for i, id := range []string{jobID, reportID} {
		question := []string{"Does the Föhn cause headaches?", "Does the Föhn cause migraines?"}[i]
		res := call(context.Background(), t, c, "follow_up", map[string]any{"research_id": id, "question": question}, nil)
		body := decodeBody(t, res)
		if res.IsError {
			t.Fatalf("follow_up of %s: %s", id, resultText(t, res))
		}
		checkAgainstSchema(t, c, "follow_up", res)
		report, _ := body["report"].(string)
		if !strings.HasPrefix(report, "Headaches are disputed [2]; a 2025 study finds no link [3].\n\n---\n**Sources:**\n"+
			"1. [Föhn-Lexikon](https://de.example/foehn)\n2. [Föhn and headaches](https://med.example/headache)\n"+
			"3. [A 2025 study](https://study.example/2025)\n") {
			t.Errorf("follow_up of %s: report %q, want the earlier sources' numbers and the new one after them", id, report)
		}
		m, _ := body["metadata"].(map[string]any)
		if sources, _ := m["sources"].([]any); m["follow_up_of"] != reportID || m["topic"] != question || len(sources) != 3 {
			t.Errorf("follow_up of %s: metadata %v, want it to name report %s", id, m, reportID)
		}

		run := fake.Calls()[i]
		j := slices.Index(run.Args, "--include-directories")
		if j < 0 || len(run.Refs) != 1 {
			t.Fatalf("follow_up of %s: the run had no folder of its own with the report: args %q, files %v", id, run.Args, run.Refs)
		}
		for path, text := range run.Refs {
			if filepath.Base(path) != "prior-report.md" || filepath.Base(filepath.Dir(path)) != filepath.Base(run.Args[j+1]) {
				t.Errorf("the prompt names %s, want prior-report.md in the run's folder %s", path, run.Args[j+1])
			}
			for _, want := range []string{foehnReport.Markdown, "[1] Föhn-Lexikon: https://de.example/foehn",
				"[2] Föhn and headaches: https://med.example/headache"} {
				if !strings.Contains(text, want) {
					t.Errorf("the run's prior-report.md lacks %q:\n%s", want, text)
				}
			}
			if !strings.Contains(run.Stdin, "@"+path) || !strings.Contains(run.Stdin, question) ||
				strings.Contains(run.Stdin, foehnReport.Markdown) {
				t.Errorf("the prompt does not point to the report's file:\n%s", run.Stdin)
			}
		}
	}
}

// TestFollowUpOnTheAPI: on the Gemini API the request carries the stored report and its numbered sources as
// context after the prompt; a grounding source that is one of them takes its number, a new one the next.
func TestFollowUpOnTheAPI(t *testing.T) {
	t.Parallel()
	lib := openLibrary(t)
	_, reportID := keepResearch(t, lib, foehnReport)
	mock := mg.New()
	text := "Headaches are disputed [2]. A 2025 study finds no link. The wind is warm."
	mock.Handle(mg.KindSearch, mg.Always(mg.GroundedAnswer(`{"success": true, "report": "`+text+`"}`,
		[]mg.Source{{URI: "https://study.example/2025", Title: "A 2025 study"}, {URI: "https://de.example/foehn", Title: "Föhn"}},
		mg.Cite("A 2025 study finds no link.", 0), mg.Cite("The wind is warm.", 1))))
	c := connect(t, newServer(apiEngine(t, mock), Options{Version: "test", Library: lib}))

	res := call(context.Background(), t, c, "follow_up", map[string]any{"research_id": reportID,
		"question": "Does the Föhn cause headaches?"}, nil)
	if res.IsError {
		t.Fatal(resultText(t, res))
	}
	body := decodeBody(t, res)
	report, _ := body["report"].(string)
	if !strings.HasPrefix(report, "Headaches are disputed [2]. A 2025 study finds no link.[3] The wind is warm.[1]"+
		"\n\n---\n**Sources:**\n1. [Föhn-Lexikon](https://de.example/foehn)\n2. [Föhn and headaches](https://med.example/headache)\n"+
		"3. [A 2025 study](https://study.example/2025)\n") {
		t.Errorf("report %q, want the earlier sources' numbers and the new one after them", report)
	}
	if m, _ := body["metadata"].(map[string]any); m["follow_up_of"] != reportID || m["backend"] != "api" {
		t.Errorf("metadata %v", m)
	}

	reqs := mock.RequestsOf(mg.KindSearch)
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	for _, want := range []string{"is in @prior-report.md.", "--- Content from @prior-report.md ---", foehnReport.Markdown,
		"[1] Föhn-Lexikon: https://de.example/foehn", "[2] Föhn and headaches: https://med.example/headache"} {
		if !strings.Contains(reqs[0].Prompt, want) {
			t.Errorf("the request lacks %q:\n%s", want, reqs[0].Prompt)
		}
	}
}

// TestFollowUpNumbersThePriorSourcesAsItsReportDid: the earlier report's sources keep the numbers its text cites
// them by, as its metadata gives them; the other pages its research read are listed without a number, and the
// follow-up numbers its own sources after the numbered ones. A report whose numbered list was not kept (the agent's
// list was dropped, or the report is of an earlier release, kept without metadata) has no numbered sources: its
// pages are listed without numbers, and the follow-up numbers its sources from 1.
func TestFollowUpNumbersThePriorSourcesAsItsReportDid(t *testing.T) {
	t.Parallel()
	visited := kept.Source{URL: "https://wetter.example/foehn-tage"}
	for _, tc := range []struct {
		name     string
		rep      kept.Report
		numbered []string // the lines of the prior's numbered sources
		next     int      // the number of the follow-up's first source of its own
	}{
		{"its numbered sources and the pages it read besides", kept.Report{Markdown: foehnReport.Markdown,
			Sources: append(slices.Clone(foehnReport.Sources), visited), Metadata: foehnReport.Metadata},
			[]string{"[1] Föhn-Lexikon: https://de.example/foehn", "[2] Föhn and headaches: https://med.example/headache"}, 3},
		{"an agent's list that was dropped", kept.Report{Markdown: "The Föhn is warm [1].", Sources: []kept.Source{visited},
			Metadata: json.RawMessage(`{"topic": "Föhn", "sources_visited": ["` + visited.URL + `"]}`)}, nil, 1},
		{"a report of an earlier release", kept.Report{Markdown: "The Föhn is warm [1].", Sources: []kept.Source{visited}},
			nil, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lib := openLibrary(t)
			tc.rep.Summary = kept.Summary{Tool: "search", Topic: "Föhn", Backend: "cli", Duration: time.Minute}
			_, reportID := keepResearch(t, lib, tc.rep)
			answer := "```json\n" + fmt.Sprintf(`{"success": true, "report": "A 2025 study finds it warm [%d].",
  "metadata": {"sources": [{"number": %[1]d, "url": "https://study.example/2025", "title": "A 2025 study"}],
   "sources_visited": [], "search_queries_used": [], "iterations": 1}}`, tc.next) + "\n```"
			s, fake := localFakeServer(t, geminitest.ScenarioOK, 30*time.Second, Options{Library: lib},
				geminitest.EnvAnswer+"="+answer)
			res := call(context.Background(), t, connect(t, s), "follow_up", map[string]any{"research_id": reportID,
				"question": "Is it warm?"}, nil)
			if res.IsError {
				t.Fatal(resultText(t, res))
			}
			report, _ := decodeBody(t, res)["report"].(string)
			own := fmt.Sprintf("%d. [A 2025 study](https://study.example/2025)\n", tc.next)
			if want := fmt.Sprintf("A 2025 study finds it warm [%d].", tc.next); !strings.HasPrefix(report, want) ||
				!strings.Contains(report, own) || strings.Count(report, "](https://") != tc.next {
				t.Errorf("report %q, want it to cite its source as [%d] after the %d numbered ones", report, tc.next, tc.next-1)
			}
			if keeps := strings.Contains(report, "its sources keep their numbers here"); keeps != (tc.numbered != nil) {
				t.Errorf("report %q: its closing line says the earlier sources keep their numbers: %v, want %v", report,
					keeps, tc.numbered != nil)
			}

			run := fake.Calls()[0]
			if len(run.Refs) != 1 || !strings.Contains(run.Stdin, fmt.Sprintf("from [%d] on", tc.next)) {
				t.Fatalf("the run got files %v and the prompt %q, want the prior report and new sources from [%d]",
					run.Refs, run.Stdin, tc.next)
			}
			for _, doc := range run.Refs {
				if tc.numbered == nil && !strings.Contains(doc, "The earlier report has no numbered sources") {
					t.Errorf("the prior report does not say it has no numbered sources:\n%s", doc)
				}
				for _, line := range tc.numbered {
					if !strings.Contains(doc, "\n"+line+"\n") {
						t.Errorf("the prior report lacks the numbered source %q:\n%s", line, doc)
					}
				}
				if !strings.Contains(doc, "\n- "+visited.URL+"\n") || strings.Contains(doc, "] "+visited.URL) {
					t.Errorf("the prior report does not list the page it read without a number:\n%s", doc)
				}
				if n := strings.Count(doc, "\n["); n != len(tc.numbered) {
					t.Errorf("the prior report numbers %d sources, want %d:\n%s", n, len(tc.numbered), doc)
				}
			}
		})
	}
}

// TestFollowUpOfResearchWithoutAReport: an id that names no kept research or report, and research that has no
// report (it runs, failed, was cancelled or interrupted, or its report is gone), are clear errors that say what to
// do; no research runs.
func TestFollowUpOfResearchWithoutAReport(t *testing.T) {
	t.Parallel()
	lib := openLibrary(t)
	gone, goneReport := keepResearch(t, lib, foehnReport)
	if err := lib.Delete(goneReport); err != nil {
		t.Fatal(err)
	}
	s, fake := localFakeServer(t, geminitest.ScenarioOK, 30*time.Second, Options{Library: lib})
	c := connect(t, s)
	for _, tc := range []struct {
		name, id string
		code     backend.Code
		says     []string
	}{
		{"an unknown research", "0123456789abcdef", backend.CodeResearchNotFound, []string{"0123456789abcdef", "list_research"}},
		{"an unknown report", "20260101T000000.000000-00000000", backend.CodeResearchNotFound, []string{"no longer kept", "list_research"}},
		{"no id at all", "not an id", backend.CodeResearchNotFound, []string{"not an id"}},
		{"research whose report is gone", gone, backend.CodeResearchNotFound, []string{"ended, but its report is no longer kept"}},
		{"running research", keepJob(t, lib, kept.Job{Tool: "deep_search", Topic: "t"}), backend.CodeInvalidArgument,
			[]string{"still running", "research_result"}},
		{"failed research", keepJob(t, lib, kept.Job{Tool: "search", Topic: "t", State: kept.JobFailed,
			ErrorCode: "QUOTA_ERROR", ErrorMessage: "the quota ran out"}), backend.CodeInvalidArgument,
			[]string{"failed (QUOTA_ERROR: the quota ran out)", "Call search again"}},
		{"cancelled research", keepJob(t, lib, kept.Job{Tool: "search", Topic: "t", State: kept.JobCancelled}),
			backend.CodeInvalidArgument, []string{"was cancelled", "no report"}},
		{"interrupted research", keepJob(t, lib, kept.Job{Tool: "ask", Topic: "t", State: kept.JobInterrupted}),
			backend.CodeInvalidArgument, []string{"was interrupted", "Call ask again"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := call(context.Background(), t, c, "follow_up", map[string]any{"research_id": tc.id, "question": "And then?"}, nil)
			e, _ := decodeBody(t, res)["error"].(map[string]any)
			text := resultText(t, res)
			if !res.IsError || e["code"] != string(tc.code) {
				t.Fatalf("got %s, want %s", text, tc.code)
			}
			for _, want := range tc.says {
				if !strings.Contains(text, want) {
					t.Errorf("the error %s does not say %q", text, want)
				}
			}
			checkAgainstSchema(t, c, "follow_up", res)
		})
	}
	if n := len(fake.Calls()); n != 0 {
		t.Errorf("%d research runs, want none", n)
	}
}

// TestFollowUpOfResearchStillRunningHere: research this server runs has no report yet: follow_up says to wait for
// it with research_result first.
func TestFollowUpOfResearchStillRunningHere(t *testing.T) {
	t.Parallel()
	s, fake := localFakeServer(t, geminitest.ScenarioHang, 30*time.Second, Options{})
	c := connect(t, s)
	id := researchIDOf(t, call(context.Background(), t, c, "search", map[string]any{"query": "hangs", "wait_seconds": 0}, nil))
	res := call(context.Background(), t, c, "follow_up", map[string]any{"research_id": id, "question": "And then?"}, nil)
	e, _ := decodeBody(t, res)["error"].(map[string]any)
	if details, _ := e["details"].(string); !res.IsError || e["code"] != string(backend.CodeInvalidArgument) ||
		!strings.Contains(details, "research_result") || !strings.Contains(details, id) {
		t.Errorf("got %s, want INVALID_ARGUMENT saying to wait with research_result", resultText(t, res))
	}
	call(context.Background(), t, c, "research_cancel", map[string]any{"research_id": id}, nil)
	testkit.WaitFor(t, "the cancelled research's CLI to end", func() bool { return len(fake.LivePIDs()) == 0 })
}
