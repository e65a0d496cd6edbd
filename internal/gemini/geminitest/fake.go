// Package geminitest provides a fake Gemini CLI for tests: the test binary
// itself, re-executed, behaving as one of a set of named scenarios.
//
// Wire it up once per test package:
//
//	func TestMain(m *testing.M) {
//		geminitest.Main() // acts as the fake CLI when FAKE_GEMINI_SCENARIO is set
//		os.Exit(m.Run())
//	}
//
// then, in a test:
//
//	fake := geminitest.New(t, geminitest.ScenarioOK)
//	runner := gemini.NewRunner(gemini.Config{Command: fake.Command()})
//	res, err := runner.Run(ctx, backend.Request{Prompt: "..."})
//	calls := fake.Calls() // argv, stdin, cwd, environment, pids of each invocation
//
// A test that runs a built binary can point it at the fake with
// GEMINI_CLI_PATH=fake.Path: the environment New sets is inherited.
//
// The fake reads all of stdin first, like the real CLI, and answers in the
// CLI's stream-json format (see shared/notes/gemini-cli.md). `--version`
// prints Version in every scenario. Further knobs, all optional:
// FAKE_GEMINI_ANSWER (EnvAnswer) replaces the answer text; FAKE_GEMINI_MODEL
// (EnvModel) is the model the init event reports (else the -m value, else
// "gemini-2.5-flash"); FAKE_GEMINI_DELAY (EnvDelay) is the slow scenario's
// pause as a Go duration (default 2s); FAKE_GEMINI_EXIT (EnvExit) is the
// exit code ScenarioExit fails with.
package geminitest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
)

// Environment variables that control the fake.
const (
	EnvScenario  = "FAKE_GEMINI_SCENARIO"   // which scenario to play; unset: the binary runs its tests
	EnvRecordDir = "FAKE_GEMINI_RECORD_DIR" // where each invocation records itself; optional
	EnvAnswer    = "FAKE_GEMINI_ANSWER"     // the answer text instead of DefaultAnswer
	EnvModel     = "FAKE_GEMINI_MODEL"      // the model the init event reports
	EnvDelay     = "FAKE_GEMINI_DELAY"      // the slow scenario's pause, a Go duration
	EnvScript    = "FAKE_GEMINI_SCRIPT"     // ScenarioScript's steps, see Step
	EnvExit      = "FAKE_GEMINI_EXIT"       // ScenarioExit's exit code
)

// Step is one run of ScenarioScript: the scenario to play and, optionally, its answer text.
type Step struct {
	Scenario string `json:"scenario"`
	Answer   string `json:"answer,omitempty"`
}

// ScriptEnv is the variable that sets the steps ScenarioScript plays, for a parallel test to pass to the child
// (NewLocal).
func ScriptEnv(t testing.TB, steps ...Step) string {
	t.Helper()
	b, err := json.Marshal(steps)
	if err != nil {
		t.Fatal(err)
	}
	return EnvScript + "=" + string(b)
}

// Script sets the steps ScenarioScript plays, one per prompt run in order; the last step repeats.
func Script(t testing.TB, steps ...Step) {
	t.Helper()
	b, err := json.Marshal(steps)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvScript, string(b))
}

