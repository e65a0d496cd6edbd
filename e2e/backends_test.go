//go:build e2e

package e2e

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	mg "github.com/gemini-search-mcp/gemini-search-mcp/internal/mockgemini"
)

// The Gemini API backend against the mock: the server's own SDK client (google.golang.org/genai) sends each
// prompt with googleSearch and urlContext, which the mock sorts as KindSearch, as it does the CLI's
// google_web_search calls. The User-Agent tells them apart: the SDK's "google-genai-sdk/…", the CLI's "GeminiCLI/…".

// apiSystem opens the system instruction the API backend sends (prompts/api-system.md).
const apiSystem = "You answer research prompts through the Gemini API"

// fromSDK reports whether the server's Gemini API backend sent r; fromCLI, whether the Gemini CLI did.
func fromSDK(r mg.Request) bool {
	return strings.HasPrefix(r.Header["User-Agent"], "google-genai-sdk/")
}
func fromCLI(r mg.Request) bool { return strings.Contains(r.Header["User-Agent"], "GeminiCLI") }

// apiRound is one answer of the API backend: the fenced JSON report the research and verify prompts ask for,
// answered like Google Search grounding, with a grounding support for each cited sentence of the report.
type apiRound struct {
	title     string
	cited     []mg.Support // mg.Cite(sentence, source indices...), in the report's order
	unsourced string       // a sentence that no source backs
	sources   []mg.Source
	query     string   // the Google search the answer reports (webSearchQueries, sent early)
	verify    bool     // a verify round: the answer carries a verification object
	openGaps  []string // a verify round's open gaps: another round follows while there are some
}

// text is the report as the model writes it, without markers.
func (a apiRound) text() string {
	var sentences []string
	for _, c := range a.cited {
		sentences = append(sentences, c.Text)
	}
	return "# " + a.title + "\n\n" + strings.Join(append(sentences, a.unsourced), " ")
}

// marked is the report as the API backend must return it: a marker after each cited sentence, numbering its
// sources from 1 in the order of a.sources.
func (a apiRound) marked() string {
	var sentences []string
	for _, c := range a.cited {
		marker := ""
		for _, i := range c.Sources {
			marker += fmt.Sprintf("[%d]", i+1)
		}
		sentences = append(sentences, c.Text+marker)
	}
	return "# " + a.title + "\n\n" + strings.Join(append(sentences, a.unsourced), " ")
}

func (a apiRound) urls() []string {
	var out []string
	for _, s := range a.sources {
		out = append(out, s.URI)
	}
	return out
}

func (a apiRound) reply() mg.Reply {
	doc := map[string]any{
		"success":  true,
		"report":   a.text(),
		"metadata": map[string]any{"sources_visited": a.urls(), "search_queries_used": []string{a.query}, "iterations": 1},
	}
	if a.verify {
		doc["verification"] = map[string]any{
			"claims_checked": len(a.cited) + 1, "claims_corrected": 1,
			"corrections": []string{"The release date is 2026-02-10."}, "new_findings": []string{},
			"open_gaps": append([]string{}, a.openGaps...),
		}
	}
	body, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic(err)
	}
	rep := mg.GroundedAnswer("```json\n"+string(body)+"\n```", a.sources, a.cited...)
	rep.Queries = []string{a.query}
	rep.EarlyMetadata = true // "searching: …" reaches the client before the answer ends
	return rep
}

// releaseHistory is a source only the third round finds.
var releaseHistory = mg.Source{URI: "https://go.dev/doc/devel/release", Title: "Release History"}

