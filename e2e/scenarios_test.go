//go:build e2e

package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/fakefirecrawl"
	mg "github.com/gemini-search-mcp/gemini-search-mcp/internal/mockgemini"
)

const (
	question    = "What is new in Go 1.26?"
	searchQuery = "go 1.26 release notes"
)

// goSources are the sources of the grounded search answer.
var goSources = []mg.Source{
	{URI: "https://go.dev/doc/go1.26", Title: "go.dev"},
	{URI: "https://go.dev/blog/go1.26", Title: "go.dev blog"},
}

var (
	plainTools     = []string{"google_web_search", "web_fetch"}
	firecrawlTools = []string{"google_web_search", "web_fetch",
		"mcp_firecrawl_firecrawl_scrape", "mcp_firecrawl_firecrawl_search", "mcp_firecrawl_firecrawl_map"}
	forbiddenTools = []string{"run_shell_command", "write_file", "replace"}
)

// agent scripts the research agent in the mock: one tool call per turn, then the fenced JSON report the
// research prompt asks for, written from the tool results the CLI sent back. So whatever reaches the agent
// through the CLI (grounded sources, scraped text, tool errors) reaches the report.
func agent(calls ...mg.FunctionCall) mg.Responder {
	return func(r *mg.Request) mg.Reply {
		if r.ToolTurns < len(calls) {
			return mg.Reply{Calls: []mg.FunctionCall{calls[r.ToolTurns]}}
		}
		return reportFrom(r, calls)
	}
}

var urlPattern = regexp.MustCompile(`https?://[^\s)"'\\\]<>]+`)

func reportFrom(r *mg.Request, calls []mg.FunctionCall) mg.Reply {
	var findings []string
	var sources, queries []string
	for _, fr := range r.FunctionResponses {
		out := fr.Output()
		findings = append(findings, fmt.Sprintf("### %s\n%s", fr.Name, out))
		for _, u := range urlPattern.FindAllString(out, -1) {
			if !slices.Contains(sources, u) {
				sources = append(sources, u)
			}
		}
	}
	for _, c := range calls {
		if q, ok := c.Args["query"].(string); ok {
			queries = append(queries, q)
		}
	}
	var report strings.Builder
	report.WriteString("# Go 1.26\n\nAnswer from the mock research agent.\n\n## Findings\n")
	report.WriteString(strings.Join(findings, "\n\n"))
	report.WriteString("\n\n## Sources\n")
	for i, u := range sources {
		fmt.Fprintf(&report, "%d. %s\n", i+1, u)
	}
	body, _ := json.MarshalIndent(map[string]any{
		"success": true,
		"report":  report.String(),
		"metadata": map[string]any{
			"sources_visited": sources, "search_queries_used": queries, "iterations": len(calls),
		},
	}, "", "  ")
	return mg.Text("```json\n" + string(body) + "\n```")
}

func searchCall(query string) mg.FunctionCall {
	return mg.FunctionCall{Name: "google_web_search", Args: map[string]any{"query": query}}
}

func scrapeCall(url string) mg.FunctionCall {
	return mg.FunctionCall{Name: "mcp_firecrawl_firecrawl_scrape", Args: map[string]any{"url": url}}
}

// groundedScript sets the mock up for a search that is answered from Google Search grounding.
func groundedScript(s *scenario) {
	s.mock.Handle(mg.KindSearch, mg.Always(mg.Grounded("Go 1.26 was released in February 2026 with new language features.", goSources...)))
	s.mock.Handle(mg.KindChat, agent(searchCall(searchQuery)))
}

// checkGroundedReport checks a successful search whose report carries the grounded answer's sources.
func checkGroundedReport(t *testing.T, client string, res *toolResult) {
	t.Helper()
	if res == nil {
		t.Fatalf("%s: no result", client)
	}
	b := res.body(t)
	if res.IsError || !b.Success {
		t.Fatalf("%s: search failed: %+v", client, b)
	}
	for _, src := range goSources {
		if !strings.Contains(b.Report, src.URI) || !slices.Contains(b.Metadata.SourcesVisited, src.URI) {
			t.Errorf("%s: the grounded source %s is missing from the report or sources_visited:\n%s\nsources_visited=%q",
				client, src.URI, b.Report, b.Metadata.SourcesVisited)
		}
	}
	if !slices.Contains(b.Metadata.SearchQueriesUsed, searchQuery) {
		t.Errorf("%s: search_queries_used %q lacks the agent's query %q", client, b.Metadata.SearchQueriesUsed, searchQuery)
	}
}

// checkRanWithWorkspace checks, from the mock's log, that each CLI run used our research prompt and our
// workspace settings: the agent was offered exactly wantTools.
func checkRanWithWorkspace(t *testing.T, s *scenario, wantTools []string, runs int) {
	t.Helper()
	chats := s.mock.RequestsOf(mg.KindChat)
	var starts int
	for _, r := range chats {
		if r.ToolTurns == 0 {
			starts++
		}
		if got := sorted(r.Tools); !slices.Equal(got, sorted(wantTools)) {
			t.Errorf("request %d offered the tools %q, want exactly %q (tools.core of the workspace settings)", r.Seq, got, sorted(wantTools))
		}
		if !strings.Contains(r.Prompt, "You are an autonomous research agent") || !strings.Contains(r.Prompt, "<topic>\n"+question+"\n</topic>") {
			t.Errorf("request %d: the prompt is not our research prompt for %q:\n%.600s", r.Seq, question, r.Prompt)
		}
		if ua := r.Header["User-Agent"]; !strings.Contains(ua, "GeminiCLI") || !strings.Contains(ua, "/0.61.0/") {
			t.Errorf("request %d: User-Agent %q, want the Gemini CLI 0.61.0", r.Seq, ua)
		}
		if !r.APIKey {
			t.Errorf("request %d carried no API key", r.Seq)
		}
		if r.ToolTurns == 0 && !strings.Contains(r.Prompt, s.config) {
			t.Errorf("request %d: the CLI's session context does not name the config dir %s as its working directory", r.Seq, s.config)
		}
	}
	if starts != runs {
		t.Errorf("the mock saw %d CLI runs (conversations), want %d", starts, runs)
	}
	for _, r := range s.mock.RequestsOf(mg.KindSearch) {
		if r.Prompt != searchQuery {
			t.Errorf("google_web_search request %d searched %q, want %q", r.Seq, r.Prompt, searchQuery)
		}
	}
	checkNeverOffered(t, s)
}

