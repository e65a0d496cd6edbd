//go:build e2e

package e2e

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	mg "github.com/gemini-search-mcp/gemini-search-mcp/internal/mockgemini"
)

// Research that outlives the call (issue 23): the clients people use give up on a tool call after 60 s, while a
// deep_search takes minutes. So research runs as a job, the call answers status running with a research_id when
// the research takes longer than its wait, and research_result waits again, from any session, and after a restart
// from the research library.

// clientTimeout is the request timeout of the official TypeScript SDK, which the MCP Inspector and mcp-remote's
// users (Claude Desktop among them) run into.
const clientTimeout = 60 * time.Second

// apiHold holds each of the API backend's three answers in a deep_search for 30 s: about 90 s in all.
const apiHold = 30 * time.Second

// outlivingHold holds each of the model's four answers in a deep_search (two CLI runs of two turns each) for
// 22 s, less than the CLI waits for one: the research needs about 90 s, longer than clientTimeout.
const outlivingHold = 22 * time.Second

// 22 to 24, and 26. With the official TypeScript SDK at its default request timeout, with that client speaking
// stdio to mcp-remote (the stdio-to-HTTP proxy Claude Desktop's users run), and with the MCP Inspector CLI, each
// client as it comes, on the Gemini CLI backend, and with the SDK on the Gemini API backend: a deep_search that
// needs about 90 s answers status running with a research_id inside 60 s, and research_result, called with that id
// until the research ends, returns the whole report. They run side by side, each with its own server and mock:
// the time is the mock's holds, not the machine's.
func TestResearchOutlivesTheCall(t *testing.T) {
	for _, c := range []struct {
		client, scenario string
		call             func(s *scenario, url string) ([]answer, *toolResult)
		api              bool // on the Gemini API backend, else the Gemini CLI's
	}{
		{"sdk", "22 research outlives the call", deepSearchViaSDK, false},
		{"mcp-remote", "23 research via mcp-remote", deepSearchViaMCPRemote, false},
		{"inspector", "24 research via inspector", deepSearchViaInspector, false},
		{"api", "26 research on the api backend", deepSearchViaSDK, true},
	} {
		t.Run(c.client, func(t *testing.T) {
			t.Parallel()
			s := newScenario(t, c.scenario)
			var d *draft
			env := []string{"DEEP_SEARCH_MAX_ROUNDS=3"}
			if c.api { // three rounds of one request each, held 30 s
				heldAPIScript(s, unexpected, apiHold)
				env = append(env, "GEMINI_BACKEND=api")
			} else {
				d = heldDeepScript(s, outlivingHold, 0)
			}
			srv := s.startHTTP(env...)

			answers, res := c.call(s, srv.url)
			if len(answers) < 2 || answers[0].Status != "running" || answers[0].AtMS >= clientTimeout.Milliseconds() {
				t.Fatalf("answers %+v, want status running inside %v first, then the report", answers, clientTimeout)
			}
			if c.api {
				if b := checkAPIReport(t, "deep_search", res, apiRounds[2], ""); b.Metadata.Rounds != 3 {
					t.Errorf("deep_search: %d rounds, want 3", b.Metadata.Rounds)
				}
			} else {
				checkDeepSearch(t, s, d, res)
			}
			last := answers[len(answers)-1]
			if last.AtMS <= clientTimeout.Milliseconds() {
				t.Errorf("the report came %.0fs after the call: the research did not outlast the client's %v, so the "+
					"scenario proves nothing", float64(last.AtMS)/1000, clientTimeout)
			}
			s.note("running at %.0fs, report at %.0fs after %d research_result calls", float64(answers[0].AtMS)/1000,
				float64(last.AtMS)/1000, len(answers)-1)
		})
	}
}

// deepSearch is the deep_search of TestResearchOutlivesTheCall.
var deepSearch = map[string]any{"topic": question, "depth": "concise"}

// deepSearchViaSDK runs it with the SDK client over HTTP.
func deepSearchViaSDK(s *scenario, url string) ([]answer, *toolResult) {
	return s.untilDone(sdkRequest{Transport: "http", URL: url})
}