// The rounds of the API scenarios: a search is rounds[0] alone; a deep_search of at most 3 rounds runs all three,
// since round 2 reports an open gap. The sentences hold multi-byte characters before and inside cited segments,
// and each report has one sentence no source backs.
var apiRounds = [3]apiRound{
	{
		title: "Go 1.26",
		cited: []mg.Support{
			mg.Cite("Go 1.26 was released in February 2026.", 0),
			mg.Cite("Der Garbage Collector läuft jetzt schneller — auf allen Plattformen.", 0, 1),
		},
		unsourced: "The mock agent adds this sentence without any source.",
		sources:   goSources, query: searchQuery,
	},
	{
		title: "Go 1.26 (verified)",
		cited: []mg.Support{
			mg.Cite("Go 1.26 was released on 2026-02-10.", 0),
			mg.Cite("Größere Programme starten spürbar schneller.", 1),
		},
		unsourced: "Minor releases are not covered yet.",
		sources:   append(slices.Clone(verifySources), goSources[0]), query: verifyQuery,
		verify: true, openGaps: []string{"the schedule of minor releases"},
	},
	{
		title: "Go 1.26 (verified twice)",
		cited: []mg.Support{
			mg.Cite("Go 1.26 was released on 2026-02-10.", 0),
			mg.Cite("Go 1.26.1 folgte im März 2026.", 1),
		},
		unsourced: "Later minor releases are still to come.",
		sources:   []mg.Source{verifySources[0], releaseHistory}, query: "go 1.26 minor releases",
		verify: true,
	},
}

// refusedLicence is what the Gemini API answers an account the Gemini CLI no longer serves
// (shared/notes/gemini-api.md, "The account cutoff").
var refusedLicence = mg.Error(403, "PERMISSION_DENIED", "You do not have a valid license of this product.")

// apiScript answers the API backend's requests: the research prompt with apiRounds[0], verification round n
// with apiRounds[n-1], each streamed in chunks 30 ms apart, as the real API takes its time. A request of the CLI
// goes to cli, anything else gets a 400 that fails the scenario visibly.
func apiScript(s *scenario, cli mg.Responder) { heldAPIScript(s, cli, 0) }

// heldAPIScript is apiScript with each of the API's answers held for hold more.
func heldAPIScript(s *scenario, cli mg.Responder, hold time.Duration) {
	streamed := func(r apiRound) mg.Responder {
		rep := r.reply()
		rep.Chunks, rep.ChunkDelay = 3, 30*time.Millisecond
		rep.Delay += hold
		return mg.Always(rep)
	}
	api := mg.ByPrompt(unexpected,
		mg.Route{Contains: "verification round 2 of at most 3", Respond: streamed(apiRounds[1])},
		mg.Route{Contains: "verification round 3 of at most 3", Respond: streamed(apiRounds[2])},
		mg.Route{Contains: researchPrompt, Respond: streamed(apiRounds[0])},
	)
	bySender := func(r *mg.Request) mg.Reply {
		switch {
		case fromSDK(*r) && r.Kind == mg.KindSearch:
			return api(r)
		case fromCLI(*r):
			return cli(r)
		}
		return unexpected(r)
	}
	for _, k := range []mg.Kind{mg.KindSearch, mg.KindChat, mg.KindRouter, mg.KindFetch} {
		s.mock.Handle(k, bySender)
	}
}

