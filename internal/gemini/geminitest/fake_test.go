package geminitest

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

func TestMain(m *testing.M) {
	Main()
	os.Exit(m.Run())
}

// start runs the fake directly, without the runner.
func start(t *testing.T, f *Fake, stdin string, env []string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(f.Path, args...)
	cmd.Env = slices.Concat(os.Environ(), f.Env(), env)
	cmd.Stdin = strings.NewReader(stdin)
	return cmd
}

func TestDefaultJSON(t *testing.T) {
	t.Parallel()
	var got struct {
		Success  bool   `json:"success"`
		Report   string `json:"report"`
		Metadata struct {
			SourcesVisited    []string `json:"sources_visited"`
			SearchQueriesUsed []string `json:"search_queries_used"`
			Iterations        int      `json:"iterations"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(DefaultJSON), &got); err != nil {
		t.Fatal(err)
	}
	if !got.Success || !strings.HasPrefix(got.Report, "# Fake report\n") || got.Metadata.Iterations != 1 ||
		!slices.Equal(got.Metadata.SourcesVisited, []string{FakeURL}) || !slices.Equal(got.Metadata.SearchQueriesUsed, []string{FakeQuery}) {
		t.Errorf("got %+v, want the documented default result", got)
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	f := NewLocal(t, ScenarioQuota)
	out, err := start(t, f, "", nil, "--version").Output()
	if err != nil || string(out) != Version+"\n" {
		t.Fatalf("got %q, %v, want %q", out, err, Version+"\n")
	}
	calls := f.Calls()
	if len(calls) != 1 || !slices.Equal(calls[0].Args, []string{"--version"}) || calls[0].PID <= 0 || calls[0].Stdin != "" {
		t.Errorf("got calls %+v, want one --version call with a pid", calls)
	}
}

func TestRecordsCall(t *testing.T) {
	t.Parallel()
	f := NewLocal(t, ScenarioOK)
	dir := t.TempDir()
	cmd := start(t, f, "the prompt\n", []string{"GEMINI_API_KEY=k", "FIRECRAWL_API_URL=u", "PORT=1", "TMPDIR=/t", "UNRELATED=x"}, "-o", "stream-json", "-m", "m1")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(out), "\n")
	var init struct{ Type, Model string }
	if err := json.Unmarshal([]byte(first), &init); err != nil || init.Type != "init" || init.Model != "m1" {
		t.Errorf("got first line %q, want an init event with the -m model", first)
	}
	calls := f.Calls()
	if len(calls) != 1 {
		t.Fatalf("got %d calls, want 1", len(calls))
	}
	c := calls[0]
	if c.Stdin != "the prompt\n" || !slices.Equal(c.Args, []string{"-o", "stream-json", "-m", "m1"}) || c.Dir == "" {
		t.Errorf("got %+v, want the prompt, args and cwd", c)
	}
	want := map[string]string{"GEMINI_API_KEY": "k", "FIRECRAWL_API_URL": "u", "PORT": "1", "TMPDIR": "/t"}
	for k, v := range want {
		if c.Env[k] != v {
			t.Errorf("got %s=%q, want %q", k, c.Env[k], v)
		}
	}
	if _, ok := c.Env["UNRELATED"]; ok {
		t.Errorf("got UNRELATED recorded, want only the documented variables")
	}
}

func TestConcurrentCallsNumbered(t *testing.T) {
	t.Parallel()
	f := NewLocal(t, ScenarioOK)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if err := start(t, f, "", nil, "--version").Run(); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	calls := f.Calls()
	pids := make(map[int]bool)
	for _, c := range calls {
		pids[c.PID] = true
	}
	if len(calls) != 8 || len(pids) != 8 {
		t.Errorf("got %d calls from %d pids, want 8 distinct calls", len(calls), len(pids))
	}
}

func TestHangRecordsGrandchild(t *testing.T) {
	t.Parallel()
	f := NewLocal(t, ScenarioHang)
	cmd := start(t, f, "prompt", nil)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	for lines.Scan() && !strings.Contains(lines.Text(), "Partial answer") {
	}
	calls := f.Calls()
	if len(calls) != 1 || len(calls[0].ChildPIDs) != 1 {
		t.Fatalf("got calls %+v, want one with a grandchild", calls)
	}
	if live := f.LivePIDs(); len(live) != 2 {
		t.Errorf("got live pids %v, want the fake and its grandchild", live)
	}
	for _, pid := range append([]int{calls[0].PID}, calls[0].ChildPIDs...) {
		kill(pid)
	}
	_ = cmd.Wait()
	// One look decides: a pid seen gone may be another program's by a second look.
	deadline := time.Now().Add(testkit.WaitLimit)
	live := f.LivePIDs()
	for len(live) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		live = f.LivePIDs()
	}
	if len(live) != 0 {
		t.Errorf("got live pids %v after killing them, want none", live)
	}
}

func TestNewSetsEnvironment(t *testing.T) {
	f := New(t, ScenarioPlain)
	if got := os.Getenv(EnvScenario); got != ScenarioPlain {
		t.Errorf("got %s=%q, want %q", EnvScenario, got, ScenarioPlain)
	}
	if got := os.Getenv(EnvRecordDir); got != f.RecordDir {
		t.Errorf("got %s=%q, want %q", EnvRecordDir, got, f.RecordDir)
	}
	out, err := exec.Command(f.Path).Output() // inherits the environment; stdin is empty
	if err != nil || strings.TrimSpace(string(out)) != DefaultAnswer {
		t.Errorf("got %q, %v, want the default answer as plain text", out, err)
	}
}

func TestSplit(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "a", "ab", "héllo wörld ✓", DefaultAnswer} {
		parts := split(s, 3)
		if strings.Join(parts, "") != s || len(parts) > 3 {
			t.Errorf("split(%q): got %q, want at most 3 parts joining to it", s, parts)
		}
	}
}

func TestExitCodes(t *testing.T) {
	t.Parallel()
	for _, code := range ExitCodes {
		t.Run(strconv.Itoa(code), func(t *testing.T) {
			t.Parallel()
			f := NewLocal(t, ScenarioExit)
			err := start(t, f, "prompt", []string{EnvExit + "=" + strconv.Itoa(code)}, "-o", "stream-json").Run()
			got := 0
			if exit := new(exec.ExitError); errors.As(err, &exit) {
				got = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if got != code {
				t.Errorf("got exit code %d, want %d", got, code)
			}
		})
	}
}

// An MCP server that does not start is reported as the real CLI reports it, unless --allowed-mcp-server-names
// leaves it out: then, as with the real CLI, it never starts and nothing is said.
func TestMCPServerDownUnlessLeftOut(t *testing.T) {
	t.Parallel()
	tests := []struct {
		scenario string
		args     []string
		want     bool // MCPIssuesLine on stderr
	}{
		{ScenarioUserMCPDown, nil, true},
		{ScenarioUserMCPDown, []string{"--allowed-mcp-server-names", "firecrawl", "-e", "none"}, false},
		{ScenarioUserMCPDown, []string{"--allowed-mcp-server-names", "firecrawl,mine"}, true},
		{ScenarioNoFirecrawl, nil, true},
		{ScenarioNoFirecrawl, []string{"--allowed-mcp-server-names", "firecrawl", "-e", "none"}, true},
		{ScenarioNoFirecrawl, []string{"--allowed-mcp-server-names", "gemini-search-mcp-none"}, false},
	}
	for _, tt := range tests {
		f := NewLocal(t, tt.scenario)
		cmd := start(t, f, "the prompt", []string{"DEBUG=true"}, slices.Concat([]string{"-o", "stream-json"}, tt.args)...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s %q: %v\n%s", tt.scenario, tt.args, err, stderr.String())
		}
		server := map[string]string{ScenarioUserMCPDown: UserMCPServer, ScenarioNoFirecrawl: "firecrawl"}[tt.scenario]
		reason := "Error during discovery for MCP server '" + server + "'"
		if got := strings.Contains(stderr.String(), MCPIssuesLine); got != tt.want || strings.Contains(stderr.String(), reason) != tt.want {
			t.Errorf("%s %q: reported %v, want %v:\n%s", tt.scenario, tt.args, got, tt.want, stderr.String())
		}
	}
}