// deepSearchViaMCPRemote runs it with the SDK client spawning mcp-remote, as Claude Desktop does, on the
// Streamable HTTP transport alone (without it, mcp-remote falls back to SSE when HTTP fails, which would hide why).
func deepSearchViaMCPRemote(s *scenario, url string) ([]answer, *toolResult) {
	proxy := filepath.Join(cacheDir, "node_modules", ".bin", "mcp-remote")
	return s.untilDone(sdkRequest{Transport: "stdio", Command: proxy, Args: []string{url, "--transport", "http-only"}})
}

// untilDone runs the deep_search with the SDK client at its default request timeout, and research_result until
// the research ends.
func (s *scenario) untilDone(req sdkRequest) ([]answer, *toolResult) {
	s.t.Helper()
	req.Tool, req.Arguments, req.DefaultTimeout, req.UntilDone = "deep_search", deepSearch, true, true
	out := s.sdk(req, nil)
	if out.Error != "" {
		s.t.Fatalf("the client failed: %s (answers %+v)", out.Error, out.Answers)
	}
	return out.Answers, out.Result
}

// deepSearchViaInspector runs it with the Inspector CLI, which calls a tool with the SDK's default timeout, then
// research_result the same way, each call from a new Inspector process and session, until the research ends.
func deepSearchViaInspector(s *scenario, url string) ([]answer, *toolResult) {
	s.t.Helper()
	began := time.Now()
	args := []string{"--method", "tools/call", "--tool-name", "deep_search",
		"--tool-arg", "topic=" + question, "--tool-arg", "depth=concise"}
	var answers []answer
	for range 10 {
		var res toolResult
		s.inspector(url, &res, args...)
		job := jobOf(s.t, &res)
		answers = append(answers, answer{Status: cmpOr(job.Status, "done"), AtMS: time.Since(began).Milliseconds()})
		if job.Status != "running" {
			return answers, &res
		}
		args = []string{"--method", "tools/call", "--tool-name", "research_result", "--tool-arg", "research_id=" + job.ResearchID}
	}
	s.t.Fatalf("the research still ran after 10 research_result calls: %+v", answers)
	return nil, nil
}

// job is what a research call's result says of its job: status running and the research_id while it runs; no
// status once it has ended.
type job struct {
	Status     string `json:"status"`
	ResearchID string `json:"research_id"`
}

// jobOf reads the job's status and id from the result's JSON text, which every client sees.
func jobOf(t testing.TB, res *toolResult) job {
	t.Helper()
	var j job
	if len(res.Content) == 0 || json.Unmarshal([]byte(res.Content[0].Text), &j) != nil {
		t.Fatalf("the result is not the JSON body: %+v", res)
	}
	return j
}

// call calls tool with args on srv over HTTP with the SDK client, and returns its result.
func (s *scenario) call(srv *server, tool string, args map[string]any) *toolResult {
	s.t.Helper()
	out := s.sdk(sdkRequest{Transport: "http", URL: srv.url, Tool: tool, Arguments: args}, nil)
	if out.Result == nil {
		s.t.Fatalf("%s: no result: %s", tool, out.Error)
	}
	return out.Result
}

