//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/fakefirecrawl"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/mockgemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

// envRunID is set on every server process with a value unique to the scenario; every process the server
// starts inherits it (the Gemini CLI passes it on to its MCP servers too: the name looks like no secret), so
// /proc/<pid>/environ tells which processes belong to a scenario.
const envRunID = "E2E_RUN_ID"

// scenario is one end-to-end scenario: its own folder, HOME, config dir, mock Gemini API and, when asked
// for, fake Firecrawl API. A benchmark uses one too (t is then its *testing.B): it gets no result line of its own.
type scenario struct {
	t      testing.TB
	name   string
	start  time.Time
	root   string // holds node_modules (a link to the cache's), home/, config/, tmp/, clients/
	home   string
	config string // GEMINI_SEARCH_CONFIG_DIR
	tmp    string
	runID  string

	mock    *mockgemini.Server
	mockURL string

	firecrawl    *fakefirecrawl.Server // nil unless withFirecrawl was called
	firecrawlURL string

	mu    sync.Mutex
	logs  []*syncBuffer // server and client stderr, saved when the scenario fails
	notes []string      // measurements shown on the scenario's line
}

// note adds a measurement to the scenario's result line.
func (s *scenario) note(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notes = append(s.notes, fmt.Sprintf(format, args...))
}