// checkAPIReport checks a report of the API backend that stands on round: the [n] markers after the cited
// sentences and none after the unsourced one, the Sources section, and the grounding in the metadata.
func checkAPIReport(t *testing.T, call string, res *toolResult, round apiRound, reason string) searchBody {
	t.Helper()
	if res == nil {
		t.Fatalf("%s: no result", call)
	}
	b := res.body(t)
	if res.IsError || !b.Success {
		t.Fatalf("%s failed: %+v", call, b)
	}
	m := b.Metadata
	if m.Backend != "api" || !strings.Contains(m.BackendReason, reason) || (reason == "" && m.BackendReason != "") {
		t.Errorf("%s: metadata backend %q, backend_reason %q; want api and a reason with %q", call, m.Backend, m.BackendReason, reason)
	}
	if res.Meta["backend"] != "api" || (reason != "" && !strings.Contains(fmt.Sprint(res.Meta["backendReason"]), reason)) {
		t.Errorf("%s: _meta %v, want backend api and a backendReason with %q", call, res.Meta, reason)
	}

	report, section, found := strings.Cut(b.Report, "**Sources:**")
	if !found {
		t.Fatalf("%s: the report has no **Sources:** section:\n%s", call, b.Report)
	}
	if got := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(report), "---")); got != round.marked() {
		t.Errorf("%s: the report's text is\n%s\nwant the answer with a marker after each cited sentence:\n%s", call, got, round.marked())
	}
	for i, src := range round.sources {
		if want := fmt.Sprintf("%d. [%s](%s)", i+1, src.Title, src.URI); !strings.Contains(section, want) {
			t.Errorf("%s: the Sources section lacks %q:\n%s", call, want, section)
		}
	}
	if !strings.Contains(section, fmt.Sprintf("%q", round.query)) {
		t.Errorf("%s: the report does not list the search query %q:\n%s", call, round.query, section)
	}

	if len(m.Sources) != len(round.sources) {
		t.Errorf("%s: metadata.sources %+v, want %d", call, m.Sources, len(round.sources))
	}
	for i, src := range m.Sources {
		if i < len(round.sources) && (src.URL != round.sources[i].URI || src.Title != round.sources[i].Title) {
			t.Errorf("%s: metadata.sources[%d] = %+v, want %+v", call, i, src, round.sources[i])
		}
	}
	if len(m.Citations) != len(round.cited) {
		t.Fatalf("%s: metadata.citations %+v, want one for each of the %d cited sentences", call, m.Citations, len(round.cited))
	}
	for i, c := range m.Citations {
		var want []int
		for _, n := range round.cited[i].Sources {
			want = append(want, n+1)
		}
		if c.Text != round.cited[i].Text || !slices.Equal(c.Sources, want) {
			t.Errorf("%s: citation %d = %+v, want %q with sources %v", call, i, c, round.cited[i].Text, want)
		}
	}
	if m.ClaimsSupported == nil || m.ClaimsUnsupported == nil || *m.ClaimsSupported != len(round.cited) || *m.ClaimsUnsupported != 1 {
		t.Errorf("%s: claims_supported %v, claims_unsupported %v; want %d and 1", call, deref(m.ClaimsSupported), deref(m.ClaimsUnsupported), len(round.cited))
	}
	return b
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

// checkAPIRequests checks that the requests after the first seen were all the API backend's, as many as want:
// the SDK's, with Google Search and URL context, our system instruction and the key.
func checkAPIRequests(t *testing.T, s *scenario, seen, want int) {
	t.Helper()
	reqs := s.mock.Requests()[seen:]
	var api int
	for _, r := range reqs {
		switch {
		case r.Kind == mg.KindOther:
		case !fromSDK(r) || r.Kind != mg.KindSearch:
			t.Errorf("request %d (%s, User-Agent %q) is not the API backend's", r.Seq, r.Kind, r.Header["User-Agent"])
		default:
			api++
			if !slices.Equal(r.BuiltinTools, []string{"googleSearch", "urlContext"}) || len(r.Tools) > 0 {
				t.Errorf("request %d offered %q and functions %q, want exactly googleSearch and urlContext", r.Seq, r.BuiltinTools, r.Tools)
			}
			if !strings.HasPrefix(r.SystemInstruction, apiSystem) || !r.APIKey {
				t.Errorf("request %d: system instruction %.80q, key %v; want prompts/api-system.md and the key", r.Seq, r.SystemInstruction, r.APIKey)
			}
		}
	}
	if api != want {
		t.Errorf("the API backend made %d requests, want %d", api, want)
	}
}