// 25. A server killed (SIGKILL) while a deep_search started with wait_seconds 0 runs, then started again on the same
// config and data dirs: no process of the killed server's CLI (the CLI and the firecrawl-mcp it started) runs once
// the new server is up; research_result answers RESEARCH_INTERRUPTED for the research that was running, with the fix
// (call deep_search again), and returns the report of a search that ended before the kill from the research
// library, without researching it again.
func TestServerKilledMidResearch(t *testing.T) {
	s := newScenario(t, "25 server killed mid-research")
	const lostTopic = "What will Go 1.27 bring?"
	s.withFirecrawl("") // so that the CLI's group also holds firecrawl-mcp (npx, node), which can outlive the killed CLI
	s.mock.Handle(mg.KindSearch, mg.Always(mg.Grounded("Go 1.26 was released in February 2026 with new language features.", goSources...)))
	s.mock.Handle(mg.KindChat, mg.ByPrompt(unexpected,
		mg.Route{Contains: "<topic>\n" + lostTopic + "\n</topic>", Respond: mg.Always(mg.Hang())},
		mg.Route{Contains: researchPrompt, Respond: agent(searchCall(searchQuery))},
	))
	env := "FIRECRAWL_API_URL=" + s.firecrawlURL

	killed := s.startHTTP(env)
	done := s.call(killed, "search", map[string]any{"query": question})
	checkGroundedReport(t, "search before the kill", done)
	doneID, _ := done.Meta["researchId"].(string)
	if doneID == "" {
		t.Fatalf("the search's result names no research id in _meta: %v", done.Meta)
	}

	chats := len(s.mock.RequestsOf(mg.KindChat))
	lost := jobOf(t, s.call(killed, "deep_search", map[string]any{"topic": lostTopic, "wait_seconds": 0}))
	if lost.Status != "running" || lost.ResearchID == "" {
		t.Fatalf("deep_search with wait_seconds 0 answered %+v, want status running with a research_id", lost)
	}
	if !waitFor(hangLimit, func() bool { return len(s.mock.RequestsOf(mg.KindChat)) > chats }) {
		t.Fatal("the deep_search's CLI never reached the mock")
	}
	killedPID := killed.cmd.Process.Pid
	during := s.others(killedPID)
	i := slices.IndexFunc(during, isCLI)
	if i < 0 || !anyCmd(during, "firecrawl-mcp") {
		t.Fatalf("while the deep_search runs, want the CLI and firecrawl-mcp running; the run's processes:\n%s", list(during))
	}
	group := during[i].pgid
	members := groupMembers(group)

	if err := killed.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	// Reaped, as its parent (a client, a shell) would: a zombie still has the process id and start time the
	// server's records of its CLI runs name, so the next server would take it for alive.
	if _, err := killed.cmd.Process.Wait(); err != nil {
		t.Fatal(err)
	}
	leftByKill := groupMembers(group) // what the kill alone left of the CLI's group, for the note

	restarted := s.startHTTP(env)
	var left []proc
	if !waitFor(hangLimit, func() bool {
		left = append(groupMembers(group), s.others(restarted.cmd.Process.Pid)...)
		return len(left) == 0
	}) {
		t.Errorf("processes of the killed server's CLI still run with the new server up:\n%s", list(left))
	}

	requests := len(s.mock.Requests())
	res := s.call(restarted, "research_result", map[string]any{"research_id": lost.ResearchID})
	if b := res.body(t); !res.IsError || b.Error.Code != "RESEARCH_INTERRUPTED" ||
		!strings.Contains(b.Error.Details, "Call deep_search again") {
		t.Errorf("research_result of the research the kill cut answered %+v, want RESEARCH_INTERRUPTED saying to "+
			"call deep_search again", b.Error)
	}
	res = s.call(restarted, "research_result", map[string]any{"research_id": doneID})
	// The library keeps a report's text, its sources and its topic: those come back as the search returned them.
	got, want := res.body(t), done.body(t)
	if res.IsError || !got.Success || got.Report != want.Report ||
		!slices.Equal(got.Metadata.SourcesVisited, want.Metadata.SourcesVisited) {
		t.Errorf("research_result after the restart answered %+v\nwant the report and sources the search returned "+
			"before the kill:\n%+v", got, want)
	}
	if res.Meta["researchId"] != doneID {
		t.Errorf("research_result's _meta %v, want researchId %q", res.Meta, doneID)
	}
	if n := len(s.mock.Requests()); n != requests {
		t.Errorf("the mock got %d requests after the restart: the restarted server researched again", n-requests)
	}
	s.note("the kill left %d of the CLI group's %d processes running; the restart ended %d groups", len(leftByKill),
		len(members), strings.Count(restarted.stderr.String(), "ended the CLI processes a crashed server left running"))
}
