package gemini_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

// The fault table's deadlines, each run's time limit (the runner's Timeout stands for the call's deadline).
const (
	// faultShort ends the hangs. It leaves the fake time to reach its hang (and stream what comes before it) on a
	// machine at load 20.
	faultShort = testkit.FirstWordsLimit
	// faultLong is the deadline of the rows that end on their own: only a hang reaches it. A run that waited for
	// the pipes a grandchild holds would, and would be reported CLI_TIMEOUT.
	faultLong = testkit.WaitLimit
	// faultSlack bounds how long past its deadline a run may take to end, its processes gone: a hang, not slowness.
	faultSlack = testkit.WaitLimit
)

// serverGrace leaves Config.KillGrace unset: the runner's default, which the server uses.
const serverGrace = -1

// faultKey is the Gemini API key every run of the fault table has; the crashing scenarios print it.
var faultKey = "AIza" + strings.Repeat("F", 35)

// TestFaultTable is the fault table of issue 13 ("runs for weeks") at the runner: each way the Gemini CLI can
// fail, played by the fake CLI, ends with its code (never later than a hang would), with a sensible message that
// holds no secret, and leaves no process of the run behind, grandchildren included.
//
// The server-level row, SIGKILL of the server and then a restart, is TestLeftoversOfAKilledServerEnd in
// cmd/gemini-search-mcp: the killed server's CLI dies with it, and the restart ends the grandchild it left.
//
// Rows that older tests cover too: crash mid-stream (TestRunScenarios/crash), the 20 MiB line
// (TestRunHugeMemory/huge-line), hang mid-stream with a grandchild (TestRunTimeoutKillsGroup), exit codes 41, 55,
// 145, 173 and an empty response (TestRunScenarios); the classification of every code is TestClassify's.
func TestFaultTable(t *testing.T) {
	t.Parallel()
	type fault struct {
		name     string
		scenario string
		env      []string
		limit    time.Duration // faultLong when 0
		grace    time.Duration // Config.KillGrace; testGrace when 0, the runner's own with serverGrace
		code     backend.Code  // "" for success
		exitCode int           // the CLI's; -1 when it was killed or timed out
		message  string        // the error's message
		detail   string        // in the error's detail
		partial  string        // the text the run returned; for a success, the answer
		children int           // grandchildren the fake records
		check    func(t *testing.T, res backend.Result)
	}
	timedOut := "Research exceeded the timeout of " + faultShort.String() + "."
	faults := []fault{
		{name: "crash before any output", scenario: geminitest.ScenarioCrashEarly, code: backend.CodeCLI, exitCode: 1,
			message: "Gemini CLI exited with code 1.", detail: "TypeError: Cannot read properties of undefined"},
		{name: "crash mid-stream", scenario: geminitest.ScenarioCrash, code: backend.CodeCLI, exitCode: 1,
			message: "Gemini CLI exited with code 1.", detail: "TypeError: Cannot read properties of undefined",
			partial: "Partial text before the crash."},
		{name: "killed mid-stream", scenario: geminitest.ScenarioKilled, code: backend.CodeCLI, exitCode: -1,
			message: "The Gemini CLI was stopped (signal: killed).", partial: "Partial text before the kill."},
		{name: "20 MiB line", scenario: geminitest.ScenarioHugeLine, code: backend.CodeCLI, exitCode: 0,
			message: "The Gemini CLI's answer exceeded the output limit of 16777216 bytes."},
		{name: "50 MiB stderr flood", scenario: geminitest.ScenarioStderrFlood, partial: geminitest.DefaultAnswer},
		{name: "garbage among the events", scenario: geminitest.ScenarioGarbage, partial: geminitest.DefaultAnswer,
			check: func(t *testing.T, res backend.Result) {
				if len(res.Queries) != 2 || !strings.HasPrefix(res.Queries[0], "caf\uFFFD ") || res.Queries[1] != geminitest.FakeQuery {
					t.Errorf("got queries %q, want the garbled one with U+FFFD for its bad bytes, then %q", res.Queries, geminitest.FakeQuery)
				}
			}},
		{name: "binary output only", scenario: geminitest.ScenarioBinary,
			check: func(t *testing.T, res backend.Result) {
				if res.Streamed || !strings.Contains(res.Text, "invalid UTF-8") {
					t.Errorf("got %+v, want the bytes as a plain answer", res)
				}
			}},
		{name: "hang at start", scenario: geminitest.ScenarioHangStart, limit: faultShort, code: backend.CodeTimeout,
			exitCode: -1, message: timedOut},
		{name: "hang mid-stream", scenario: geminitest.ScenarioHang, limit: faultShort, code: backend.CodeTimeout,
			exitCode: -1, message: timedOut, partial: "Partial answer before the hang.", children: 1},
		{name: "hang mid-stream, the server's kill grace", scenario: geminitest.ScenarioHang, limit: faultShort,
			grace: serverGrace, code: backend.CodeTimeout, exitCode: -1, message: timedOut,
			partial: "Partial answer before the hang.", children: 1},
		// A success, not CLI_TIMEOUT: the run did not wait for the pipes the grandchild holds.
		{name: "grandchild holds the pipes after the CLI exits", scenario: geminitest.ScenarioOrphan,
			partial: geminitest.DefaultAnswer, children: 1},
		{name: "grandchild in a session of its own holds the pipes", scenario: geminitest.ScenarioOrphanDetached,
			partial: geminitest.DefaultAnswer, children: 1},
	}
	const otherRows = 12

	// Each documented exit code, played with the CLI's own words on the way to it.
	type exit struct {
		code                     backend.Code
		message, detail, partial string
	}
	exits := map[int]exit{
		0:   {backend.CodeCLI, "The Gemini CLI stopped before finishing its answer.", "", "Partial text before SIGTERM."},
		1:   {backend.CodeCLI, "Gemini CLI exited with code 1.", "Cannot use both a positional prompt", ""},
		41:  {backend.CodeAuth, "The Gemini CLI is not signed in (no valid auth method).", "Invalid auth method selected.", ""},
		42:  {backend.CodeCLI, "Gemini CLI exited with code 42.", "No input provided via stdin.", ""},
		44:  {backend.CodeCLI, "Gemini CLI exited with code 44.", "Sandbox image", ""},
		52:  {backend.CodeCLI, "Gemini CLI exited with code 52.", "Error in .gemini/settings.json", ""},
		53:  {backend.CodeCLI, "Gemini CLI exited with code 53.", "Reached max session turns", ""},
		54:  {backend.CodeCLI, "Gemini CLI exited with code 54.", "no space left on device", ""},
		55:  {backend.CodeUntrusted, "The Gemini CLI refused to run because the config folder is not a trusted workspace.", "not running in a trusted directory", ""},
		130: {backend.CodeCLI, "Gemini CLI exited with code 130.", "Operation cancelled.", ""},
		145: {backend.CodeAuth, "The Gemini API rejected the credentials (401 UNAUTHENTICATED).", "API key not valid", ""},
		147: {backend.CodeAuth, "The Gemini API denied access with these credentials (403 PERMISSION_DENIED).", "Permission denied", ""},
		148: {backend.CodeCLI, "The Gemini API does not know this model (404).", "models/gemini-9 is not found", ""},
		173: {backend.CodeQuota, backend.MessageDailyQuota, "exhausted your daily quota", ""},
		244: {backend.CodeCLI, "The Gemini API failed with a server error (HTTP 500) after the CLI's retries.", "Internal error encountered.", ""},
		246: {backend.CodeCLI, "The Gemini API failed with a server error (HTTP 502) after the CLI's retries.", "Bad Gateway", ""},
		247: {backend.CodeCLI, "The Gemini API failed with a server error (HTTP 503) after the CLI's retries.", "The model is overloaded.", ""},
	}
	for _, code := range geminitest.ExitCodes {
		want, ok := exits[code]
		if !ok {
			t.Fatalf("no row for exit code %d of geminitest.ExitCodes", code)
		}
		faults = append(faults, fault{name: fmt.Sprintf("exit %d", code), scenario: geminitest.ScenarioExit,
			env: []string{geminitest.EnvExit + "=" + strconv.Itoa(code)}, code: want.code, exitCode: code,
			message: want.message, detail: want.detail, partial: want.partial})
	}
	if len(faults) != otherRows+len(exits) {
		t.Fatalf("got %d rows, want %d and one per exit code", len(faults), otherRows+len(exits))
	}

	for _, tt := range faults {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			limit := cmp.Or(tt.limit, faultLong)
			fake := geminitest.NewLocal(t, tt.scenario)
			r := newRunner(t, fake, func(c *gemini.Config) {
				c.Timeout = limit
				if tt.grace != serverGrace {
					c.KillGrace = cmp.Or(tt.grace, testGrace)
				}
				c.ExtraEnv = append(c.ExtraEnv, tt.env...)
				c.ExtraEnv = append(c.ExtraEnv, "GEMINI_API_KEY="+faultKey)
			})
			start := time.Now()
			res, err := run(t, r, backend.Request{})
			ran := time.Since(start)
			defer func() { // after the checks of what the run returned, so that a failure shows them all
				testkit.WaitFor(t, "no process of the run left", func() bool { return len(fake.LivePIDs()) == 0 })
				if ended := time.Since(start); ended > limit+faultSlack {
					t.Errorf("the run returned after %s and its processes were gone after %s, want both within %s",
						ran.Round(time.Millisecond), ended.Round(time.Millisecond), limit+faultSlack)
				}
			}()

			calls := fake.Calls()
			if len(calls) != 1 || len(calls[0].ChildPIDs) != tt.children {
				t.Fatalf("got calls %+v, want one with %d grandchildren", calls, tt.children)
			}
			if (tt.partial != "" || tt.code != "") && res.Text != tt.partial {
				t.Errorf("got text %q, want %q", res.Text, tt.partial)
			}
			if !utf8.ValidString(res.Text) {
				t.Errorf("got text %q, want valid UTF-8", res.Text)
			}
			for _, q := range res.Queries {
				if !utf8.ValidString(q) {
					t.Errorf("got query %q, want valid UTF-8", q)
				}
			}
			if tt.check != nil {
				tt.check(t, res)
			}
			if tt.code == "" {
				if err != nil {
					t.Fatalf("got %v, want success", err)
				}
				return
			}
			var e *backend.Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want a *backend.Error", err)
			}
			if e.Code != tt.code || e.ExitCode != tt.exitCode || e.Message != tt.message {
				t.Errorf("got %s exit %d %q (detail %q), want %s exit %d %q",
					e.Code, e.ExitCode, e.Message, e.Detail, tt.code, tt.exitCode, tt.message)
			}
			if e.Hint == "" || !strings.Contains(e.Detail, tt.detail) || len(e.Detail) > 2048+len("…") {
				t.Errorf("got hint %q detail %q, want a hint and at most 2 KB of detail holding %q", e.Hint, e.Detail, tt.detail)
			}
			if e.Partial.Text != res.Text {
				t.Errorf("got partial %q, want the returned text %q", e.Partial.Text, res.Text)
			}
			if tt.code == backend.CodeTimeout && !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("got %v, want it to wrap context.DeadlineExceeded", err)
			}
			for what, s := range map[string]string{"message": e.Message, "hint": e.Hint, "detail": e.Detail, "error": err.Error()} {
				if strings.Contains(s, faultKey) {
					t.Errorf("the %s holds the API key: %s", what, s)
				}
			}
		})
	}
}