// newScenario prepares a scenario and registers its report: one line with its result and time, and on
// failure the mock's request log and the programs' output under .cache/e2e/logs/.
func newScenario(t testing.TB, name string) *scenario {
	t.Helper()
	root, err := os.MkdirTemp("", "gsm-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	id := make([]byte, 6)
	_, _ = rand.Read(id)
	s := &scenario{
		t: t, name: name, start: time.Now(), root: root,
		home: filepath.Join(root, "home"), config: filepath.Join(root, "config"), tmp: filepath.Join(root, "tmp"),
		runID: slug(name) + "-" + hex.EncodeToString(id),
		mock:  mockgemini.New(),
	}
	t.Cleanup(s.report) // registered first, so it runs last
	t.Cleanup(func() { os.RemoveAll(root) })

	for _, dir := range []string{filepath.Join(s.home, ".gemini"), s.tmp, filepath.Join(root, "clients")} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// The user settings of the private HOME: API-key auth (against the mock, through GOOGLE_GEMINI_BASE_URL)
	// and no usage statistics, so that the CLI talks to nothing but the mock.
	writeFile(t, filepath.Join(s.home, ".gemini", "settings.json"),
		`{"security":{"auth":{"selectedType":"gemini-api-key"}},"privacy":{"usageStatisticsEnabled":false}}`)
	// The workspace settings start firecrawl-mcp with `npx -y firecrawl-mcp` in the config dir. npx runs a
	// package's bin from node_modules/.bin of the nearest folder above its working directory that has a
	// node_modules folder (npm's local prefix), before it would download anything; a firecrawl-mcp found
	// only on PATH does not count (checked: with npm_config_offline=true that fails with ENOTCACHED). So the
	// scenario folder, the config dir's parent, links node_modules to the cache.
	if err := os.Symlink(filepath.Join(cacheDir, "node_modules"), filepath.Join(root, "node_modules")); err != nil {
		t.Fatal(err)
	}

	srv := httptest.NewServer(s.mock)
	t.Cleanup(func() {
		s.mock.Close() // releases hanging requests, which srv.Close would wait for
		srv.Close()
	})
	s.mockURL = srv.URL
	return s
}

// withFirecrawl starts a fake Firecrawl API that requires key.
func (s *scenario) withFirecrawl(key string) {
	s.firecrawl = fakefirecrawl.New(key)
	srv := httptest.NewServer(s.firecrawl)
	s.t.Cleanup(srv.Close)
	s.firecrawlURL = srv.URL
}

func (s *scenario) report() {
	took := time.Since(s.start).Seconds()
	status := "PASS"
	switch {
	case s.t.Failed():
		status = "FAIL"
	case s.t.Skipped():
		status = "SKIP"
	}
	if _, isTest := s.t.(*testing.T); !isTest { // a benchmark prints its own table; only its failures are saved
		if status == "FAIL" {
			s.saveLogs()
		}
		return
	}
	summary.Lock()
	switch status {
	case "PASS":
		summary.passed++
	case "FAIL":
		summary.failed++
	default:
		summary.skipped++
	}
	summary.Unlock()
	s.mu.Lock()
	notes := strings.Join(s.notes, ", ")
	s.mu.Unlock()
	if notes != "" {
		notes = "  (" + notes + ")"
	}
	fmt.Printf("%-4s  %-24s %5.1fs%s\n", status, s.name, took, notes)
	if status == "FAIL" {
		s.saveLogs()
	}
}

// saveLogs writes the mock's request log and the programs' output under .cache/e2e/logs/.
func (s *scenario) saveLogs() {
	base := filepath.Join(logDir(), slug(s.name))
	if err := s.mock.SaveLog(base + ".json"); err != nil {
		fmt.Printf("      cannot save the mock's request log: %v\n", err)
		return
	}
	if s.firecrawl != nil {
		data, _ := json.MarshalIndent(s.firecrawl.Requests(), "", "  ")
		_ = os.WriteFile(base+".firecrawl.json", data, 0o644)
	}
	var out bytes.Buffer
	s.mu.Lock()
	for _, l := range s.logs {
		fmt.Fprintf(&out, "==== %s\n%s\n", l.name, l.String())
	}
	s.mu.Unlock()
	_ = os.WriteFile(base+".log", out.Bytes(), 0o644)
	fmt.Printf("      logs: %s.json (mock Gemini API requests), %s.log (server and client output)\n", base, base)
}

// env is the environment of a server under test. It starts from nothing but PATH, so that the developer's
// own Gemini or Firecrawl settings cannot leak in; extra entries come last and win. The backend is the Gemini CLI
// (GEMINI_BACKEND=cli): under auto, a CLI failure the scenario provokes on purpose (a refused key, a daily quota)
// would switch the server to the Gemini API. The API scenarios set GEMINI_BACKEND themselves.
func (s *scenario) env(extra ...string) []string {
	env := []string{
		"GEMINI_BACKEND=cli",
		// No CLI started ahead of its prompt: the scenarios count the CLI's runs and processes. Warm CLIs (the
		// --acp worker) are the subject of scenarios 15b-15e (acp_test.go).
		"GEMINI_WARM_WORKERS=0",
		// `gemini` resolves to the pinned CLI: the server finds it on PATH, as with a global npm install.
		"PATH=" + filepath.Join(cacheDir, "node_modules", ".bin") + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + s.home,
		"TMPDIR=" + s.tmp,
		"LANG=C.UTF-8",
		"GEMINI_SEARCH_CONFIG_DIR=" + s.config,
		"GEMINI_API_KEY=e2e-not-a-real-key",
		"GOOGLE_GEMINI_BASE_URL=" + s.mockURL,
		"npm_config_offline=true", // npx must use the cache's firecrawl-mcp and never download one
		"npm_config_update_notifier=false",
		"PROGRESS_LOG_INTERVAL=60000",
		"DEBUG=true",
		envRunID + "=" + s.runID,
	}
	if v := os.Getenv("NODE_EXTRA_CA_CERTS"); v != "" {
		env = append(env, "NODE_EXTRA_CA_CERTS="+v)
	}
	return append(env, extra...)
}

// otherInstall is the environment of a server installed apart from the scenario's own: its config dir, and its
// data dir, where the research library keeps its reports and, with them, the result cache (the servers of one data
// dir share them: an answer one of them cached would spare the other its research).
func (s *scenario) otherInstall(name string) []string {
	return []string{"GEMINI_SEARCH_CONFIG_DIR=" + filepath.Join(s.root, "config-"+name),
		"XDG_DATA_HOME=" + filepath.Join(s.root, "data-"+name)}
}

// newLog returns a buffer for a program's output, saved with the scenario's logs.
func (s *scenario) newLog(name string) *syncBuffer {
	b := &syncBuffer{name: name}
	s.mu.Lock()
	s.logs = append(s.logs, b)
	s.mu.Unlock()
	return b
}

// server is a gemini-search-mcp started with --http.
type server struct {
	cmd    *exec.Cmd
	url    string // http://127.0.0.1:PORT/mcp
	stderr *syncBuffer
}

var announce = regexp.MustCompile(`url=(http://\S+/mcp)`)

// startHTTP starts the server with --http on a free port; it is stopped with SIGTERM when the test ends.
func (s *scenario) startHTTP(extraEnv ...string) *server {
	s.t.Helper()
	cmd := exec.Command(serverBin, "--http", "--port", "0")
	cmd.Env = s.env(extraEnv...)
	cmd.Dir = s.root
	srv := &server{cmd: cmd, stderr: s.newLog("server")}
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			srv.stderr.Write([]byte(sc.Text() + "\n"))
			if m := announce.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case urls <- m[1]:
				default:
				}
			}
		}
	}()
	s.t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(hangLimit):
			_ = cmd.Process.Kill()
			<-done
			s.t.Errorf("the server was still running %v after SIGTERM", hangLimit)
		}
		pw.Close()
	})
	select {
	case srv.url = <-urls:
		return srv
	case <-time.After(hangLimit):
		s.t.Fatalf("the server did not announce its URL within %v:\n%s", hangLimit, srv.stderr)
		return nil
	}
}

