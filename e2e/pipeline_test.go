//go:build e2e

package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	mg "github.com/gemini-search-mcp/gemini-search-mcp/internal/mockgemini"
)

// The research pipeline against the real CLI: deep_search's verification round, the JSON correction of an
// answer that is not JSON, and deep_search as an MCP task. The mock tells the prompts apart by their text.
const (
	researchPrompt   = "You are an autonomous research agent"
	verifyPrompt     = "You are an autonomous fact-checking agent"
	correctionPrompt = "You convert text into JSON"

	verifyQuery = "go 1.26 release date"
	// correctedReport is the verification round's report: the one deep_search must return.
	correctedReport = "# Go 1.26 (verified)\n\nGo 1.26 was released on 2026-02-10 [1], not in January as the draft said.\n\n" +
		"## Sources\n1. https://go.dev/blog/go1.26-released\n2. https://go.dev/doc/go1.26\n"
	claimsChecked, claimsCorrected = 4, 1
)

// verifySources are the sources of the verification round's search, new to the report.
var verifySources = []mg.Source{{URI: "https://go.dev/blog/go1.26-released", Title: "go.dev blog"}}

// unexpected answers a prompt no route expected, so that the scenario fails visibly rather than hanging on retries.
var unexpected = mg.Always(mg.Error(400, "INVALID_ARGUMENT", "e2e mock: no script for this prompt"))

// draft remembers the report the research round's agent wrote, to find it in the verification prompt.
type draft struct {
	mu     sync.Mutex
	report string
}

func (d *draft) get() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.report
}

// recording wraps a research agent and keeps the report of its fenced JSON answer.
func (d *draft) recording(agent mg.Responder) mg.Responder {
	return func(r *mg.Request) mg.Reply {
		rep := agent(r)
		if body, ok := strings.CutPrefix(rep.Text, "```json\n"); ok {
			var v struct{ Report string }
			if json.Unmarshal([]byte(strings.TrimSuffix(body, "\n```")), &v) == nil {
				d.mu.Lock()
				d.report = v.Report
				d.mu.Unlock()
			}
		}
		return rep
	}
}

// verifier scripts the verification round's agent: one search for the release date, then the corrected report
// with its verification counts, no open gaps (so no third round), and only the sources it found itself.
func verifier(delay time.Duration) mg.Responder {
	return func(r *mg.Request) mg.Reply {
		if r.ToolTurns == 0 {
			return mg.Reply{Calls: []mg.FunctionCall{searchCall(verifyQuery)}}
		}
		var sources []string
		for _, fr := range r.FunctionResponses {
			for _, u := range urlPattern.FindAllString(fr.Output(), -1) {
				if !slices.Contains(sources, u) {
					sources = append(sources, u)
				}
			}
		}
		body, _ := json.MarshalIndent(map[string]any{
			"success": true,
			"report":  correctedReport,
			"verification": map[string]any{
				"claims_checked": claimsChecked, "claims_corrected": claimsCorrected,
				"corrections":  []string{"The release date is 2026-02-10, not January 2026 [1]."},
				"new_findings": []string{}, "open_gaps": []string{},
			},
			"metadata": map[string]any{"sources_visited": sources, "search_queries_used": []string{verifyQuery}, "iterations": 1},
		}, "", "  ")
		rep := mg.Text("```json\n" + string(body) + "\n```")
		rep.Delay = delay
		return rep
	}
}

// deepScript sets the mock up for a deep_search of two rounds: research (one grounded search, a JSON report),
// then verification (another search, the corrected JSON report). verifyDelay holds the final answer back.
func deepScript(s *scenario, verifyDelay time.Duration) *draft {
	d := &draft{}
	s.mock.Handle(mg.KindSearch, mg.ByPrompt(mg.Always(mg.Grounded("Go 1.26 was released in February 2026 with new language features.", goSources...)),
		mg.Route{Contains: verifyQuery, Respond: mg.Always(mg.Grounded("Go 1.26 was released on 2026-02-10.", verifySources...))}))
	s.mock.Handle(mg.KindChat, mg.ByPrompt(unexpected,
		mg.Route{Contains: verifyPrompt, Respond: verifier(verifyDelay)},
		mg.Route{Contains: researchPrompt, Respond: d.recording(agent(searchCall(searchQuery)))},
	))
	return d
}