// Scenarios.
const (
	// ScenarioScript plays a different step per prompt run, as set with Script: the first run plays the first
	// step, and so on; runs past the end play the last step.
	ScenarioScript = "script"
	// ScenarioOK streams init, the user message, a google_web_search and a
	// web_fetch tool call with their results, the answer in several assistant
	// deltas and a successful result; exit 0.
	ScenarioOK = "ok"
	// ScenarioProse is ScenarioOK answering prose around an unfenced JSON
	// object (DefaultJSON, or EnvAnswer when set).
	ScenarioProse = "prose"
	// ScenarioInvalidThenValid answers InvalidAnswer (prose, no JSON) on the
	// first prompt recorded in its EnvRecordDir and DefaultAnswer after that.
	ScenarioInvalidThenValid = "invalid-then-valid"
	// ScenarioInvalid always answers InvalidAnswer.
	ScenarioInvalid = "invalid"
	// ScenarioHang streams init, a search and a partial answer, then starts a
	// grandchild (recorded in Call.ChildPIDs) that shares its stdout and
	// stderr; both ignore SIGTERM and sleep forever.
	ScenarioHang = "hang"
	// ScenarioQuota fails like a daily quota 429: retry line on stderr, a
	// result error event, exit 173.
	ScenarioQuota = "quota"
	// ScenarioAuth fails like a missing login: stderr message, exit 41.
	ScenarioAuth = "auth"
	// ScenarioAuth401 fails like a rejected API key: result error event
	// with an API Error 401, exit 145.
	ScenarioAuth401 = "auth401"
	// ScenarioUntrusted fails like an untrusted workspace: exit 55.
	ScenarioUntrusted = "untrusted"
	// ScenarioEmpty fails like an empty model response: error event and
	// result status "error", yet exit 0.
	ScenarioEmpty = "empty"
	// ScenarioCrash streams part of an answer, then prints the CLI's usual
	// stderr noise and a stack trace (leaking GEMINI_API_KEY,
	// FIRECRAWL_API_KEY and FIRECRAWL_API_URL when set), exit 1.
	ScenarioCrash = "crash"
	// ScenarioHuge streams 20 MiB of assistant text in 64 KiB deltas.
	ScenarioHuge = "huge"
	// ScenarioHugeLine streams 20 MiB of assistant text in a single line.
	ScenarioHugeLine = "huge-line"
	// ScenarioPlain prints the answer as plain text, no JSON lines; exit 0.
	ScenarioPlain = "plain"
	// ScenarioSlow is ScenarioOK pausing EnvDelay (default 2s) after init.
	ScenarioSlow = "slow"

	// Faults, for the fault table (issue 13).

	// ScenarioCrashEarly crashes before any output: the CLI's stderr noise and a stack trace (leaking
	// GEMINI_API_KEY like ScenarioCrash), nothing on stdout, exit 1.
	ScenarioCrashEarly = "crash-early"
	// ScenarioKilled streams init, a search and a partial answer, then dies of SIGKILL (as from the OOM killer).
	ScenarioKilled = "killed"
	// ScenarioStderrFlood writes StderrFloodSize bytes of log lines to stderr, then plays ScenarioOK: it
	// blocks for good unless its stderr is read while it runs.
	ScenarioStderrFlood = "stderr-flood"
	// ScenarioGarbage is ScenarioOK with garbage after init: NUL bytes, invalid UTF-8, every byte value,
	// cut-off and mistyped events, and a search query holding invalid UTF-8.
	ScenarioGarbage = "garbage"
	// ScenarioBinary prints only binary bytes on stdout (NULs, invalid UTF-8, every byte value), no event; exit 0.
	ScenarioBinary = "binary"
	// ScenarioHangStart hangs before any output, before it even reads its prompt (as the CLI does when an MCP
	// server never answers at startup), ignoring SIGTERM.
	ScenarioHangStart = "hang-start"
	// ScenarioOrphan starts a grandchild (recorded in Call.ChildPIDs) that shares its stdout and stderr, ignores
	// SIGTERM and sleeps forever, then plays ScenarioOK and exits 0, leaving the grandchild holding the pipes.
	ScenarioOrphan = "orphan"
	// ScenarioOrphanDetached is ScenarioOrphan with the grandchild in a session of its own, out of the CLI's
	// process group, as Node's spawn with detached: true starts it.
	ScenarioOrphanDetached = "orphan-detached"
	// ScenarioExit fails the way the CLI does on the way to exit code EnvExit (see ExitCodes); an undocumented
	// code prints one stderr line.
	ScenarioExit = "exit"

	// ScenarioNoFirecrawl is ScenarioOK whose Firecrawl MCP server did not start, as the real CLI 0.61.0 reports
	// it: at startup, before it reads its prompt, one stderr line (MCPIssuesLine), and the run goes on without
	// the server's tools, exit 0. With DEBUG=true in its environment it first gives the reason, as the real CLI
	// does (MCPErrorLine, then the error's stack). Nothing when --allowed-mcp-server-names leaves "firecrawl" out.
	ScenarioNoFirecrawl = "no-firecrawl"
	// ScenarioUserMCPDown is ScenarioOK with an MCP server of the user's own settings (UserMCPServer) that does not
	// start, written as ScenarioNoFirecrawl writes Firecrawl's: unless --allowed-mcp-server-names leaves it out, as
	// the real CLI 0.61.0 then never starts it.
	ScenarioUserMCPDown = "user-mcp-down"
)

// UserMCPServer is the name of ScenarioUserMCPDown's MCP server.
const UserMCPServer = "mine"

// What ScenarioNoFirecrawl writes on stderr, in the real CLI's words (a Firecrawl that did not answer within its
// timeout).
const (
	MCPIssuesLine = "MCP issues detected. Run /mcp list for status."
	MCPErrorLine  = "[MCP error] Error during discovery for MCP server 'firecrawl': MCP error -32001: Request timed out " +
		"_McpError: MCP error -32001: Request timed out"
)

