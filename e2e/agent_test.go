//go:build e2e

package e2e

import (
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	mg "github.com/gemini-search-mcp/gemini-search-mcp/internal/mockgemini"
)

// Google's Deep Research agent as deep_search's engine google (issue 24): it runs on Google's side for minutes, as a
// research job the client waits on by id, and a server that restarts follows it on.

const agentTopic = "How large is Tokyo, and how fast does it grow?"

// agentRun is the mock agent's run: a plan at once, then, once the plan is confirmed, seven steps of 12 s, about
// 84 s in all, longer than the client's 60 s timeout; every stream is cut after five events, so the server must
// open it again from the last one.
var agentRun = mg.AgentScript{
	Steps: []mg.AgentStep{
		{Thought: "Planning the searches on Tokyo's size."},
		{Search: []string{"東京 人口 2026", "Tokyo population"}},
		{Read: []string{"https://example.jp/tokyo"}},
		{Thought: "Comparing the census with the city's own figures."},
		{Search: []string{"Tokyo area km²"}},
		{Read: []string{"https://example.org/area"}},
		{Thought: "Writing the report."},
	},
	Every:  12 * time.Second,
	Plan:   "1. Find Tokyo's population.\n2. Find its area.\n3. Write a cited report.",
	Report: "# 東京 — Größe\n\nTokyo has 14 million people 🏙. Its area is 2,194 km². Nobody counts the crows.",
	Citations: []mg.Citation{
		{URL: "https://example.jp/tokyo", Title: "Tokyo facts", Text: "Tokyo has 14 million people 🏙."},
		{URL: "https://example.org/area", Title: "Area of Tokyo", Text: "Its area is 2,194 km²."},
		{URL: "https://example.jp/tokyo", Title: "Tokyo facts", Text: "Its area is 2,194 km²."},
	},
	DropAfter: 5,
}

// agentSummary is agentRun's report as deep_search returns it: a marker after each cited segment, the sources
// numbered as first cited.
const agentSummary = "# 東京 — Größe\n\nTokyo has 14 million people 🏙.[1] Its area is 2,194 km².[1][2] Nobody counts the crows."

// checkAgentReport checks a deep_search's report of agentRun: the agent's text with its markers, the numbered
// sources with their titles, the citations and the claims counted.
func checkAgentReport(t *testing.T, res *toolResult) {
	t.Helper()
	if res == nil {
		t.Fatal("no result")
	}
	b := res.body(t)
	if res.IsError || !b.Success || b.Partial || b.ParseWarning {
		t.Fatalf("deep_search engine google answered %+v", b)
	}
	if !strings.HasPrefix(b.Report, agentSummary) || !strings.Contains(b.Report,
		"**Sources:**\n1. [Tokyo facts](https://example.jp/tokyo)\n2. [Area of Tokyo](https://example.org/area)") {
		t.Errorf("report:\n%s\nwant it to begin with %q and list the two sources", b.Report, agentSummary)
	}
	m := b.Metadata
	if m.Backend != "google-agent" || m.Model != "deep-research-preview-04-2026" || len(m.Sources) != 2 || m.Plan != agentRun.Plan ||
		len(m.Citations) != 2 || !slices.Equal(m.Citations[1].Sources, []int{1, 2}) || m.ClaimsSupported == nil ||
		*m.ClaimsSupported != 2 || !slices.Contains(m.SearchQueriesUsed, "東京 人口 2026") {
		t.Errorf("metadata: %+v", m)
	}
}