// progressOf returns the messages of a call's progress notifications in the server's order, that of their
// progress values, and how many arrived after a notification the server sent later. It reports an error when two
// share a value: the MCP spec has the value increase with each notification.
//
// The order of arrival is not the server's: mcp-go v1.2.1 hands a session's notifications to whichever of its
// streams takes them first, the tools/call response or the client's standalone GET stream, which the TypeScript
// SDK opens, so notifications sent within a millisecond of each other can swap on the way.
func progressOf(t *testing.T, out sdkOutput) (messages []string, late int) {
	t.Helper()
	notes := slices.Clone(out.Progress)
	for i := range notes {
		if i > 0 && notes[i].Progress < slices.MaxFunc(notes[:i], func(a, b progressNotice) int { return cmp.Compare(a.Progress, b.Progress) }).Progress {
			late++
		}
	}
	slices.SortStableFunc(notes, func(a, b progressNotice) int { return cmp.Compare(a.Progress, b.Progress) })
	for i, p := range notes {
		if i > 0 && p.Progress == notes[i-1].Progress {
			t.Errorf("two progress notifications have the value %v: %q and %q", p.Progress, notes[i-1].Message, p.Message)
		}
		messages = append(messages, p.Message)
	}
	return messages, late
}

// inOrder reports the first of stages that messages lack in this order, or "".
func inOrder(messages, stages []string) string {
	next := 0
	for _, m := range messages {
		if next < len(stages) && m == stages[next] {
			next++
		}
	}
	if next < len(stages) {
		return stages[next]
	}
	return ""
}

// deepStages are the progress of a deep_search through all of apiRounds.
var deepStages = []string{
	"round 1/3: researching", "searching: " + apiRounds[0].query,
	"round 2/3: verifying", "searching: " + apiRounds[1].query,
	"round 3/3: verifying", "searching: " + apiRounds[2].query,
}

// checkDeepAPI checks a deep_search that ran all of apiRounds on the API backend: the third round's report stands,
// each verify prompt quoted the previous round's report without its markers, and the progress named each round's
// search.
func checkDeepAPI(t *testing.T, s *scenario, out sdkOutput, seen int, reason string) {
	t.Helper()
	b := checkAPIReport(t, "deep_search", out.Result, apiRounds[2], reason)
	m := b.Metadata
	if m.Rounds != 3 || m.ClaimsVerified != len(apiRounds[1].cited)+len(apiRounds[2].cited)+2 {
		t.Errorf("deep_search: rounds %d, claims_verified %d; want 3 rounds (round 2 left a gap) and both verify rounds' checks",
			m.Rounds, m.ClaimsVerified)
	}
	var urls []string
	for _, r := range apiRounds {
		urls = append(urls, r.urls()...)
	}
	if !slices.Equal(sorted(m.SourcesVisited), sorted(union(urls))) {
		t.Errorf("deep_search: sources_visited %q, want every round's sources %q", m.SourcesVisited, union(urls))
	}
	var prompts []string
	for _, r := range s.mock.Requests()[seen:] {
		if fromSDK(r) && r.Kind == mg.KindSearch {
			prompts = append(prompts, r.Prompt)
		}
	}
	for round := 2; round <= len(prompts); round++ {
		_, rest, _ := strings.Cut(prompts[round-1], "<draft>\n")
		draft, _, _ := strings.Cut(rest, "\n</draft>")
		if want := apiRounds[round-2].text(); strings.TrimSpace(draft) != want {
			t.Errorf("deep_search: round %d's prompt quotes the draft\n%s\nwant round %d's report without markers:\n%s", round, draft, round-1, want)
		}
	}
	messages, late := progressOf(t, out)
	if missing := inOrder(messages, deepStages); missing != "" {
		t.Errorf("deep_search: the progress %q lacks %q (want %q in this order)", messages, missing, deepStages)
	}
	if late > 0 {
		s.note("%d of %d deep_search progress notifications arrived out of order", late, len(messages))
	}
}

func union(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		for _, v := range l {
			if !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return out
}