// toolResult is a tools/call result as the clients print it.
type toolResult struct {
	IsError           bool           `json:"isError"`
	Content           []textContent  `json:"content"`
	StructuredContent *searchBody    `json:"structuredContent"`
	Meta              map[string]any `json:"_meta"`
}

type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// searchBody is the result of the search and deep_search tools.
type searchBody struct {
	Success      bool   `json:"success"`
	Report       string `json:"report"`
	ParseWarning bool   `json:"parse_warning"`
	Partial      bool   `json:"partial"`
	Metadata     struct {
		Model             string   `json:"model"`
		Backend           string   `json:"backend"`
		BackendReason     string   `json:"backend_reason"`
		Depth             string   `json:"depth"`
		SourcesVisited    []string `json:"sources_visited"`
		SearchQueriesUsed []string `json:"search_queries_used"`
		Rounds            int      `json:"rounds"`
		ClaimsVerified    int      `json:"claims_verified"`
		ClaimsCorrected   int      `json:"claims_corrected"`
		JSONCorrections   int      `json:"json_corrections"`
		Cached            bool     `json:"cached"`

		// The Gemini API backend's grounding: numbered sources, cited segments, claim counts.
		Sources []struct {
			URL   string `json:"url"`
			Title string `json:"title"`
		} `json:"sources"`
		Citations []struct {
			Text    string `json:"text"`
			Sources []int  `json:"sources"`
		} `json:"citations"`
		ClaimsSupported   *int `json:"claims_supported"`
		ClaimsUnsupported *int `json:"claims_unsupported"`

		// deep_search's engine google: the agent's plan.
		Plan string `json:"plan"`
	} `json:"metadata"`
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Details string `json:"details"`
	} `json:"error"`
}

// body decodes the result's JSON text, which every client sees, and checks it agrees with structuredContent.
func (r toolResult) body(t *testing.T) searchBody {
	t.Helper()
	if len(r.Content) == 0 || r.Content[0].Type != "text" {
		t.Fatalf("result has no text content: %+v", r)
	}
	var b searchBody
	if err := json.Unmarshal([]byte(r.Content[0].Text), &b); err != nil {
		t.Fatalf("result text is not the JSON body: %v\n%s", err, r.Content[0].Text)
	}
	if r.StructuredContent == nil || r.StructuredContent.Success != b.Success || r.StructuredContent.Report != b.Report {
		t.Errorf("structuredContent %+v does not match the text content", r.StructuredContent)
	}
	return b
}