// conversations returns the first request of every CLI run that reached the mock's chat (a run's later
// requests carry tool results).
func conversations(s *scenario) []mg.Request {
	var out []mg.Request
	for _, r := range s.mock.RequestsOf(mg.KindChat) {
		if r.ToolTurns == 0 {
			out = append(out, r)
		}
	}
	return out
}

// checkDeepSearch checks a deep_search that went through the research round and one verification round.
func checkDeepSearch(t *testing.T, s *scenario, d *draft, res *toolResult) {
	t.Helper()
	if res == nil {
		t.Fatal("no result")
	}
	b := res.body(t)
	if res.IsError || !b.Success {
		t.Fatalf("deep_search failed: %+v", b)
	}

	runs := conversations(s)
	if len(runs) != 2 {
		t.Fatalf("the mock saw %d CLI runs, want 2 (research, then one verification round that reports no open gaps)", len(runs))
	}
	research, verify := runs[0], runs[1]
	for _, want := range []string{researchPrompt, "<topic>\n" + question + "\n</topic>", "Depth: concise"} {
		if !strings.Contains(research.Prompt, want) {
			t.Errorf("the first run's prompt lacks %q: it is not the research prompt for a concise deep_search:\n%.800s", want, research.Prompt)
		}
	}
	for _, want := range []string{verifyPrompt, "verification round 2 of at most 3", "<topic>\n" + question + "\n</topic>", "Depth: concise"} {
		if !strings.Contains(verify.Prompt, want) {
			t.Errorf("the second run's prompt lacks %q: it is not the verify prompt of round 2/3:\n%.800s", want, verify.Prompt)
		}
	}
	if first := d.get(); first == "" || !strings.Contains(verify.Prompt, "<draft>\n"+first+"\n</draft>") {
		t.Errorf("the verify prompt does not carry the first round's report as its draft.\nfirst round's report:\n%s\nverify prompt:\n%s", first, verify.Prompt)
	}

	if b.Report != correctedReport {
		t.Errorf("report:\n%s\nwant the verification round's corrected report:\n%s", b.Report, correctedReport)
	}
	m := b.Metadata
	if m.Rounds != 2 || m.ClaimsVerified != claimsChecked || m.ClaimsCorrected != claimsCorrected || m.Depth != "concise" {
		t.Errorf("metadata: rounds %d, claims_verified %d, claims_corrected %d, depth %q; want 2, %d, %d, concise",
			m.Rounds, m.ClaimsVerified, m.ClaimsCorrected, m.Depth, claimsChecked, claimsCorrected)
	}
	var want []string
	for _, src := range append(slices.Clone(goSources), verifySources...) {
		want = append(want, src.URI)
	}
	if !slices.Equal(sorted(m.SourcesVisited), sorted(want)) {
		t.Errorf("sources_visited %q, want the union of both rounds' sources %q", m.SourcesVisited, want)
	}
	if !slices.Equal(sorted(m.SearchQueriesUsed), sorted([]string{searchQuery, verifyQuery})) {
		t.Errorf("search_queries_used %q, want both rounds' queries %q and %q", m.SearchQueriesUsed, searchQuery, verifyQuery)
	}
	checkNeverOffered(t, s)
}