// checkNeverOffered checks that no request ever offered a shell or file-writing tool.
func checkNeverOffered(t *testing.T, s *scenario) {
	t.Helper()
	for _, r := range s.mock.Requests() {
		for _, bad := range forbiddenTools {
			if slices.Contains(r.Tools, bad) {
				t.Errorf("request %d (%s) offered %s to the model", r.Seq, r.Kind, bad)
			}
		}
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func hasTool(tools []string, name string) bool { return slices.Contains(tools, name) }

// 1. HTTP: the MCP Inspector CLI and the SDK client list the tools and search.
func TestHTTPInspectorAndSDK(t *testing.T) {
	s := newScenario(t, "1 http inspector+sdk")
	groundedScript(s)
	srv := s.startHTTP()

	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	s.inspector(srv.url, &list, "--method", "tools/list")
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	if !hasTool(names, "search") {
		t.Fatalf("inspector tools/list: got %q, want search among them", names)
	}
	var res toolResult
	s.inspector(srv.url, &res, "--method", "tools/call", "--tool-name", "search", "--tool-arg", "query="+question)
	checkGroundedReport(t, "inspector", &res)

	// The same question again: answered from the cache, without a CLI run; with fresh, researched again.
	out := s.sdk(sdkRequest{Transport: "http", URL: srv.url, Arguments: map[string]any{"query": question}}, nil)
	if out.Server.Name != "gemini-search-mcp" || !hasTool(out.Tools, "search") {
		t.Errorf("sdk: server %q with tools %q, want gemini-search-mcp with search", out.Server.Name, out.Tools)
	}
	checkGroundedReport(t, "sdk", out.Result)
	if b := out.Result.body(t); !b.Metadata.Cached || out.Result.Meta["cached"] != true {
		t.Errorf("sdk: the repeated question was not answered from the cache: cached=%v, _meta %v", b.Metadata.Cached, out.Result.Meta)
	}
	out = s.sdk(sdkRequest{Transport: "http", URL: srv.url, Arguments: map[string]any{"query": question, "fresh": true}}, nil)
	checkGroundedReport(t, "sdk fresh", out.Result)
	if out.Result.body(t).Metadata.Cached {
		t.Error("sdk: fresh came from the cache")
	}

	checkRanWithWorkspace(t, s, plainTools, 2)
	if len(s.mock.RequestsOf(mg.KindRouter)) == 0 {
		t.Error("no router request: with GEMINI_MODEL unset the CLI should pick the model itself (auto)")
	}
}

// 2. stdio: the SDK client spawns the server.
func TestStdioSDK(t *testing.T) {
	s := newScenario(t, "2 stdio sdk")
	groundedScript(s)
	out := s.sdk(sdkRequest{Transport: "stdio", Command: serverBin, Arguments: map[string]any{"query": question}}, s.env())
	if out.Server.Name != "gemini-search-mcp" || !hasTool(out.Tools, "search") {
		t.Errorf("server %q with tools %q, want gemini-search-mcp with search", out.Server.Name, out.Tools)
	}
	checkGroundedReport(t, "sdk stdio", out.Result)
	checkRanWithWorkspace(t, s, plainTools, 1)
	if _, err := os.Stat(filepath.Join(s.config, ".gemini", "settings.json")); err != nil {
		t.Errorf("the research workspace was not created in the config dir: %v", err)
	}
}

// 3. The tools offered to the model, without and with Firecrawl.
func TestToolsOffered(t *testing.T) {
	s := newScenario(t, "3 tools offered")
	groundedScript(s)
	s.withFirecrawl("")

	plain := s.startHTTP()
	out := s.sdk(sdkRequest{Transport: "http", URL: plain.url, Arguments: map[string]any{"query": question}}, nil)
	checkGroundedReport(t, "without firecrawl", out.Result)
	checkRanWithWorkspace(t, s, plainTools, 1)
	seen := len(s.mock.Requests())

	withFC := s.startHTTP(append(s.otherInstall("firecrawl"), "FIRECRAWL_API_URL="+s.firecrawlURL)...)
	out = s.sdk(sdkRequest{Transport: "http", URL: withFC.url, Arguments: map[string]any{"query": question}}, nil)
	checkGroundedReport(t, "with firecrawl", out.Result)
	chats := 0
	for _, r := range s.mock.Requests()[seen:] {
		if r.Kind != mg.KindChat {
			continue
		}
		chats++
		if !slices.Equal(sorted(r.Tools), sorted(firecrawlTools)) {
			t.Errorf("with Firecrawl, request %d offered %q, want exactly %q", r.Seq, sorted(r.Tools), sorted(firecrawlTools))
		}
	}
	if chats == 0 {
		t.Error("with Firecrawl, the CLI never asked the model")
	}
	checkNeverOffered(t, s)
}

// 4. Firecrawl: the agent scrapes a page through firecrawl-mcp; the key lives only in the config dir's .env.
func TestFirecrawlScrape(t *testing.T) {
	s := newScenario(t, "4 firecrawl scrape")
	key := "fc-e2e-" + s.runID
	const page, marker = "https://docs.example.com/go-1.26", "Scraped by the fake Firecrawl: generic type aliases 7f3a"
	s.withFirecrawl(key)
	s.firecrawl.AddPage(page, fakefirecrawl.Page{Title: "Go 1.26 docs", Markdown: "# Go 1.26\n\n" + marker + "\n"})
	s.mock.Handle(mg.KindChat, agent(scrapeCall(page)))
	if err := os.MkdirAll(s.config, 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(s.config, ".env"), "FIRECRAWL_API_KEY="+key+"\nFIRECRAWL_API_URL="+s.firecrawlURL+"\n")
	srv := s.startHTTP()

	out := s.sdk(sdkRequest{Transport: "http", URL: srv.url, Arguments: map[string]any{"query": question}}, nil)
	if out.Result == nil {
		t.Fatalf("no result: %s", out.Error)
	}
	b := out.Result.body(t)
	if out.Result.IsError || !b.Success {
		t.Fatalf("search failed: %+v", b)
	}
	var scrapes int
	for _, r := range s.firecrawl.Requests() {
		if r.Path != "/v2/scrape" {
			continue
		}
		scrapes++
		if r.Key != key || r.Status != 200 || !strings.Contains(string(r.Body), page) {
			t.Errorf("scrape request: key %q status %d body %s, want the configured key and %s", r.Key, r.Status, r.Body, page)
		}
	}
	if scrapes != 1 {
		t.Errorf("the fake Firecrawl got %d scrape requests, want 1: %+v", scrapes, s.firecrawl.Requests())
	}
	if !strings.Contains(b.Report, marker) {
		t.Errorf("the scraped text %q did not reach the report:\n%s", marker, b.Report)
	}
	if !slices.Contains(b.Metadata.SourcesVisited, page) {
		t.Errorf("sources_visited %q lacks the scraped page %s", b.Metadata.SourcesVisited, page)
	}
	checkNeverOffered(t, s)

	// The config dir, and for good measure the CLI's HOME and TMPDIR: the whole scenario folder (WalkDir does
	// not follow the node_modules link).
	err := filepath.WalkDir(s.root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || path == filepath.Join(s.config, ".env") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(string(data), key) {
			t.Errorf("the Firecrawl key is written in %s", path)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
	settings, _ := os.ReadFile(filepath.Join(s.config, ".gemini", "settings.json"))
	if !strings.Contains(string(settings), "${FIRECRAWL_API_KEY}") {
		t.Errorf("settings.json does not refer to ${FIRECRAWL_API_KEY}:\n%s", settings)
	}
	if strings.Contains(srvLog(s), key) {
		t.Error("the Firecrawl key reached the server log")
	}
}

// 5. Firecrawl configured but unreachable: the search still succeeds with Google Search, and a warning is
// logged.
func TestFirecrawlDown(t *testing.T) {
	s := newScenario(t, "5 firecrawl down")
	s.mock.Handle(mg.KindSearch, mg.Always(mg.Grounded("Go 1.26 was released in February 2026.", goSources...)))
	s.mock.Handle(mg.KindChat, agent(scrapeCall("https://docs.example.com/go-1.26"), searchCall(searchQuery)))
	srv := s.startHTTP("FIRECRAWL_API_URL=http://"+closedPort(t), "FIRECRAWL_API_KEY=fc-e2e-unused")

	out := s.sdk(sdkRequest{Transport: "http", URL: srv.url, Arguments: map[string]any{"query": question}}, nil)
	checkGroundedReport(t, "sdk", out.Result)

	// What the CLI told the agent about the failed scrape.
	var scrapeErr string
	for _, r := range s.mock.RequestsOf(mg.KindChat) {
		for _, fr := range r.FunctionResponses {
			if fr.Name == "mcp_firecrawl_firecrawl_scrape" {
				scrapeErr = string(fr.Response)
			}
		}
	}
	if !strings.Contains(scrapeErr, "ECONNREFUSED") {
		t.Errorf("the agent was not told that Firecrawl refused the connection; the scrape's result: %s", scrapeErr)
	}
	// The Gemini CLI reports the failure as a tool_result event {"status":"error","error":{"type":
	// "mcp_tool_error","message":"… ECONNREFUSED …"}} on stdout and "Error executing tool
	// mcp_firecrawl_firecrawl_scrape: …" on stderr; the server should turn that into a warning.
	if !firecrawlWarning.MatchString(srvLog(s)) {
		t.Errorf("PRODUCT: no warning about the failed Firecrawl tool in the server log (want a WARN line naming "+
			"firecrawl). The runner ignores the CLI's tool_result events and drops its stderr on success. "+
			"Server log:\n%s", srvLog(s))
	}
}

var firecrawlWarning = regexp.MustCompile(`(?im)^.*\[WARN\].*firecrawl.*$`)

// 6. API errors: a daily quota 429 gives QUOTA_ERROR; a 401 (and a 403) gives AUTH_ERROR; an empty answer gives
// EMPTY_RESPONSE. None of them is retried past general.maxAttempts (3) per model: the CLI's default of 10 would
// keep a user waiting about 4 minutes for an answer that cannot come.
func TestQuotaAndAuth(t *testing.T) {
	s := newScenario(t, "6 quota and auth")
	srv := s.startHTTP()

	for _, tt := range []struct {
		name  string
		reply mg.Reply
		code  string
		msg   string
	}{
		{"daily quota", mg.QuotaDaily(), "QUOTA_ERROR", "daily"},
		{"401", mg.Unauthenticated(), "AUTH_ERROR", "401"},
		{"403", mg.PermissionDenied(), "AUTH_ERROR", "403"},
		{"empty answer", mg.Empty(), "EMPTY_RESPONSE", "empty"},
	} {
		s.mock.Handle(mg.KindChat, mg.Always(tt.reply))
		router := tt.reply
		if tt.reply.Empty {
			router = mg.JSON(map[string]any{"complexity_reasoning": "simple", "complexity_score": 10})
		}
		s.mock.Handle(mg.KindRouter, mg.Always(router))
		seen := len(s.mock.Requests())
		began := time.Now()
		var res toolResult
		s.inspector(srv.url, &res, "--method", "tools/call", "--tool-name", "search", "--tool-arg", "query="+question)
		took := time.Since(began)
		b := res.body(t)
		if !res.IsError || b.Error.Code != tt.code || !strings.Contains(b.Error.Message, tt.msg) {
			t.Errorf("%s: got isError=%v %+v, want %s mentioning %q", tt.name, res.IsError, b.Error, tt.code, tt.msg)
		}
		attempts := map[string]int{} // chat requests of this call, by model
		for _, r := range s.mock.Requests()[seen:] {
			if r.Kind == mg.KindChat {
				attempts[r.Model]++
			}
		}
		for model, n := range attempts {
			if n > 3 {
				t.Errorf("%s: %d requests to %s, want at most general.maxAttempts (3) of the workspace settings", tt.name, n, model)
			}
		}
		s.note("%s %s in %.1fs (%v)", tt.name, b.Error.Code, took.Seconds(), attempts)
		if tt.code == "QUOTA_ERROR" {
			// With GEMINI_MODEL unset the CLI picks the model; after the quota error the server runs the CLI again
			// with GEMINI_FALLBACK_MODEL (default flash-lite, which the CLI resolves itself), which runs out of quota too.
			fallback := slices.ContainsFunc(s.mock.Requests()[seen:], func(r mg.Request) bool {
				return r.Kind == mg.KindChat && strings.Contains(r.Model, "flash-lite")
			})
			if !fallback {
				t.Errorf("%s: no request with the fallback model flash-lite after the quota error", tt.name)
			}
		}
	}
}

// 6b. A per-minute 429 is retried, but only general.maxAttempts (3) times as the workspace settings say, not
// the CLI's default 10 (about 4 minutes), then QUOTA_ERROR.
func TestPerMinuteQuota(t *testing.T) {
	s := newScenario(t, "6b per-minute quota")
	s.mock.Handle(mg.KindChat, mg.Always(mg.QuotaPerMinute("1s")))
	srv := s.startHTTP("GEMINI_MODEL=gemini-2.5-flash", "GEMINI_FALLBACK_MODEL=none")
	began := time.Now()
	out := s.sdk(sdkRequest{Transport: "http", URL: srv.url, Arguments: map[string]any{"query": question}}, nil)
	took := time.Since(began)
	if out.Result == nil {
		t.Fatalf("no result: %s", out.Error)
	}
	if b := out.Result.body(t); !out.Result.IsError || b.Error.Code != "QUOTA_ERROR" {
		t.Errorf("got %+v, want QUOTA_ERROR", b)
	}
	chats := s.mock.RequestsOf(mg.KindChat)
	if len(chats) != 3 {
		t.Errorf("the CLI made %d attempts, want 3 (general.maxAttempts of the workspace settings)", len(chats))
	}
	for _, r := range chats {
		if r.Model != "gemini-2.5-flash" {
			t.Errorf("request %d asked for %q, want GEMINI_MODEL gemini-2.5-flash", r.Seq, r.Model)
		}
	}
	s.note("%d attempts, QUOTA_ERROR in %.1fs", len(chats), took.Seconds())
}

// 7. The API hangs: CLI_TIMEOUT at the configured timeout, and no process of the run is left.
func TestTimeout(t *testing.T) {
	s := newScenario(t, "7 timeout")
	const timeout = 8 * time.Second
	s.withFirecrawl("") // so that the CLI also starts firecrawl-mcp (npx → node), which must go too
	s.mock.Handle(mg.KindChat, mg.Always(mg.Hang()))
	srv := s.startHTTP(fmt.Sprintf("GEMINI_SEARCH_TIMEOUT=%d", timeout.Milliseconds()), "FIRECRAWL_API_URL="+s.firecrawlURL)
	serverPID := srv.cmd.Process.Pid

	began := time.Now()
	client := s.startSDK(sdkRequest{Transport: "http", URL: srv.url, Arguments: map[string]any{"query": question}}, nil)
	if !waitFor(hangLimit, func() bool { return len(s.mock.RequestsOf(mg.KindChat)) > 0 }) {
		t.Fatal("the CLI never reached the mock")
	}
	during := s.others(serverPID)
	if !slices.ContainsFunc(during, isCLI) || !anyCmd(during, "firecrawl-mcp") {
		t.Errorf("while the API hangs, want the CLI and firecrawl-mcp running; the run's processes:\n%s", list(during))
	}
	out := client.wait(t, timeout+hangLimit)
	took := time.Since(began)
	if out.Result == nil {
		t.Fatalf("no result: %s", out.Error)
	}
	b := out.Result.body(t)
	if !out.Result.IsError || b.Error.Code != "CLI_TIMEOUT" {
		t.Errorf("got %+v, want CLI_TIMEOUT", b)
	}
	if said := b.Error.Message + " " + b.Error.Details; took < timeout || !strings.Contains(said, timeout.String()) ||
		!strings.Contains(said, "GEMINI_SEARCH_TIMEOUT") {
		t.Errorf("CLI_TIMEOUT after %v saying %q, want it after the configured %v, naming it and GEMINI_SEARCH_TIMEOUT",
			took.Round(time.Millisecond), said, timeout)
	}
	s.note("CLI_TIMEOUT after %.1fs", took.Seconds())
	var left []proc
	waitFor(hangLimit, func() bool { left = s.others(serverPID); return len(left) == 0 })
	if len(left) > 0 {
		t.Errorf("processes of the run outlived the timeout:\n%s", list(left))
	}
}

// 8. The client cancels mid-search, over HTTP and over stdio: the CLI's process group goes.
func TestCancel(t *testing.T) {
	s := newScenario(t, "8 client cancels")
	s.withFirecrawl("") // so that the CLI's group also holds firecrawl-mcp (npx → sh → node)
	s.mock.Handle(mg.KindChat, mg.Always(mg.Hang()))
	extra := []string{"GEMINI_SEARCH_TIMEOUT=120000", "FIRECRAWL_API_URL=" + s.firecrawlURL}

	srv := s.startHTTP(extra...)
	http := sdkRequest{Transport: "http", URL: srv.url, Arguments: map[string]any{"query": question}, CancelOnStdin: true}
	s.cancelMidSearch(http, nil, srv.cmd.Process.Pid)

	stdio := sdkRequest{Transport: "stdio", Command: serverBin, Arguments: map[string]any{"query": question}, CancelOnStdin: true}
	s.cancelMidSearch(stdio, s.env(append(extra, "GEMINI_SEARCH_CONFIG_DIR="+filepath.Join(s.root, "config-stdio"))...), srv.cmd.Process.Pid)
}

// cancelMidSearch starts a search that hangs in the API, cancels it from the client once the CLI runs, and
// checks that the CLI's process group goes, while the client's session is still open.
func (s *scenario) cancelMidSearch(req sdkRequest, env []string, keep ...int) {
	t := s.t
	t.Helper()
	chats := len(s.mock.RequestsOf(mg.KindChat))
	client := s.startSDK(req, env)
	keep = append(keep, client.cmd.Process.Pid)
	if !waitFor(hangLimit, func() bool { return len(s.mock.RequestsOf(mg.KindChat)) > chats }) {
		t.Fatalf("%s: the CLI never reached the mock", req.Transport)
	}
	var cli *proc
	during := s.others(keep...)
	for i, p := range during {
		if isCLI(p) {
			cli = &during[i]
		}
	}
	if cli == nil || !anyCmd(during, "firecrawl-mcp") {
		t.Fatalf("%s: want the CLI and firecrawl-mcp running; the run's processes:\n%s", req.Transport, list(during))
	}
	group := groupMembers(cli.pgid)

	began := time.Now()
	if _, err := client.stdin.Write([]byte("cancel\n")); err != nil {
		t.Fatal(err)
	}
	gone := waitFor(hangLimit, func() bool { return len(groupMembers(cli.pgid)) == 0 })
	took := time.Since(began)
	if !gone {
		t.Errorf("%s: the CLI's process group %d still has members %v after the client cancelled:\n%s\n(it had:\n%s)",
			req.Transport, cli.pgid, hangLimit, list(groupMembers(cli.pgid)), list(group))
	} else {
		s.note("%s: group of %d gone in %.2fs", req.Transport, len(group), took.Seconds())
	}
	client.stdin.Close() // only now does the client end its session
	out := client.wait(t, hangLimit)
	if !out.Cancelled {
		t.Errorf("%s: the client's call was not cancelled: %+v", req.Transport, out)
	}
	if left := s.others(keep...); req.Transport == "http" && len(left) > 0 {
		t.Errorf("%s: processes of the run outlived the cancel:\n%s", req.Transport, list(left))
	}
}

// isCLI reports whether p is the Gemini CLI itself (not our server, whose name also holds "gemini").
func isCLI(p proc) bool {
	return strings.Contains(p.cmdline, "node_modules/.bin/gemini ") || strings.Contains(p.cmdline, "@google/gemini-cli")
}

// groupMembers lists the live processes of a process group, whatever their environment.
func groupMembers(pgid int) []proc {
	entries, _ := os.ReadDir("/proc")
	var out []proc
	for _, e := range entries {
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(stat), ')')
		if i < 0 || i+2 >= len(stat) {
			continue
		}
		fields := strings.Fields(string(stat[i+2:]))
		if len(fields) < 3 || fields[0] == "Z" || fields[0] == "X" || fields[2] != fmt.Sprint(pgid) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		var pid int
		fmt.Sscan(e.Name(), &pid)
		out = append(out, proc{pid: pid, pgid: pgid, cmdline: strings.ReplaceAll(string(cmdline), "\x00", " ")})
	}
	return out
}

func anyCmd(ps []proc, substr string) bool {
	return slices.ContainsFunc(ps, func(p proc) bool { return strings.Contains(p.cmdline, substr) })
}

func list(ps []proc) string {
	if len(ps) == 0 {
		return "  (none)"
	}
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "  %s\n", p)
	}
	return strings.TrimRight(b.String(), "\n")
}

// srvLog returns everything the scenario's servers logged.
func srvLog(s *scenario) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for _, l := range s.logs {
		if l.name == "server" {
			b.WriteString(l.String())
		}
	}
	return b.String()
}

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
	return heldDeepScript(s, 0, verifyDelay)
}