// 27. Over Streamable HTTP and over stdio, with the official TypeScript SDK at its default request timeout:
// deep_search with engine google answers status running with a research_id inside 60 s, and research_result,
// called until the run ends (about 84 s), returns the agent's report with the markers and sources the mock's
// annotations give. The client declares no elicitation, so the agent's plan (GEMINI_DEEP_RESEARCH_PLAN=auto) is
// run at once, and comes back in the metadata. Two runs are created, the plan's and the research's; the research's
// stream, cut every five events, is opened again from the last one.
func TestGoogleAgent(t *testing.T) {
	for _, transport := range []string{"http", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			s := newScenario(t, "27 google agent over "+transport)
			s.mock.Handle(mg.KindAgent, mg.Always(mg.Reply{Agent: &agentRun}))
			req := sdkRequest{Transport: transport, Tool: "deep_search", DefaultTimeout: true, UntilDone: true,
				Arguments: map[string]any{"topic": agentTopic, "engine": "google"}}
			var env []string
			if transport == "http" {
				req.URL = s.startHTTP().url
			} else {
				req.Command, env = serverBin, s.env()
			}
			out := s.sdk(req, env)
			if out.Error != "" {
				t.Fatalf("the client failed: %s (answers %+v)", out.Error, out.Answers)
			}
			answers := out.Answers
			if len(answers) < 2 || answers[0].Status != "running" || answers[0].AtMS >= clientTimeout.Milliseconds() ||
				answers[len(answers)-1].AtMS <= clientTimeout.Milliseconds() {
				t.Fatalf("answers %+v, want status running inside %v, then the report after it", answers, clientTimeout)
			}
			checkAgentReport(t, out.Result)

			var resumed int
			for _, r := range s.mock.RequestsOf(mg.KindAgent) {
				if r.Action == "stream" && r.LastEventID != "" {
					resumed++
				}
			}
			if plan, research := agentRuns(s); len(plan) != 1 || len(research) != 1 || plan[0].Prompt != agentTopic ||
				!strings.Contains(string(research[0].Body), `"previous_interaction_id":"`+plan[0].Interaction+`"`) ||
				resumed == 0 {
				t.Errorf("runs created: plans %+v, research %+v; %d streams opened after an event; want the plan, "+
					"then the research from it, followed on after each cut", plan, research, resumed)
			}
			s.note("running at %.0fs, report at %.0fs after %d research_result calls; the stream opened again %d times",
				float64(answers[0].AtMS)/1000, float64(answers[len(answers)-1].AtMS)/1000, len(answers)-1, resumed)
		})
	}
}

// agentRuns are the runs created at the scenario's mock: the plans (collaborative planning) and the research runs.
func agentRuns(s *scenario) (plans, research []mg.Request) {
	for _, r := range s.mock.RequestsOf(mg.KindAgent) {
		switch {
		case r.Action != "create":
		case strings.Contains(string(r.Body), `"collaborative_planning":true`):
			plans = append(plans, r)
		default:
			research = append(research, r)
		}
	}
	return plans, research
}

// 28. A server killed (SIGKILL), or stopped (SIGTERM), while the agent works, then started again on the same dirs:
// the stopped server leaves the run going, and the new server takes the research on and follows the same run on (no
// second run is created); research_result with the first research_id returns the report. A research_cancel of
// another engine google research cancels its run at the API.
func TestGoogleAgentAcrossARestart(t *testing.T) {
	for _, c := range []struct {
		how    string
		signal os.Signal
	}{{"killed", os.Kill}, {"stopped", syscall.SIGTERM}} {
		t.Run(c.how, func(t *testing.T) {
			t.Parallel()
			agentAcrossARestart(t, c.how, c.signal)
		})
	}
}

func agentAcrossARestart(t *testing.T, how string, signal os.Signal) {
	s := newScenario(t, "28 google agent across a restart, "+how)
	run := agentRun
	run.Every, run.DropAfter = 4*time.Second, 0 // 32 s
	s.mock.Handle(mg.KindAgent, mg.Always(mg.Reply{Agent: &run}))
	streams := func() (opened []mg.Request) {
		for _, r := range s.mock.RequestsOf(mg.KindAgent) {
			if r.Action == "stream" {
				opened = append(opened, r)
			}
		}
		return opened
	}

	first := s.startHTTP()
	started := jobOf(t, s.call(first, "deep_search", map[string]any{"topic": agentTopic, "engine": "google", "wait_seconds": 0}))
	if started.Status != "running" || started.ResearchID == "" {
		t.Fatalf("deep_search engine google with wait_seconds 0 answered %+v, want status running", started)
	}
	// Ended once it follows the research's run (the plan's ends at once): it keeps a run before it follows it.
	if !waitFor(hangLimit, func() bool {
		_, research := agentRuns(s)
		return len(research) == 1 && slices.ContainsFunc(streams(), func(r mg.Request) bool {
			return r.Interaction == research[0].Interaction
		})
	}) {
		t.Fatal("the server never followed the research's run")
	}
	if err := first.cmd.Process.Signal(signal); err != nil {
		t.Fatal(err)
	}
	if _, err := first.cmd.Process.Wait(); err != nil {
		t.Fatal(err)
	}
	_, research := agentRuns(s)
	if status, _ := s.mock.Interaction(research[0].Interaction); status != "in_progress" {
		t.Fatalf("the research's run is %q at the API once the server %s, want in_progress", status, how)
	}
	before := len(streams())

	restarted := s.startHTTP()
	out := s.sdk(sdkRequest{Transport: "http", URL: restarted.url, Tool: "research_result", DefaultTimeout: true,
		UntilDone: true, Arguments: map[string]any{"research_id": started.ResearchID}}, nil)
	if out.Error != "" {
		t.Fatalf("research_result after the restart: %s (answers %+v)", out.Error, out.Answers)
	}
	checkAgentReport(t, out.Result)
	after := streams()[before:]
	plans, research := agentRuns(s)
	if len(plans) != 1 || len(research) != 1 || len(after) == 0 || after[0].Interaction != research[0].Interaction {
		t.Errorf("runs created: plans %+v, research %+v; streams after the restart %+v; want the same run followed on",
			plans, research, after)
	}

	cancelled := jobOf(t, s.call(restarted, "deep_search", map[string]any{"topic": "Another topic", "engine": "google",
		"wait_seconds": 0}))
	var id string
	if !waitFor(hangLimit, func() bool {
		if _, research := agentRuns(s); len(research) == 2 {
			id = research[1].Interaction
		}
		return id != ""
	}) {
		t.Fatal("the second research created no run")
	}
	if res := s.call(restarted, "research_cancel", map[string]any{"research_id": cancelled.ResearchID}); res.IsError {
		t.Fatalf("research_cancel: %+v", res)
	}
	if !waitFor(hangLimit, func() bool { status, _ := s.mock.Interaction(id); return status == "cancelled" }) {
		status, _ := s.mock.Interaction(id)
		t.Errorf("the cancelled research's run is %q at the API, want cancelled", status)
	}
	s.note("followed on after the restart from event %q (the server keeps it at most every 5 s)", after[0].LastEventID)
}