// sdkRequest is what e2e/clients/sdk-client.mjs is asked to do.
type sdkRequest struct {
	Transport     string         `json:"transport"` // http or stdio
	URL           string         `json:"url,omitempty"`
	Command       string         `json:"command,omitempty"`
	Args          []string       `json:"args,omitempty"` // the stdio command's arguments
	Tool          string         `json:"tool,omitempty"`
	Arguments     map[string]any `json:"arguments"`
	CancelOnStdin bool           `json:"cancelOnStdin,omitempty"`
	Progress      bool           `json:"progress,omitempty"` // send a progressToken, record notifications/progress
	Task          bool           `json:"task,omitempty"`     // call the tool as an MCP task
	// DefaultTimeout leaves the SDK's own request timeout (60 s) in force; UntilDone calls research_result while
	// the answer is status running.
	DefaultTimeout bool `json:"defaultTimeout,omitempty"`
	UntilDone      bool `json:"untilDone,omitempty"`
	// Elicit declares MCP elicitation and answers each request so: accept (with ElicitContent, else
	// {"approve": true}), decline or cancel.
	Elicit        string         `json:"elicit,omitempty"`
	ElicitContent map[string]any `json:"elicitContent,omitempty"`
}

// sdkOutput is what it prints.
type sdkOutput struct {
	Server struct {
		Name string `json:"name"`
	} `json:"server"`
	Tools     []string         `json:"tools"`
	Result    *toolResult      `json:"result"`
	Cancelled bool             `json:"cancelled"`
	Error     string           `json:"error"`
	Progress  []progressNotice `json:"progress"`
	Task      *taskRecord      `json:"task"`
	Answers   []answer         `json:"answers"` // with UntilDone
	// With Elicit: the elicitation requests the server made.
	Elicitations []struct {
		Message         string         `json:"message"`
		RequestedSchema map[string]any `json:"requestedSchema"`
	} `json:"elicitations"`
}

// answer is one answer of a research call, then of each research_result call: its status (running, or done for
// the tool's own result) and the time since the first call.
type answer struct {
	Status string `json:"status"`
	AtMS   int64  `json:"atMs"`
}

// progressNotice is one notifications/progress the client received.
type progressNotice struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total"`
	Message  string  `json:"message"`
}

// taskRecord is what the client saw of an MCP task: the task tools/call created, then the status of every
// tasks/get, with the time since the call.
type taskRecord struct {
	Created *struct {
		TaskID       string `json:"taskId"`
		Status       string `json:"status"`
		PollInterval int    `json:"pollInterval"`
	} `json:"created"`
	CreatedAtMS int64 `json:"createdAtMs"`
	Statuses    []struct {
		Status        string `json:"status"`
		StatusMessage string `json:"statusMessage"`
		AtMS          int64  `json:"atMs"`
	} `json:"statuses"`
	ResultAtMS int64 `json:"resultAtMs"`
}

// sdkClient is a running sdk-client.mjs.
type sdkClient struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout bytes.Buffer
	stderr *syncBuffer
}

// startSDK starts the SDK client script with env (nil: just PATH and HOME).
func (s *scenario) startSDK(req sdkRequest, env []string) *sdkClient {
	s.t.Helper()
	script := filepath.Join(s.root, "clients", "sdk-client.mjs")
	if _, err := os.Stat(script); err != nil {
		// A copy next to the scenario's node_modules link: Node resolves an ES module's imports from the
		// script's own folder upwards (NODE_PATH does not apply to them).
		data, err := os.ReadFile(filepath.Join("clients", "sdk-client.mjs"))
		if err != nil {
			s.t.Fatal(err)
		}
		writeFile(s.t, script, string(data))
	}
	arg, _ := json.Marshal(req)
	c := &sdkClient{stderr: s.newLog("sdk client (" + req.Transport + ")")}
	c.cmd = exec.Command("node", script, string(arg))
	c.cmd.Dir = s.root
	if env == nil {
		env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + s.home}
	}
	c.cmd.Env = env
	c.cmd.Stdout, c.cmd.Stderr = &c.stdout, c.stderr
	var err error
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		s.t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() {
		_ = c.cmd.Process.Kill()
		_ = c.cmd.Wait()
	})
	return c
}

