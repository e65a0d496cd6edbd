//go:build e2e

package e2e

import (
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/fakefirecrawl"
	mg "github.com/gemini-search-mcp/gemini-search-mcp/internal/mockgemini"
)

// 15b. The warm CLI over ACP (GEMINI_WARM_WORKERS=1), as issue 27 has it: no CLI process at the server's start; the
// first search runs cold and starts one long-lived `gemini --acp` worker, which answers the searches that follow with
// the same report and sources as a cold one-shot CLI gives for the same mock reply (the model gets the same research
// prompt, and only the session's folder's settings, with the research tools alone); the server's end ends it.
func TestWarmCLIOverACP(t *testing.T) {
	s := newScenario(t, "15b warm cli over acp")
	groundedScript(s)
	warm := s.startHTTP("GEMINI_WARM_WORKERS=1")
	cold := s.startHTTP()
	time.Sleep(3 * time.Second) // a CLI started at launch would be there by now
	if cli := cliProcs(s); len(cli) != 0 || warmWorkers(t, warm.url) != 0 {
		t.Fatalf("CLI processes before any search: %v", cli)
	}

	search := func(srv *server) (searchBody, mg.Request) {
		t.Helper()
		seen := len(s.mock.Requests())
		out := s.sdk(sdkRequest{Transport: "http", URL: srv.url, Arguments: map[string]any{"query": question, "fresh": true}}, nil)
		checkGroundedReport(t, srv.url, out.Result)
		for _, r := range s.mock.Requests()[seen:] {
			if r.Kind == mg.KindChat && r.ToolTurns == 0 {
				return out.Result.body(t), r
			}
		}
		t.Fatalf("%s: no CLI conversation reached the mock", srv.url)
		return searchBody{}, mg.Request{}
	}
	search(warm) // cold: it starts the worker
	if !waitFor(hangLimit, func() bool { return warmWorkers(t, warm.url) == 1 }) {
		t.Fatalf("no warm CLI after the first search:\n%s", warm.stderr)
	}
	workers := cliProcs(s)
	if len(workers) != 1 || !strings.Contains(workers[0].cmdline, "--acp") {
		t.Fatalf("CLI processes after the first search: %v, want one --acp worker", workers)
	}
	warmReport, warmReq := search(warm)
	coldReport, coldReq := search(cold)
	if warmReport.Report != coldReport.Report || !slices.Equal(warmReport.Metadata.SourcesVisited, coldReport.Metadata.SourcesVisited) ||
		!slices.Equal(warmReport.Metadata.SearchQueriesUsed, coldReport.Metadata.SearchQueriesUsed) {
		t.Errorf("the warm CLI's report differs from the cold one's:\nwarm:\n%+v\ncold:\n%+v", warmReport, coldReport)
	}
	// A one-shot run is given a newline ahead of its prompt (internal/gemini prelude), which follows the CLI's
	// session context; a session is given the prompt alone. The system instruction is the CLI's own, not compared.
	if userPrompt(warmReq) != userPrompt(coldReq) || !strings.Contains(warmReq.Prompt, "You are an autonomous research agent") {
		t.Errorf("the model got another prompt from the warm CLI:\nwarm:\n%q\ncold:\n%q", warmReq.Prompt, coldReq.Prompt)
	}
	if !slices.Equal(warmReq.Tools, coldReq.Tools) {
		t.Errorf("the warm CLI offered the model %q, the cold one %q", warmReq.Tools, coldReq.Tools)
	}
	for _, tool := range forbiddenTools {
		if slices.Contains(warmReq.Tools, tool) {
			t.Errorf("the warm CLI offered the model %s: %q", tool, warmReq.Tools)
		}
	}
	search(warm)
	if got := cliProcs(s); len(got) != 1 || got[0].pid != workers[0].pid {
		t.Errorf("CLI processes after two warm searches: %v, want the one worker %v", got, workers[0])
	}
	if n := strings.Count(warm.stderr.String(), "gemini run start command="+cliPath()+" acp=true"); n != 2 {
		t.Errorf("runs on the warm worker: %d, want 2:\n%s", n, warm.stderr)
	}
	s.note("2 searches on one --acp worker; report and tools as cold; same system instruction: %v",
		warmReq.SystemInstruction == coldReq.SystemInstruction)
}