// 29. A client that supports MCP elicitation (the TypeScript SDK with a handler) is shown the agent's plan before
// anything more is spent: declined, over HTTP and over stdio, the call ends CANCELLED and no research run is
// created; approved with a new focus, the research runs on from the plan with that focus, and a follow_up of its
// report goes on in the run that researched it.
func TestGoogleAgentPlanConfirmed(t *testing.T) {
	for _, c := range []struct {
		transport, answer string
		focus             string
	}{{"http", "decline", ""}, {"stdio", "decline", ""}, {"http", "accept", "Only sources from 2026."}} {
		t.Run(c.transport+" "+c.answer, func(t *testing.T) {
			t.Parallel()
			s := newScenario(t, "29 google agent plan, "+c.answer+" over "+c.transport)
			run := agentRun
			run.Every, run.DropAfter = 100*time.Millisecond, 0
			s.mock.Handle(mg.KindAgent, mg.Always(mg.Reply{Agent: &run}))
			req := sdkRequest{Transport: c.transport, Tool: "deep_search", Elicit: c.answer,
				Arguments: map[string]any{"topic": agentTopic, "engine": "google"}}
			if c.focus != "" {
				req.ElicitContent = map[string]any{"approve": true, "focus": c.focus}
			}
			var env []string
			if c.transport == "http" {
				req.URL = s.startHTTP().url
			} else {
				req.Command, env = serverBin, s.env()
			}
			out := s.sdk(req, env)
			if len(out.Elicitations) != 1 || !strings.Contains(out.Elicitations[0].Message, run.Plan) ||
				out.Elicitations[0].RequestedSchema["type"] != "object" {
				t.Fatalf("elicitations %+v, want the plan shown once (error %q)", out.Elicitations, out.Error)
			}
			plans, research := agentRuns(s)
			if c.answer == "decline" {
				if b := out.Result.body(t); !out.Result.IsError || b.Error.Code != "CANCELLED" ||
					!strings.Contains(b.Error.Message, "nothing more was spent") {
					t.Errorf("declined plan answered %+v, want CANCELLED saying nothing more was spent", b)
				}
				if len(plans) != 1 || len(research) != 0 {
					t.Errorf("runs created: plans %+v, research %+v; want the plan alone", plans, research)
				}
				return
			}
			checkAgentReport(t, out.Result)
			if len(plans) != 1 || len(research) != 1 || !strings.Contains(research[0].Prompt, c.focus) {
				t.Fatalf("runs created: plans %+v, research %+v; want the research asked with the focus", plans, research)
			}

			// follow_up on the agent's report goes on in the run that researched it.
			id, _ := out.Result.Meta["researchId"].(string)
			const question = "Is the area figure from 2026?"
			follow := s.sdk(sdkRequest{Transport: "http", URL: req.URL, Tool: "follow_up",
				Arguments: map[string]any{"research_id": id, "question": question}}, nil)
			if follow.Result == nil || follow.Result.IsError {
				t.Fatalf("follow_up: %+v (%s)", follow.Result, follow.Error)
			}
			if _, research = agentRuns(s); len(research) != 2 || research[1].Prompt != question ||
				!strings.Contains(string(research[1].Body), `"previous_interaction_id":"`+research[0].Interaction+`"`) {
				t.Errorf("runs created for the follow-up: %+v; want the question in the report's run", research[1:])
			}
		})
	}
}