// 9. deep_search over HTTP with a progressToken: a research round and a verification round, the corrected report,
// the counts and sources of both rounds, and the progress the client was told.
func TestDeepSearch(t *testing.T) {
	s := newScenario(t, "9 deep_search")
	d := deepScript(s, 0)
	srv := s.startHTTP("DEEP_SEARCH_MAX_ROUNDS=3")

	out := s.sdk(sdkRequest{Transport: "http", URL: srv.url, Tool: "deep_search", Progress: true,
		Arguments: map[string]any{"topic": question, "depth": "concise"}}, nil)
	if out.Result == nil {
		t.Fatalf("no result: %s", out.Error)
	}
	checkDeepSearch(t, s, d, out.Result)

	var messages []string
	for i, p := range out.Progress {
		messages = append(messages, p.Message)
		if i > 0 && p.Progress <= out.Progress[i-1].Progress {
			t.Errorf("progress %v after %v: want increasing values", p.Progress, out.Progress[i-1].Progress)
		}
	}
	// In order: round 1 and its search, then round 2 and its search.
	stages := []string{"round 1/3: researching", "searching: " + searchQuery, "round 2/3: verifying", "searching: " + verifyQuery}
	next := 0
	for _, m := range messages {
		if next < len(stages) && m == stages[next] {
			next++
		}
	}
	if next < len(stages) {
		t.Errorf("the client's notifications/progress %q lack %q (want %q in this order)", messages, stages[next], stages)
	}
	if slices.ContainsFunc(messages, func(m string) bool { return strings.HasPrefix(m, "round 3/") }) {
		t.Errorf("a third round was announced although round 2 reported no open gaps: %q", messages)
	}
	s.note("2 rounds, %d progress notifications", len(out.Progress))
}

// 10. An answer that is prose, not JSON, is corrected by one correction run, not researched again.
func TestJSONCorrection(t *testing.T) {
	s := newScenario(t, "10 json correction")
	const correctionModel = "gemini-2.5-flash-lite"
	const prose = "Go 1.26 shipped in February 2026. It adds generic type aliases and a faster garbage collector. " +
		"The release notes are at https://go.dev/doc/go1.26 and explain every change."
	s.mock.Handle(mg.KindSearch, mg.Always(mg.Grounded("Go 1.26 was released in February 2026.", goSources...)))
	s.mock.Handle(mg.KindChat, mg.ByPrompt(unexpected,
		mg.Route{Contains: correctionPrompt, Respond: corrector},
		mg.Route{Contains: researchPrompt, Respond: mg.Turns(mg.Call("google_web_search", map[string]any{"query": searchQuery}), mg.Text(prose))},
	))
	srv := s.startHTTP("GEMINI_CORRECTION_MODEL=" + correctionModel)

	out := s.sdk(sdkRequest{Transport: "http", URL: srv.url, Arguments: map[string]any{"query": question}}, nil)
	if out.Result == nil {
		t.Fatalf("no result: %s", out.Error)
	}
	b := out.Result.body(t)
	if out.Result.IsError || !b.Success {
		t.Fatalf("search failed: %+v", b)
	}

	var research, correction []mg.Request
	for _, r := range conversations(s) {
		switch {
		case strings.Contains(r.Prompt, correctionPrompt):
			correction = append(correction, r)
		case strings.Contains(r.Prompt, researchPrompt):
			research = append(research, r)
		}
	}
	if len(research) != 1 || len(correction) != 1 || len(conversations(s)) != 2 {
		t.Fatalf("the mock saw %d CLI runs: %d research, %d correction; want exactly one of each (no rerun of the research)",
			len(conversations(s)), len(research), len(correction))
	}
	c := correction[0]
	if !strings.Contains(c.Prompt, "<text>\n"+prose+"\n</text>") {
		t.Errorf("the correction prompt does not quote the research answer:\n%s", c.Prompt)
	}
	if c.Seq < research[0].Seq {
		t.Errorf("the correction run (request %d) came before the research run (request %d)", c.Seq, research[0].Seq)
	}
	if c.Model != correctionModel {
		t.Errorf("the correction request asked for model %q, want GEMINI_CORRECTION_MODEL %q", c.Model, correctionModel)
	}
	if b.ParseWarning || b.Metadata.JSONCorrections != 1 {
		t.Errorf("parse_warning %v, json_corrections %d; want false and 1", b.ParseWarning, b.Metadata.JSONCorrections)
	}
	if b.Report != prose {
		t.Errorf("report %q, want the corrected answer's report, the prose itself %q", b.Report, prose)
	}
	if !slices.Contains(b.Metadata.SourcesVisited, "https://go.dev/doc/go1.26") {
		t.Errorf("sources_visited %q lacks the URL the prose mentions", b.Metadata.SourcesVisited)
	}
	if !slices.Contains(b.Metadata.SearchQueriesUsed, searchQuery) {
		t.Errorf("search_queries_used %q lacks the research run's query %q", b.Metadata.SearchQueriesUsed, searchQuery)
	}
	if log := srvLog(s); !strings.Contains(log, "running a JSON correction") {
		t.Errorf("the server log does not say it ran a JSON correction:\n%s", log)
	}
	s.note("research on %s, correction on %s", research[0].Model, c.Model)
}