// heldDeepScript is deepScript with every answer of the model held for hold more.
func heldDeepScript(s *scenario, hold, verifyDelay time.Duration) *draft {
	d := &draft{}
	s.mock.Handle(mg.KindSearch, mg.ByPrompt(mg.Always(mg.Grounded("Go 1.26 was released in February 2026 with new language features.", goSources...)),
		mg.Route{Contains: verifyQuery, Respond: mg.Always(mg.Grounded("Go 1.26 was released on 2026-02-10.", verifySources...))}))
	s.mock.Handle(mg.KindChat, mg.ByPrompt(unexpected,
		mg.Route{Contains: verifyPrompt, Respond: held(hold, verifier(verifyDelay))},
		mg.Route{Contains: researchPrompt, Respond: d.recording(held(hold, agent(searchCall(searchQuery))))},
	))
	return d
}

// held answers as respond does, each answer held for hold more.
func held(hold time.Duration, respond mg.Responder) mg.Responder {
	return func(r *mg.Request) mg.Reply {
		rep := respond(r)
		rep.Delay += hold
		return rep
	}
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

// 12. GEMINI_BACKEND=api: the SDK client's search and 3-round deep_search are answered by the Gemini API, with
// [n] markers after the cited sentences, a Sources section, citations and claim counts; the CLI never runs.
func TestAPIBackend(t *testing.T) {
	s := newScenario(t, "12 api backend")
	apiScript(s, unexpected)
	srv := s.startHTTP("GEMINI_BACKEND=api", "DEEP_SEARCH_MAX_ROUNDS=3")

	out := s.sdk(sdkRequest{Transport: "http", URL: srv.url, Progress: true, Arguments: map[string]any{"query": question}}, nil)
	checkAPIReport(t, "search", out.Result, apiRounds[0], "")
	if messages, _ := progressOf(t, out); !slices.Contains(messages, "searching: "+searchQuery) {
		t.Errorf("search: the progress %q lacks %q (the grounding's early search queries)", messages, "searching: "+searchQuery)
	}
	checkAPIRequests(t, s, 0, 1)

	seen := len(s.mock.Requests())
	out = s.sdk(sdkRequest{Transport: "http", URL: srv.url, Tool: "deep_search", Progress: true,
		Arguments: map[string]any{"topic": question, "depth": "concise"}}, nil)
	checkDeepAPI(t, s, out, seen, "")
	checkAPIRequests(t, s, seen, 3)
	if slices.ContainsFunc(s.mock.Requests(), fromCLI) {
		t.Error("a request of the Gemini CLI reached the mock with GEMINI_BACKEND=api")
	}
	s.note("search + 3-round deep_search, %d API requests, 0 CLI", len(s.mock.RequestsOf(mg.KindSearch)))
}

// switchLog is what the server logs when auto leaves the CLI for the API.
const switchLog = "using the Gemini API instead of the Gemini CLI"

// 13. GEMINI_BACKEND=auto with a signed-in CLI whose account is refused (403, no valid licence): the first search
// fails on the CLI and is answered by the API in the same call, with the reason; the next call, a deep_search,
// goes straight to the API; the switch is logged once.
func TestAutoCLIRefused(t *testing.T) {
	s := newScenario(t, "13 auto: cli refused")
	apiScript(s, mg.Always(refusedLicence))
	srv := s.startHTTP("GEMINI_BACKEND=auto", "DEEP_SEARCH_MAX_ROUNDS=3")

	began := time.Now()
	out := s.sdk(sdkRequest{Transport: "http", URL: srv.url, Progress: true, Arguments: map[string]any{"query": question}}, nil)
	took := time.Since(began)
	const reason = "refused"
	b := checkAPIReport(t, "search", out.Result, apiRounds[0], reason)
	if !strings.Contains(b.Metadata.BackendReason, "403") {
		t.Errorf("search: backend_reason %q does not say the CLI got a 403", b.Metadata.BackendReason)
	}
	cli := slices.DeleteFunc(s.mock.Requests(), func(r mg.Request) bool { return !fromCLI(r) })
	if !slices.ContainsFunc(cli, func(r mg.Request) bool { return r.Kind == mg.KindChat }) {
		t.Fatalf("the CLI never asked the mock: auto did not try the signed-in CLI first")
	}
	checkAPIRequests(t, s, cli[len(cli)-1].Seq, 1)

	seen := len(s.mock.Requests())
	out = s.sdk(sdkRequest{Transport: "http", URL: srv.url, Tool: "deep_search", Progress: true,
		Arguments: map[string]any{"topic": question, "depth": "concise"}}, nil)
	checkDeepAPI(t, s, out, seen, reason)
	checkAPIRequests(t, s, seen, 3) // and none of the CLI

	if n := strings.Count(srvLog(s), switchLog); n != 1 {
		t.Errorf("the server logged the switch %d times, want once:\n%s", n, srvLog(s))
	}
	s.note("CLI 403 → API in one call of %.1fs (%d CLI requests), then deep_search: 3 API requests, 0 CLI", took.Seconds(), len(cli))
}

// 14. GEMINI_BACKEND=auto with an API key but a CLI that has no sign-in of its own (a HOME without Gemini
// settings), over stdio: the API from the first call on, with the reason, and the CLI never runs.
func TestAutoNoCLILogin(t *testing.T) {
	s := newScenario(t, "14 auto: no cli login")
	apiScript(s, unexpected)
	bare := filepath.Join(s.root, "home-without-login")
	if err := os.MkdirAll(bare, 0o700); err != nil {
		t.Fatal(err)
	}
	c := s.startSDK(sdkRequest{Transport: "stdio", Command: serverBin, Progress: true, Arguments: map[string]any{"query": question}},
		s.env("GEMINI_BACKEND=auto", "HOME="+bare))
	out := c.wait(t, 5*time.Minute)
	b := checkAPIReport(t, "search", out.Result, apiRounds[0], "not signed in")
	s.note("stdio, API from the first call: %s", b.Metadata.BackendReason)
	checkAPIRequests(t, s, 0, 1)
	// Chosen at start, not switched to: the start-up line says which backend serves and why, and no switch is logged.
	const chosen = `research backend backend="Gemini API (auto: the Gemini CLI is not signed in)"`
	if n, m := strings.Count(c.stderr.String(), chosen), strings.Count(c.stderr.String(), switchLog); n != 1 || m != 0 {
		t.Errorf("the server logged the choice %d times (want once) and a switch %d times (want never):\n%s", n, m, c.stderr)
	}
}

// warmWorkers is what the server at mcpURL says on /healthz of its warm CLIs.
func warmWorkers(t testing.TB, mcpURL string) int {
	t.Helper()
	res, err := http.Get(strings.TrimSuffix(mcpURL, "/mcp") + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var h struct {
		Warm int `json:"warm_workers"`
	}
	if err := json.NewDecoder(res.Body).Decode(&h); err != nil {
		t.Fatal(err)
	}
	return h.Warm
}

// 16. The tools beyond search through the real CLI: ask with a working folder (the CLI inlines the file the prompt
// names with @path), a raw search, and the HTTP API's streamed chat read by Node's fetch, whose answer arrives in
// pieces before the stream ends.
func TestAskRawAndStreamedChat(t *testing.T) {
	s := newScenario(t, "16 ask, raw, streamed chat")
	const note = "The release train leaves on Thursdays."
	answer := mg.Text("The notes say the train leaves on Thursdays, and Go 1.26 shipped in February 2026.")
	answer.Chunks, answer.ChunkDelay = 4, 300*time.Millisecond
	s.mock.Handle(mg.KindSearch, mg.Always(mg.Grounded("Go 1.26 was released in February 2026.", goSources...)))
	s.mock.Handle(mg.KindChat, func(r *mg.Request) mg.Reply {
		if strings.Contains(r.Prompt, "autonomous research agent") {
			return agent(searchCall(searchQuery))(r)
		}
		return answer
	})
	work := filepath.Join(s.root, "work")
	if err := os.MkdirAll(work, 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(work, "notes.md"), note+"\n")
	srv := s.startHTTP("GEMINI_WORKSPACE_ROOTS=" + work) // over HTTP, ask's workingDirectory must lie under a root

	out := s.sdk(sdkRequest{Transport: "http", URL: srv.url, Tool: "ask",
		Arguments: map[string]any{"prompt": "What do @notes.md say?", "workingDirectory": work}}, nil)
	if b := out.Result.body(t); out.Result.IsError || !b.Success || b.ParseWarning || b.Report != answer.Text {
		t.Errorf("ask: %+v", b)
	}
	chats := s.mock.RequestsOf(mg.KindChat)
	if len(chats) != 1 || !strings.Contains(chats[0].Prompt, note) || !strings.Contains(chats[0].Prompt, "<request>") {
		t.Errorf("the model did not get the ask prompt with the file's contents:\n%s", chats[0].Prompt)
	}

	out = s.sdk(sdkRequest{Transport: "http", URL: srv.url, Arguments: map[string]any{"query": question, "raw": true, "limit": 2}}, nil)
	var raw struct {
		Success bool   `json:"success"`
		Summary string `json:"summary"`
		Sources []struct {
			URL string `json:"url"`
		} `json:"sources"`
	}
	if err := json.Unmarshal([]byte(out.Result.Content[0].Text), &raw); err != nil || !raw.Success ||
		!strings.Contains(raw.Summary, "Go 1.26") || len(raw.Sources) != 2 || raw.Sources[0].URL != goSources[0].URI {
		t.Errorf("raw search: %+v, %v", raw, err)
	}

	// The streamed chat, as a web app reads it: each event with the number of reads it took to get there.
	script := `const res = await fetch(process.argv[1], {method: "POST", headers: {"Accept": "text/event-stream"},
  body: JSON.stringify({prompt: "When did Go 1.26 ship?"})});
const reader = res.body.getReader(), dec = new TextDecoder();
let buf = "", reads = 0;
for (;;) {
  const {done, value} = await reader.read();
  if (done) break;
  reads++;
  buf += dec.decode(value, {stream: true});
  let i;
  while ((i = buf.indexOf("\n\n")) >= 0) {
    const line = buf.slice(0, i); buf = buf.slice(i + 2);
    if (line.startsWith("data: ")) console.log(JSON.stringify({read: reads, event: JSON.parse(line.slice(6))}));
  }
}`
	cmd := exec.Command("node", "--input-type=module", "-e", script, strings.TrimSuffix(srv.url, "/mcp")+"/api/gemini-chat")
	cmd.Env = append(os.Environ(), "NODE_NO_WARNINGS=1")
	printed, err := cmd.Output()
	if err != nil {
		t.Fatalf("node fetch: %v\n%s", err, printed)
	}
	var events []struct {
		Read  int            `json:"read"`
		Event map[string]any `json:"event"`
	}
	var text strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(printed)), "\n") {
		var e struct {
			Read  int            `json:"read"`
			Event map[string]any `json:"event"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("node printed %q: %v", line, err)
		}
		if content, ok := e.Event["content"].(string); ok {
			text.WriteString(content)
		}
		events = append(events, e)
	}
	last := events[len(events)-1]
	if len(events) < 3 || last.Event["type"] != "close" || text.String() != answer.Text || events[0].Read >= last.Read {
		t.Errorf("the chat did not stream its answer before the end: %+v", events)
	}
	s.note("ask read @notes.md; raw: %d sources; chat streamed in %d events over %d reads", len(raw.Sources), len(events)-1, last.Read)
}

// 20. Over HTTP, what a client writes cannot make the CLI read a file outside the folders the run was given: no
// @path of a prompt brings into any model request the CLI's own folder (the config dir, with the .env file), a file
// elsewhere named by an absolute path or by "..", a folder of the workingDirectory holding links into the config
// dir, nor the transcripts of earlier runs the CLI keeps in its temp folder; a file of the workingDirectory does
// get in. A workingDirectory that is the config dir, a link to it, a hidden folder or a folder outside
// GEMINI_WORKSPACE_ROOTS is refused before any CLI starts.
func TestAtPathsStayInTheirFolders(t *testing.T) {
	s := newScenario(t, "20 @paths stay in their folders")
	const (
		dotenvMarker  = "dotenv-marker-4812"
		configMarker  = "config-file-marker-2291"
		outsideMarker = "outside-marker-7730"
		projectMarker = "project-marker-5164"
	)
	roots := filepath.Join(s.root, "projects")
	project := filepath.Join(roots, "app")
	for _, d := range []string{s.config, project, filepath.Join(s.home, ".ssh")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(s.config, ".env"), "E2E_MARKER="+dotenvMarker+"\n")
	writeFile(t, filepath.Join(s.config, "notes.txt"), configMarker+"\n")
	writeFile(t, filepath.Join(s.root, "outside.txt"), outsideMarker+"\n")
	writeFile(t, filepath.Join(project, "readme.txt"), projectMarker+"\n")
	if err := os.Symlink(s.config, filepath.Join(roots, "settings")); err != nil {
		t.Fatal(err)
	}
	// A folder of the project holding links into the config dir: the CLI, given @docs, would read through them.
	if err := os.MkdirAll(filepath.Join(project, "docs"), 0o700); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"settings": s.config, "notes.txt": filepath.Join(s.config, "notes.txt")} {
		if err := os.Symlink(target, filepath.Join(project, "docs", link)); err != nil {
			t.Fatal(err)
		}
	}
	s.mock.Handle(mg.KindChat, func(r *mg.Request) mg.Reply {
		if strings.Contains(r.Prompt, "autonomous research agent") {
			return agent()(r)
		}
		return mg.Text("Done.")
	})
	srv := s.startHTTP("GEMINI_WORKSPACE_ROOTS=" + roots)
	call := func(tool string, args map[string]any) searchBody {
		t.Helper()
		out := s.sdk(sdkRequest{Transport: "http", URL: srv.url, Tool: tool, Arguments: args}, nil)
		if out.Result == nil {
			t.Fatalf("%s: no result: %s", tool, out.Error)
		}
		return out.Result.body(t)
	}

	for _, dir := range []string{s.config, filepath.Join(roots, "settings"), filepath.Join(s.home, ".ssh"), s.root} {
		if b := call("ask", map[string]any{"prompt": "Summarize @.env", "workingDirectory": dir}); b.Success ||
			b.Error.Code != "INVALID_ARGUMENT" || !strings.Contains(b.Error.Message, "workingDirectory") {
			t.Errorf("workingDirectory %s: got %+v, want INVALID_ARGUMENT", dir, b.Error)
		}
	}
	if n := len(s.mock.Requests()); n != 0 {
		t.Fatalf("%d model requests for refused calls: a CLI ran", n)
	}

	refs := "@.env, @notes.txt, @docs, @../outside.txt, @" + filepath.Join(s.root, "outside.txt") + " and @/etc/passwd"
	if b := call("ask", map[string]any{"prompt": "Explain @readme.txt, then " + refs, "workingDirectory": project}); !b.Success {
		t.Fatalf("ask: %+v", b.Error)
	}
	chats := s.mock.RequestsOf(mg.KindChat)
	if len(chats) != 1 || !strings.Contains(chats[0].Prompt, projectMarker) {
		t.Fatalf("the model did not get the workingDirectory's file:\n%s", chats[0].Prompt)
	}
	if b := call("search", map[string]any{"query": "What do " + refs + " say?"}); !b.Success {
		t.Errorf("search: %+v", b.Error)
	}

	// The CLI keeps each run's transcript, the file it read included, in its temp folder, which its @ handling
	// may read; a later run, without that project, must not get it back.
	transcripts, _ := filepath.Glob(filepath.Join(s.home, ".gemini", "tmp", "*", "chats"))
	if len(transcripts) != 1 {
		t.Fatalf("the CLI's transcripts are not where this scenario looks (%v): find them again", transcripts)
	}
	if !containsInFiles(t, transcripts[0], projectMarker) {
		t.Fatalf("no transcript in %s holds the project's file: this part checks nothing", transcripts[0])
	}
	before := len(s.mock.Requests())
	if b := call("search", map[string]any{"query": "What do @" + transcripts[0] + " and @" + filepath.Dir(transcripts[0]) + " say?"}); !b.Success {
		t.Errorf("search: %+v", b.Error)
	}
	later, _ := json.Marshal(s.mock.Requests()[before:])
	if strings.Contains(string(later), projectMarker) {
		t.Errorf("a later run got an earlier run's transcript back")
	}

	all, _ := json.Marshal(s.mock.Requests())
	for _, secret := range []string{dotenvMarker, configMarker, outsideMarker, "root:x:0:0"} {
		if strings.Contains(string(all), secret) {
			t.Errorf("%q reached the model", secret)
		}
	}
	s.note("%d model requests", len(s.mock.Requests()))
}

// containsInFiles reports whether a file in dir holds s.
func containsInFiles(t *testing.T, dir, s string) bool {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if data, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil && strings.Contains(string(data), s) {
			return true
		}
	}
	return false
}

// 21. The user's own MCP servers stay out of the research: servers of ~/.gemini/settings.json (one of them named
// firecrawl) and one of an extension, all broken, never start, with Firecrawl configured or not. Without DEBUG the
// CLI would only say "MCP issues detected" for them, which the server would take for Firecrawl down: every search
// warned of, none cached. Firecrawl, configured, starts in place of the user's and is offered; each report is
// whole, warns of nothing, and is cached.
func TestUserMCPServersStayOut(t *testing.T) {
	s := newScenario(t, "21 user MCP servers stay out")
	groundedScript(s)
	s.withFirecrawl("")
	started := filepath.Join(s.root, "started.txt") // each broken server writes its name here when it starts
	broken := filepath.Join(s.root, "broken-mcp")
	writeFile(t, broken, "#!/bin/sh\necho \"$1\" >> '"+started+"'\nexit 1\n")
	if err := os.Chmod(broken, 0o700); err != nil {
		t.Fatal(err)
	}
	server := func(name string) map[string]any {
		return map[string]any{"command": broken, "args": []string{name}, "timeout": 15000}
	}
	user, _ := json.Marshal(map[string]any{
		"security":   map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"privacy":    map[string]any{"usageStatisticsEnabled": false},
		"mcpServers": map[string]any{"mine": server("user"), "firecrawl": server("user-firecrawl")},
	})
	writeFile(t, filepath.Join(s.home, ".gemini", "settings.json"), string(user))
	ext := filepath.Join(s.home, ".gemini", "extensions", "mine")
	if err := os.MkdirAll(ext, 0o700); err != nil {
		t.Fatal(err)
	}
	manifest, _ := json.Marshal(map[string]any{"name": "mine", "version": "1.0.0",
		"mcpServers": map[string]any{"mine-ext": server("extension")}})
	writeFile(t, filepath.Join(ext, "gemini-extension.json"), string(manifest))

	for _, tt := range []struct {
		name  string
		env   []string
		tools []string
	}{
		{"with Firecrawl", append(s.otherInstall("firecrawl"), "FIRECRAWL_API_URL="+s.firecrawlURL), firecrawlTools},
		{"without Firecrawl", nil, plainTools},
	} {
		seen := len(s.mock.Requests())
		srv := s.startHTTP(append(tt.env, "DEBUG=false", "GEMINI_CACHE_TTL=900000")...)
		for i := range 2 {
			out := s.sdk(sdkRequest{Transport: "http", URL: srv.url, Arguments: map[string]any{"query": question}}, nil)
			checkGroundedReport(t, tt.name, out.Result)
			h := honestyOf(t, tt.name, out.Result)
			if h.Metadata.Firecrawl != "" || h.Metadata.Cached != (i == 1) {
				t.Errorf("%s, call %d: metadata.firecrawl %q, cached %v; want no warning, and the second call cached",
					tt.name, i+1, h.Metadata.Firecrawl, h.Metadata.Cached)
			}
		}
		chats := 0
		for _, r := range s.mock.Requests()[seen:] {
			if r.Kind == mg.KindChat {
				chats++
				if !slices.Equal(sorted(r.Tools), sorted(tt.tools)) {
					t.Errorf("%s: request %d offered %q, want exactly %q", tt.name, r.Seq, sorted(r.Tools), sorted(tt.tools))
				}
			}
		}
		if chats == 0 {
			t.Errorf("%s: the CLI never asked the model", tt.name)
		}
	}
	if data, err := os.ReadFile(started); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the user's own MCP servers started: %q (%v)", data, err)
	}
	if log := srvLog(s); strings.Contains(log, "Firecrawl did not start") {
		t.Errorf("the server blamed Firecrawl:\n%s", log)
	}
}