// ExitCodes lists the real CLI's documented exit codes (shared/notes/gemini-cli.md) that ScenarioExit plays
// with the CLI's own words: its fatal errors, and the API errors of stream-json (the HTTP status & 0xFF). 0 is
// the CLI stopped by SIGTERM under no-relaunch: part of an answer, no result event, exit 0.
var ExitCodes = []int{0, 1, 41, 42, 44, 52, 53, 54, 55, 130, 145, 147, 148, 173, 244, 246, 247}

// StderrFloodSize is how much ScenarioStderrFlood writes to stderr.
const StderrFloodSize = 50 << 20

// Scenarios lists every scenario name.
var Scenarios = []string{
	ScenarioOK, ScenarioProse, ScenarioInvalidThenValid, ScenarioInvalid, ScenarioHang,
	ScenarioQuota, ScenarioAuth, ScenarioAuth401, ScenarioUntrusted, ScenarioEmpty,
	ScenarioCrash, ScenarioHuge, ScenarioHugeLine, ScenarioPlain, ScenarioSlow, ScenarioScript,
	ScenarioCrashEarly, ScenarioKilled, ScenarioStderrFlood, ScenarioGarbage, ScenarioBinary, ScenarioHangStart,
	ScenarioOrphan, ScenarioOrphanDetached, ScenarioExit, ScenarioNoFirecrawl, ScenarioUserMCPDown, ScenarioPermission,
	ScenarioRateLimited, ScenarioIgnoreCancel, ScenarioDeaf,
}

// Version is what `--version` prints.
const Version = "0.61.0"

// DefaultModel is the model the init event reports without EnvModel or -m.
const DefaultModel = "gemini-2.5-flash"

// DefaultJSON is the research result the fake answers with by default.
const DefaultJSON = `{
  "success": true,
  "report": "# Fake report\n\nThe fake Gemini CLI answered this prompt from one source.\n\n- https://example.com/a",
  "metadata": {
    "sources_visited": ["https://example.com/a"],
    "search_queries_used": ["fake query"],
    "iterations": 1
  }
}`

// DefaultAnswer is DefaultJSON in a fenced json block, as the model is asked to answer.
const DefaultAnswer = "```json\n" + DefaultJSON + "\n```"

// InvalidAnswer is prose without any JSON.
const InvalidAnswer = "I looked into this and the short answer is that it depends. " +
	"There is no structured result to give, only this paragraph of prose."

// The search and fetch the streaming scenarios report.
const (
	FakeQuery = "fake query"
	FakeURL   = "https://example.com/a"
)

// Call is one invocation of the fake CLI.
type Call struct {
	Args      []string          // argv after the executable
	Stdin     string            // all of stdin ("" for --version)
	Refs      map[string]string // the files the prompt's @ references name by an absolute path, read as the run found them
	Dir       string            // working directory
	Env       map[string]string // only GEMINI_*, FIRECRAWL_*, TMPDIR, HTTP_STREAMABLE_SERVER, PORT, SSE_LOCAL, CLOUD_SERVICE
	PID       int
	ChildPIDs []int // processes the fake started (the grandchild of ScenarioHang and the orphan scenarios)
}

// Fake is a fake CLI set up for one test.
type Fake struct {
	Path      string // the executable: the test binary
	RecordDir string // one JSON file per invocation

	t        testing.TB
	scenario string
}

// Main plays the fake CLI and exits when EnvScenario is set; otherwise it
// returns at once. Call it first thing in TestMain.
func Main() {
	scenario := os.Getenv(EnvScenario)
	if scenario == "" {
		return
	}
	// Not os.Exit: a test binary built with -race would sleep a second at
	// exit (GORACE atexit_sleep_ms) on every fake invocation.
	syscall.Exit(runCLI(scenario))
}

// New sets up the fake for scenario and sets EnvScenario and EnvRecordDir
// in the test's environment (t.Setenv), so every child the code under test
// starts inherits them; the test therefore cannot be parallel (see
// NewLocal). When the test ends, it fails if any process the fake recorded
// (the fake CLI or its grandchildren) is still running 3 s later, and kills
// those.
func New(t testing.TB, scenario string) *Fake {
	t.Helper()
	f := NewLocal(t, scenario)
	for _, kv := range f.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	return f
}