// wait waits for the client to print its output and exit.
func (c *sdkClient) wait(t testing.TB, limit time.Duration) sdkOutput {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("sdk client: %v\n%s", err, c.stderr)
		}
	case <-time.After(limit):
		_ = c.cmd.Process.Kill()
		t.Fatalf("sdk client still running after %v\n%s", limit, c.stderr)
	}
	var out sdkOutput
	if err := json.Unmarshal(c.stdout.Bytes(), &out); err != nil {
		t.Fatalf("sdk client output %q: %v\n%s", c.stdout.String(), err, c.stderr)
	}
	return out
}

// sdk runs the SDK client to the end.
func (s *scenario) sdk(req sdkRequest, env []string) sdkOutput {
	s.t.Helper()
	return s.startSDK(req, env).wait(s.t, 5*time.Minute)
}

// inspector runs the MCP Inspector CLI against an HTTP server and decodes the JSON it prints.
func (s *scenario) inspector(url string, v any, args ...string) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	args = append([]string{filepath.Join(cacheDir, "node_modules", ".bin", "mcp-inspector"), "--cli", url, "--transport", "http"}, args...)
	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Dir = cacheDir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + s.home}
	stderr := s.newLog("inspector " + strings.Join(args[4:], " "))
	cmd.Stderr = stderr
	out, err := cmd.Output()
	stderr.Write([]byte("stdout:\n" + string(out)))
	if err != nil {
		s.t.Fatalf("inspector %q: %v\n%s", args[4:], err, stderr)
	}
	if err := json.Unmarshal(out, v); err != nil {
		s.t.Fatalf("inspector %q printed %q: %v", args[4:], out, err)
	}
}

// proc is a process that belongs to a scenario.
type proc struct {
	pid, pgid int
	cmdline   string
}

func (p proc) String() string { return fmt.Sprintf("pid %d (group %d): %s", p.pid, p.pgid, p.cmdline) }

// procs lists the live processes whose environment carries the scenario's run ID. Zombies count as gone:
// in a container, a reparented grandchild may never be reaped.
func (s *scenario) procs() []proc {
	entries, _ := os.ReadDir("/proc")
	var out []proc
	want := []byte(envRunID + "=" + s.runID + "\x00")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err != nil || !bytes.Contains(append([]byte{0}, environ...), append([]byte{0}, want...)) {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		i := bytes.LastIndexByte(stat, ')')
		if err != nil || i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z' || stat[i+2] == 'X' {
			continue
		}
		fields := strings.Fields(string(stat[i+2:])) // state ppid pgrp ...
		pgid, _ := strconv.Atoi(fields[2])
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		out = append(out, proc{pid: pid, pgid: pgid, cmdline: strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " "))})
	}
	return out
}

// others returns the scenario's processes other than the given pids.
func (s *scenario) others(pids ...int) []proc {
	var out []proc
	for _, p := range s.procs() {
		if !slices.Contains(pids, p.pid) {
			out = append(out, p)
		}
	}
	return out
}

// hangLimit bounds a wait for something that should happen in seconds: reaching it means a hang, not a slow
// machine (a loaded 2-core machine must never reach it). How long things take is the benchmarks' to measure.
const hangLimit = testkit.WaitLimit

// waitFor polls cond every 50ms until it holds or limit passes, and reports whether it held.
func waitFor(limit time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(limit)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func writeFile(t testing.TB, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

type syncBuffer struct {
	name string
	mu   sync.Mutex
	b    bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