// 15c. The warm --acp worker of the real CLI under a time limit and a crash: a search past GEMINI_SEARCH_TIMEOUT
// fails with CLI_TIMEOUT and session/cancel stops its prompt, the worker going on to answer the next search; a worker
// killed during a search leaves it to a cold run, which answers.
func TestWarmCLIOverACPCancelAndCrash(t *testing.T) {
	s := newScenario(t, "15c acp cancel and crash")
	groundedScript(s)
	var hang atomic.Bool
	answer := agent(searchCall(searchQuery))
	s.mock.Handle(mg.KindChat, func(r *mg.Request) mg.Reply {
		if hang.Load() {
			return mg.Hang()
		}
		return answer(r)
	})
	srv := s.startHTTP("GEMINI_WARM_WORKERS=1", "GEMINI_SEARCH_TIMEOUT=8000")
	search := func() *toolResult {
		t.Helper()
		return s.sdk(sdkRequest{Transport: "http", URL: srv.url, Arguments: map[string]any{"query": question, "fresh": true}}, nil).Result
	}
	checkGroundedReport(t, srv.url, search()) // cold: it starts the worker
	if !waitFor(hangLimit, func() bool { return warmWorkers(t, srv.url) == 1 }) {
		t.Fatalf("no warm CLI after the first search:\n%s", srv.stderr)
	}
	worker := cliProcs(s)
	if len(worker) != 1 {
		t.Fatalf("CLI processes: %v, want the worker alone", worker)
	}

	hang.Store(true)
	if res := search(); res == nil || !res.IsError || res.body(t).Error.Code != "CLI_TIMEOUT" {
		t.Fatalf("a search the model never answers: %+v, want CLI_TIMEOUT", res)
	}
	hang.Store(false)
	checkGroundedReport(t, srv.url, search())
	if got := cliProcs(s); len(got) != 1 || got[0].pid != worker[0].pid {
		t.Fatalf("CLI processes after the timeout: %v, want the worker %v still serving", got, worker[0])
	}

	hang.Store(true)
	seen := len(s.mock.RequestsOf(mg.KindChat))
	c := s.startSDK(sdkRequest{Transport: "http", URL: srv.url, Arguments: map[string]any{"query": question, "fresh": true}}, nil)
	if !waitFor(hangLimit, func() bool { return len(s.mock.RequestsOf(mg.KindChat)) > seen }) {
		t.Fatal("the search reached no mock request")
	}
	hang.Store(false)
	if err := syscall.Kill(-worker[0].pgid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	checkGroundedReport(t, srv.url, c.wait(t, hangLimit).Result)
	if !strings.Contains(srv.stderr.String(), "running the search cold") {
		t.Errorf("the fallback to a cold run was not logged:\n%s", srv.stderr)
	}
	s.note("a timeout cancelled in the worker, which served on; a killed worker's search answered cold")
}

// 15d. With Firecrawl on, no --acp worker starts (the CLI would start a Firecrawl MCP server for every session and
// never end one): the warm search runs on a pre-spawned one-shot CLI, and Firecrawl still scrapes: the model's
// scrape reaches the fake Firecrawl with the configured key, and the scraped page the report and its sources.
func TestWarmCLIOverACPWithFirecrawl(t *testing.T) {
	s := newScenario(t, "15d acp firecrawl")
	key := "fc-e2e-" + s.runID
	const page, marker = "https://docs.example.com/go-1.26", "Scraped by the fake Firecrawl through the warm CLI 5c1d"
	s.withFirecrawl(key)
	s.firecrawl.AddPage(page, fakefirecrawl.Page{Title: "Go 1.26 docs", Markdown: "# Go 1.26\n\n" + marker + "\n"})
	s.mock.Handle(mg.KindChat, agent(scrapeCall(page)))
	srv := s.startHTTP("GEMINI_WARM_WORKERS=1", "FIRECRAWL_API_KEY="+key, "FIRECRAWL_API_URL="+s.firecrawlURL)
	search := func() searchBody {
		t.Helper()
		out := s.sdk(sdkRequest{Transport: "http", URL: srv.url, Arguments: map[string]any{"query": question, "fresh": true}}, nil)
		if out.Result == nil || out.Result.IsError {
			t.Fatalf("search failed: %+v (%s)", out.Result, out.Error)
		}
		return out.Result.body(t)
	}
	search() // cold: it starts the warm CLI
	if !waitFor(hangLimit, func() bool { return warmWorkers(t, srv.url) == 1 }) {
		t.Fatalf("no warm CLI after the first search:\n%s", srv.stderr)
	}
	b := search()
	if !strings.Contains(b.Report, marker) || !slices.Contains(b.Metadata.SourcesVisited, page) {
		t.Errorf("the scraped page did not reach the warm search's report or sources: %+v", b)
	}
	scrapes := 0
	for _, r := range s.firecrawl.Requests() {
		if r.Path == "/v2/scrape" && r.Key == key && r.Status == 200 {
			scrapes++
		}
	}
	if scrapes != 2 {
		t.Errorf("the fake Firecrawl got %d scrapes with the key, want 2 (cold, then warm): %+v", scrapes, s.firecrawl.Requests())
	}
	checkWarmOneShot(t, srv)
	checkNeverOffered(t, s)
}

// 15e. A warm search whose Firecrawl MCP server did not start (npx, offline, finds no firecrawl-mcp) says so as a
// cold one does: metadata.firecrawl "unavailable: …" on the warm search too, which ran on a pre-spawned one-shot CLI
// (no --acp worker while Firecrawl is on).
func TestWarmCLIOverACPFirecrawlDown(t *testing.T) {
	s := newScenario(t, "15e acp firecrawl down")
	groundedScript(s)
	config := filepath.Join(t.TempDir(), "config") // no node_modules above it: npx cannot find firecrawl-mcp
	srv := s.startHTTP("GEMINI_WARM_WORKERS=1", "GEMINI_SEARCH_CONFIG_DIR="+config, "FIRECRAWL_API_URL=http://"+closedPort(t))
	search := func() honesty {
		t.Helper()
		out := s.sdk(sdkRequest{Transport: "http", URL: srv.url, Arguments: map[string]any{"query": question, "fresh": true}}, nil)
		checkGroundedReport(t, "sdk", out.Result)
		return honestyOf(t, "search", out.Result)
	}
	search() // cold: it starts the warm CLI
	if !waitFor(hangLimit, func() bool { return warmWorkers(t, srv.url) == 1 }) {
		t.Fatalf("no warm CLI after the first search:\n%s", srv.stderr)
	}
	if h := search(); !strings.HasPrefix(h.Metadata.Firecrawl, "unavailable: ") {
		t.Errorf("the warm search's metadata.firecrawl %q, want it unavailable", h.Metadata.Firecrawl)
	}
	checkWarmOneShot(t, srv)
}

// checkWarmOneShot checks that srv's second search ran on a pre-spawned one-shot CLI and none on an --acp worker.
func checkWarmOneShot(t *testing.T, srv *server) {
	t.Helper()
	logs := srv.stderr.String()
	if n := strings.Count(logs, "gemini run start command="+cliPath()+" acp=true"); n != 0 {
		t.Errorf("runs on an --acp worker: %d, want none with Firecrawl on", n)
	}
	if n := strings.Count(logs, " warm=true prompt_bytes="); n != 1 {
		t.Errorf("runs on a pre-spawned one-shot CLI: %d, want 1:\n%s", n, logs)
	}
}

// userPrompt is what the model got as the user's turns after the CLI's session context.
func userPrompt(r mg.Request) string {
	_, after, _ := strings.Cut(r.Prompt, "</session_context>")
	return strings.TrimSpace(after)
}

// cliPath is the CLI the server finds on the scenario's PATH.
func cliPath() string { return filepath.Join(cacheDir, "node_modules", ".bin", "gemini") }

// cliProcs are the scenario's Gemini CLI processes.
func cliProcs(s *scenario) []proc {
	var out []proc
	for _, p := range s.procs() {
		if strings.Contains(p.cmdline, "gemini-cli") || strings.Contains(p.cmdline, "/.bin/gemini") ||
			strings.HasPrefix(p.cmdline, "node ") && strings.Contains(p.cmdline, "gemini") {
			out = append(out, p)
		}
	}
	return out
}