// corrector scripts the correction run: it restructures the text the prompt quotes into the JSON report, with
// the URLs the text mentions as sources, as the correction prompt asks. So only what the prompt carried reaches
// the report.
func corrector(r *mg.Request) mg.Reply {
	_, rest, _ := strings.Cut(r.Prompt, "<text>\n")
	text, _, _ := strings.Cut(rest, "\n</text>")
	body, _ := json.MarshalIndent(map[string]any{
		"success": text != "",
		"report":  text,
		"metadata": map[string]any{
			"sources_visited": urlPattern.FindAllString(text, -1), "search_queries_used": []string{}, "iterations": 1,
		},
	}, "", "  ")
	return mg.Text("```json\n" + string(body) + "\n```")
}

// 11. deep_search as an MCP task over HTTP: tools/call with task answers at once with a working task, tasks/get
// reports it working while the real CLI runs and then completed, and tasks/result has the verified report.
func TestDeepSearchTask(t *testing.T) {
	s := newScenario(t, "11 deep_search task")
	const hold = 3 * time.Second // the verification answer is held back, so the client polls a working task
	d := deepScript(s, hold)
	srv := s.startHTTP("DEEP_SEARCH_MAX_ROUNDS=3")

	out := s.sdk(sdkRequest{Transport: "http", URL: srv.url, Tool: "deep_search", Task: true,
		Arguments: map[string]any{"topic": question, "depth": "concise"}}, nil)
	task := out.Task
	if task == nil || task.Created == nil {
		t.Fatalf("no task was created: %+v (error %q)", out.Task, out.Error)
	}
	if out.Result == nil {
		t.Fatalf("no task result: %s; the task's statuses: %+v", out.Error, task.Statuses)
	}
	checkDeepSearch(t, s, d, out.Result)

	var statuses []string
	for _, st := range task.Statuses {
		statuses = append(statuses, st.Status)
	}
	if task.Created.TaskID == "" || task.Created.Status != "working" {
		t.Errorf("tools/call created task %+v, want an id and status working", *task.Created)
	}
	if len(statuses) == 0 || statuses[len(statuses)-1] != "completed" || !slices.Contains(statuses, "working") {
		t.Errorf("tasks/get statuses %q, want working while the CLI runs, then completed", statuses)
	}
	// The task must come back before the research ends: the verification answer alone is held for `hold`.
	if took := time.Duration(task.ResultAtMS-task.CreatedAtMS) * time.Millisecond; took < hold {
		t.Errorf("the task was created only %v before its result, want at least %v: tools/call waited for the research", took, hold)
	}
	s.note("created in %.2fs, %d polls, completed at %.1fs", float64(task.CreatedAtMS)/1000, len(statuses), float64(task.ResultAtMS)/1000)
}