// NewLocal is New without touching the process environment, for parallel
// tests: pass f.Env() to the child, e.g. in gemini.Config.ExtraEnv.
func NewLocal(t testing.TB, scenario string) *Fake {
	t.Helper()
	if !slices.Contains(Scenarios, scenario) {
		t.Fatalf("geminitest: unknown scenario %q (have %s)", scenario, strings.Join(Scenarios, ", "))
	}
	path, err := os.Executable()
	if err != nil {
		t.Fatalf("geminitest: find test binary: %v", err)
	}
	f := &Fake{Path: path, RecordDir: t.TempDir(), t: t, scenario: scenario}
	t.Cleanup(f.checkNoSurvivors)
	return f
}

// Env returns the variables that select this fake: EnvScenario and EnvRecordDir.
func (f *Fake) Env() []string {
	return []string{EnvScenario + "=" + f.scenario, EnvRecordDir + "=" + f.RecordDir}
}

// Command returns how to start the fake.
func (f *Fake) Command() gemini.Command { return gemini.Command{Path: f.Path} }

// Calls returns the recorded invocations, in order.
func (f *Fake) Calls() []Call {
	f.t.Helper()
	names, err := filepath.Glob(filepath.Join(f.RecordDir, "call-*.json"))
	if err != nil {
		f.t.Errorf("geminitest: list calls: %v", err)
		return nil
	}
	slices.SortFunc(names, func(a, b string) int { return callNumber(a) - callNumber(b) })
	calls := make([]Call, 0, len(names))
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			f.t.Errorf("geminitest: read call: %v", err)
			continue
		}
		var c Call
		if err := json.Unmarshal(data, &c); err != nil {
			f.t.Errorf("geminitest: decode %s: %v", name, err)
			continue
		}
		calls = append(calls, c)
	}
	return calls
}

// Started returns the pids of the fake CLIs started for a prompt, in the order they started, those that never
// got one (a warm process ended before its prompt) included.
func (f *Fake) Started() []int {
	f.t.Helper()
	names, err := filepath.Glob(filepath.Join(f.RecordDir, "start-*"))
	if err != nil {
		f.t.Errorf("geminitest: list starts: %v", err)
		return nil
	}
	type start struct{ pid, at int }
	starts := make([]start, 0, len(names))
	for _, name := range names {
		pid, _ := strconv.Atoi(strings.TrimPrefix(filepath.Base(name), "start-"))
		data, err := os.ReadFile(name)
		at, _ := strconv.Atoi(string(data))
		if err != nil || pid == 0 || at == 0 {
			continue // being written
		}
		starts = append(starts, start{pid, at})
	}
	slices.SortFunc(starts, func(a, b start) int { return a.at - b.at })
	pids := make([]int, len(starts))
	for i, s := range starts {
		pids[i] = s.pid
	}
	return pids
}

// LiveRunPIDs returns the processes that got a prompt, and their children, that are still running: LivePIDs
// without the warm processes still waiting for one.
func (f *Fake) LiveRunPIDs() []int {
	var live []int
	for _, c := range f.Calls() {
		for _, pid := range append([]int{c.PID}, c.ChildPIDs...) {
			if alive(pid, f.RecordDir) {
				live = append(live, pid)
			}
		}
	}
	return live
}

// LivePIDs returns the recorded processes that are still running (zombies
// count as gone; on Linux a pid now used by another program does too).
func (f *Fake) LivePIDs() []int {
	pids := f.Started()
	for _, c := range f.Calls() {
		pids = append(pids, c.PID)
		pids = append(pids, c.ChildPIDs...)
	}
	slices.Sort(pids)
	var live []int
	for _, pid := range slices.Compact(pids) {
		if alive(pid, f.RecordDir) {
			live = append(live, pid)
		}
	}
	return live
}

// survivorWait is how long recorded processes may outlive the test.
const survivorWait = 3 * time.Second

func (f *Fake) checkNoSurvivors() {
	deadline := time.Now().Add(survivorWait)
	for {
		live := f.LivePIDs()
		if len(live) == 0 {
			return
		}
		if time.Now().After(deadline) {
			f.t.Errorf("geminitest: fake CLI processes still running %s after the test: %v", survivorWait, live)
			for _, pid := range live {
				kill(pid)
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func startFile(dir string, pid int) string {
	return filepath.Join(dir, fmt.Sprintf("start-%d", pid))
}

func callFile(dir string, n int) string {
	return filepath.Join(dir, fmt.Sprintf("call-%04d.json", n))
}

// callNumber returns n from a path made by callFile.
func callNumber(path string) int {
	n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), "call-"), ".json"))
	return n
}
