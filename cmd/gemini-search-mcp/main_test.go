package main

// These tests build the real binary and drive it as an MCP client would, over stdio and HTTP, with the test
// binary itself standing in for the Gemini CLI (GEMINI_CLI_PATH).

import (
	"bufio"
	"bytes"
	"context"
	debugbuildinfo "debug/buildinfo"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/mockgemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

var binPath string

func TestMain(m *testing.M) {
	geminitest.Main()
	if os.Getenv(envNodeMissing) != "" { // a Gemini CLI whose interpreter is missing
		fmt.Fprintln(os.Stderr, nodeMissing)
		os.Exit(127)
	}
	var remove func()
	var err error
	if binPath, remove, err = testkit.BuildMain("gemini-search-mcp", true); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	remove()
	os.Exit(code)
}

// serverEnv is the whole environment of a server under test: the test's own, sealed off from the developer's
// (sealed), then a private config dir and HOME, the fake CLI (without one, a path where there is none: never the
// developer's own CLI on PATH), and extra. A name set twice takes its last value (os/exec; mcp-go's stdio client
// appends this to os.Environ()), so extra overrides the rest: a test that needs the Gemini API sets GEMINI_BACKEND,
// a key and GOOGLE_GEMINI_BASE_URL pointing at its mock.
func serverEnv(t testing.TB, fake *geminitest.Fake, extra ...string) (env []string, configDir string) {
	t.Helper()
	configDir = filepath.Join(t.TempDir(), "config")
	env = append(slices.Concat(os.Environ(), sealed()),
		"HOME="+t.TempDir(),
		"XDG_CACHE_HOME="+t.TempDir(), // the report history of earlier releases: never the developer's
		"XDG_DATA_HOME="+t.TempDir(),  // the research library: never the developer's
		"XDG_STATE_HOME="+t.TempDir(), // the records of CLI runs: never the developer's
		"GEMINI_SEARCH_CONFIG_DIR="+configDir,
		"PROGRESS_LOG_INTERVAL=60000",
		"MCP_SERVER_PORT="+testkit.FreePort(t), // doctor binds the port it checks: never the default 3000, which may be taken
	)
	cli := filepath.Join(t.TempDir(), "no-gemini")
	if fake != nil {
		cli = fake.Path
	}
	env = append(env, "GEMINI_CLI_PATH="+cli)
	return append(env, extra...), configDir
}

// sealed overrides whatever the developer's shell sets for the server: every variable of its configuration blank
// (blank is unset), the keys by name whatever that table holds, no Vertex AI for the CLI, the Gemini CLI as the
// backend, and the Gemini API at a closed loopback port, so that a key in the shell never reaches Google and no
// test traffic leaves 127.0.0.1.
func sealed() []string {
	var env []string
	for _, v := range config.EnvVars() {
		env = append(env, v.Name+"=")
	}
	return append(env,
		"GEMINI_API_KEY=",
		"GOOGLE_API_KEY=",
		"GOOGLE_GENAI_USE_VERTEXAI=",
		"GEMINI_BACKEND=cli",
		"GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:1",
	)
}

func initialize(t *testing.T, c *client.Client) {
	t.Helper()
	res := testkit.Initialize(t, context.Background(), c)
	if res.ServerInfo.Name != "gemini-search-mcp" {
		t.Errorf("server name %q", res.ServerInfo.Name)
	}
}

func search(ctx context.Context, c *client.Client, query string) (*mcp.CallToolResult, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = "search"
	req.Params.Arguments = map[string]any{"query": query}
	return c.CallTool(ctx, req)
}

type searchBody struct {
	Success bool   `json:"success"`
	Report  string `json:"report"`
	Error   struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func decode(t *testing.T, res *mcp.CallToolResult) searchBody {
	t.Helper()
	var b searchBody
	if len(res.Content) != 1 {
		t.Fatalf("got %d content items", len(res.Content))
	}
	if err := json.Unmarshal([]byte(res.Content[0].(mcp.TextContent).Text), &b); err != nil {
		t.Fatal(err)
	}
	return b
}

func assertRoundTrip(t *testing.T, c *client.Client) {
	t.Helper()
	initialize(t, c)
	list, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil || len(list.Tools) != 11 {
		t.Fatalf("tools/list = %+v, %v", list, err)
	}
	res, err := search(context.Background(), c, "what changed in Go 1.26?")
	if err != nil {
		t.Fatal(err)
	}
	if b := decode(t, res); res.IsError || !b.Success || !strings.HasPrefix(b.Report, "# Fake report") {
		t.Errorf("search result: %+v", b)
	}
}

func TestStdio(t *testing.T) {
	fake := geminitest.New(t, "ok")
	env, configDir := serverEnv(t, fake)
	c, err := client.NewStdioMCPClientWithOptions(binPath, env, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	assertRoundTrip(t, c)
	if _, err := os.Stat(filepath.Join(configDir, ".gemini", "settings.json")); err != nil {
		t.Errorf("research workspace not created: %v", err)
	}
	calls := fake.Calls()
	if len(calls) == 0 {
		t.Fatal("the fake CLI was never run")
	}
	if got := calls[0].Dir; got != configDir {
		t.Errorf("CLI ran in %q, want the config dir %q", got, configDir)
	}
}

// startHTTP starts the server with --http on a free port and returns its base URL.
func startHTTP(t testing.TB, env []string, args ...string) (*exec.Cmd, string, *testkit.SyncBuffer) {
	t.Helper()
	cmd := exec.Command(binPath, append([]string{"--http", "--port", "0"}, args...)...)
	cmd.Env = env
	stderr := &testkit.SyncBuffer{}
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		re := regexp.MustCompile(`url=(http://\S+)/mcp`)
		for sc.Scan() {
			stderr.Write([]byte(sc.Text() + "\n"))
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
		}
	}()
	t.Cleanup(func() { pw.Close() })
	select {
	case u := <-urls:
		return cmd, u, stderr
	case <-time.After(testkit.WaitLimit):
		t.Fatalf("server did not announce its URL:\n%s", stderr)
		return nil, "", nil
	}
}

func TestHTTP(t *testing.T) {
	fake := geminitest.New(t, "ok")
	env, _ := serverEnv(t, fake)
	_, base, _ := startHTTP(t, env)

	c, err := testkit.HTTPClient(base + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	assertRoundTrip(t, c)

	res, err := http.Get(base + "/healthz")
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("healthz: %v %v", res, err)
	}
	res.Body.Close()

	for _, tt := range []struct {
		name   string
		header string
		value  string
		body   []byte
		want   int
	}{
		{"foreign origin", "Origin", "https://evil.example", nil, http.StatusForbidden},
		{"rebinding host", "Host", "evil.example", nil, http.StatusForbidden},
		{"body over 1 MiB", "", "", bytes.Repeat([]byte("x"), 1<<20+1), http.StatusRequestEntityTooLarge},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := tt.body
			if body == nil {
				body = []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
			}
			req, _ := http.NewRequest(http.MethodPost, base+"/mcp", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tt.header == "Host" {
				req.Host = tt.value
			} else if tt.header != "" {
				req.Header.Set(tt.header, tt.value)
			}
			res, err := testkit.Client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != tt.want {
				t.Errorf("status %d, want %d", res.StatusCode, tt.want)
			}
		})
	}
}

func TestHTTPToken(t *testing.T) {
	fake := geminitest.New(t, "ok")
	env, _ := serverEnv(t, fake, "MCP_AUTH_TOKEN=tok-123456")
	_, base, stderr := startHTTP(t, env)

	res, err := testkit.Client.Post(base+"/mcp", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("no token: status %d, want 401", res.StatusCode)
	}
	c, err := testkit.HTTPClient(base+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer tok-123456"}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	assertRoundTrip(t, c)
	if strings.Contains(stderr.String(), "tok-123456") {
		t.Error("the token reached the log")
	}
}

func TestNonLoopbackHostNeedsToken(t *testing.T) {
	env, _ := serverEnv(t, nil)
	out, err := runServer(t, env, "--http", "--host", "0.0.0.0", "--port", "0")
	if exitCode(err) != 1 || !strings.Contains(out, "MCP_AUTH_TOKEN") {
		t.Errorf("exit %d, output %q: want exit 1 naming MCP_AUTH_TOKEN", exitCode(err), out)
	}
}

func TestSIGTERMStopsSearchesAndExits(t *testing.T) {
	fake := geminitest.New(t, "hang")
	env, _ := serverEnv(t, fake)
	cmd, base, stderr := startHTTP(t, env)
	c, err := testkit.HTTPClient(base + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	initialize(t, c)
	result := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, _ := search(context.Background(), c, "never ends")
		result <- res
	}()
	testkit.WaitFor(t, "the fake CLI to start", func() bool { return len(fake.LivePIDs()) > 0 })

	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit: %v, want 0\n%s", err, stderr)
		}
	case <-time.After(testkit.WaitLimit):
		t.Fatalf("still running %v after SIGTERM\n%s", testkit.WaitLimit, stderr)
	}
	t.Logf("exited %v after SIGTERM", time.Since(start).Round(time.Millisecond))
	if pids := fake.LivePIDs(); len(pids) > 0 {
		t.Errorf("CLI processes %v outlived the server", pids)
	}
	// The client got an answer that says why, not a cut connection.
	if res := <-result; res == nil || !res.IsError || !strings.Contains(testkit.Text(res), `"code": "CANCELLED"`) ||
		!strings.Contains(testkit.Text(res), "the server is shutting down") {
		t.Errorf("the call's result is %+v, want CANCELLED saying the server is shutting down", res)
	}
}

// searchOverStdio starts the server over stdio with env, and opens a session in which call 2 is a search for query.
func searchOverStdio(t *testing.T, env []string, query string) (*exec.Cmd, io.WriteCloser, io.Reader) {
	t.Helper()
	cmd := exec.Command(binPath)
	cmd.Env = env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"query":` + strconv.Quote(query) + `}}}`,
	} {
		if _, err := io.WriteString(stdin, msg+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	return cmd, stdin, stdout
}

// Over stdio too, a call in progress at SIGTERM is answered CANCELLED saying why, and the server exits 0.
func TestSIGTERMOverStdioAnswersCalls(t *testing.T) {
	fake := geminitest.New(t, "hang")
	env, _ := serverEnv(t, fake)
	cmd, stdin, stdout := searchOverStdio(t, env, "never ends")
	defer stdin.Close() // open until SIGTERM ends the server: its end is the signal's doing, not stdin's
	testkit.WaitFor(t, "the fake CLI to start", func() bool { return len(fake.LivePIDs()) > 0 })
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var answer string
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		if strings.HasPrefix(lines.Text(), `{"jsonrpc":"2.0","id":2,`) {
			answer = lines.Text()
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit: %v, want 0", err)
	}
	if !strings.Contains(answer, `\"code\": \"CANCELLED\"`) || !strings.Contains(answer, "the server is shutting down") {
		t.Errorf("the call's answer is %s, want CANCELLED saying the server is shutting down", answer)
	}
	if pids := fake.LivePIDs(); len(pids) > 0 {
		t.Errorf("CLI processes %v outlived the server", pids)
	}
}

// signedIn is a HOME where the Gemini CLI has its own sign-in.
func signedIn(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".gemini", "oauth_creds.json"), []byte(`{}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

// warmWorkers is what /healthz says of the warm CLI processes.
func warmWorkers(t *testing.T, base string) int {
	t.Helper()
	res, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var h struct {
		Warm *int `json:"warm_workers"`
	}
	if err := json.NewDecoder(res.Body).Decode(&h); err != nil || h.Warm == nil {
		t.Fatalf("healthz: %v, warm_workers %v", err, h.Warm)
	}
	return *h.Warm
}

// No CLI starts with the server: the first search runs cold, and once it succeeded a warm CLI starts, which the
// next search takes; none is left once the server has stopped.
func TestWarmWorkers(t *testing.T) {
	fake := geminitest.New(t, "ok")
	env, _ := serverEnv(t, fake, "HOME="+signedIn(t))
	cmd, base, stderr := startHTTP(t, env)
	c, err := testkit.HTTPClient(base + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	initialize(t, c)
	if warm, started := warmWorkers(t, base), fake.Started(); warm != 0 || len(started) != 0 {
		t.Fatalf("at launch: %d warm CLIs, CLIs %v started, want none", warm, started)
	}

	for i, query := range []string{"cold", "warm"} {
		if res, err := search(context.Background(), c, query); err != nil || res.IsError {
			t.Fatalf("search %s: %+v, %v", query, res, err)
		}
		if i == 0 {
			testkit.WaitFor(t, "a warm CLI after the first search", func() bool {
				return warmWorkers(t, base) == 1 && len(fake.Started()) == 2
			})
		}
	}
	started, calls := fake.Started(), fake.Calls()
	if len(calls) != 2 || calls[0].PID != started[0] || calls[1].PID != started[1] {
		t.Errorf("the first search did not run cold and the second warm (CLIs %v started): %+v", started, calls)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit: %v\n%s", err, stderr)
	}
	if pids := fake.LivePIDs(); len(pids) > 0 {
		t.Errorf("CLI processes %v outlived the server", pids)
	}
}

// Over stdio too, the warm CLI ends with the server, even one still starting when the client leaves (closes the
// server's stdin) right after the search that started it; the server exits 0.
func TestWarmWorkersEndWithStdio(t *testing.T) {
	fake := geminitest.New(t, "ok")
	env, _ := serverEnv(t, fake, "HOME="+signedIn(t))
	cmd, stdin, stdout := searchOverStdio(t, env, "cold")
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() && !strings.HasPrefix(lines.Text(), `{"jsonrpc":"2.0","id":2,`) {
	}
	stdin.Close()
	for lines.Scan() {
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit: %v, want 0", err)
	}
	if calls := fake.Calls(); len(calls) != 1 {
		t.Errorf("%d CLI runs, want the search's", len(calls))
	}
	if pids := fake.LivePIDs(); len(pids) > 0 {
		t.Errorf("CLI processes %v outlived the server", pids)
	}
}

func TestStartupErrors(t *testing.T) {
	notADir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notADir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		env  string
		want []string
	}{
		{"timeout not a number", "GEMINI_SEARCH_TIMEOUT=abc", []string{"GEMINI_SEARCH_TIMEOUT", "abc"}},
		{"port out of range", "MCP_SERVER_PORT=70000", []string{"MCP_SERVER_PORT", "70000"}},
		{"negative retries", "JSON_MAX_RETRIES=-1", []string{"JSON_MAX_RETRIES", "-1"}},
		{"config dir cannot be created", "GEMINI_SEARCH_CONFIG_DIR=" + filepath.Join(notADir, "sub"), []string{filepath.Join(notADir, "sub")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, _ := serverEnv(t, nil, tt.env)
			out, err := runServer(t, env)
			if exitCode(err) != 1 {
				t.Errorf("exit %d, want 1; output:\n%s", exitCode(err), out)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output %q does not name %q", out, w)
				}
			}
		})
	}
}

func TestMissingCLIWarnsAndStillServes(t *testing.T) {
	env, _ := serverEnv(t, nil) // no fake: a CLI path where there is none
	var stderr testkit.SyncBuffer
	c, err := client.NewStdioMCPClientWithOptions(binPath, env, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if r, ok := c.GetTransport().(interface{ Stderr() io.Reader }); ok {
		go io.Copy(&stderr, r.Stderr())
	}
	initialize(t, c)
	res, err := search(context.Background(), c, "q")
	if err != nil {
		t.Fatal(err)
	}
	if b := decode(t, res); !res.IsError || b.Error.Code != "CLI_NOT_FOUND" {
		t.Errorf("got %+v, want CLI_NOT_FOUND", b)
	}
	testkit.WaitFor(t, "the missing-CLI warning", func() bool { return strings.Contains(stderr.String(), "[WARN] Gemini CLI: not found") })
}

// TestVersion builds the server the ways users get it and asks each binary its version: stamped by make or
// GoReleaser, built by go build in a git clone (Go stamps a pseudo-version naming the commit, or the commit's tag),
// and built with no version control information (-buildvcs=false, or a tarball). go install …@v1.2.3 records the
// module version as a clone build does, which buildinfo's own test covers.
func TestVersion(t *testing.T) {
	t.Parallel()
	builds := []struct {
		name  string
		flags []string
		want  func(t *testing.T, bin, version string) bool
	}{
		{"stamped by make", []string{"-ldflags", "-X main.version=9.8.7"}, func(_ *testing.T, _, v string) bool { return v == "9.8.7" }},
		{"no version control information", []string{"-buildvcs=false"}, func(_ *testing.T, _, v string) bool { return v == "dev" }},
		// As go build does by default: stamped where git can tell the commit (a clone git trusts), else not.
		{"go build, in a git clone or not", nil, func(t *testing.T, bin, v string) bool {
			info, err := debugbuildinfo.ReadFile(bin)
			if err != nil {
				t.Fatal(err)
			}
			var commit string
			for _, s := range info.Settings {
				if s.Key == "vcs.revision" {
					commit = s.Value
				}
			}
			if len(commit) < 12 {
				// Not a git clone (a tarball, or a worktree, which go build does not stamp): nothing to name.
				return v == "dev"
			}
			// 0.0.0-20261124050802-b04be11c3686 (+dirty with changes), or the tag of a tagged commit.
			return strings.Contains(v, "-"+commit[:12]) || "v"+v == info.Main.Version
		}},
	}
	for _, b := range builds {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			bin := filepath.Join(t.TempDir(), "gemini-search-mcp")
			if out, err := exec.Command("go", slices.Concat([]string{"build", "-o", bin}, b.flags, []string{"."})...).CombinedOutput(); err != nil {
				t.Fatalf("go build %v: %v\n%s", b.flags, err, out)
			}
			out, err := exec.Command(bin, "--version").Output()
			version, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "gemini-search-mcp ")
			if err != nil || !ok || !b.want(t, bin, version) {
				t.Errorf("--version of a build with %v: %q, %v", b.flags, out, err)
			}
		})
	}
}

// mockAPI serves the mock Gemini API on loopback; the doctor's one-line query (chat) answers with reply.
func mockAPI(t *testing.T, reply *mockgemini.Reply) (mock *mockgemini.Server, baseURL string) {
	t.Helper()
	mock = mockgemini.New()
	if reply != nil {
		mock.Handle(mockgemini.KindChat, mockgemini.Always(*reply))
	}
	srv := httptest.NewServer(mock)
	t.Cleanup(func() {
		mock.Close() // first: releases hanging requests, which srv.Close waits for
		srv.Close()
	})
	return mock, srv.URL
}

// envNodeMissing makes this test binary play a Gemini CLI whose interpreter is missing (TestMain).
const envNodeMissing = "GSM_TEST_NODE_MISSING"

const nodeMissing = "/usr/bin/env: 'node': No such file or directory"

func TestDoctor(t *testing.T) {
	const key = "test-key-abcd1234"
	t.Run("healthy", func(t *testing.T) {
		fake := geminitest.New(t, "ok")
		env, configDir := serverEnv(t, fake, "GEMINI_BACKEND=cli", "GEMINI_API_KEY="+key)
		out, err := runServer(t, env, "doctor")
		if err != nil {
			t.Fatalf("doctor failed: %v\n%s", err, out)
		}
		for _, want := range []string{"✓ Config dir", configDir, "✓ settings.json", "Firecrawl", "off",
			"✓ Auth          GEMINI_API_KEY ••••1234 (from the environment)", "✓ Backend       Gemini CLI\n",
			"✓ Gemini CLI", "(version 0.61.0) answered in ", "(model gemini-2.5-flash)"} {
			if !strings.Contains(out, want) {
				t.Errorf("doctor output lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, key) {
			t.Errorf("doctor shows the key:\n%s", out)
		}
		// A key and no sign-in of the CLI's own (an empty HOME): the workspace selects key auth.
		if settings := readFile(t, filepath.Join(configDir, ".gemini", "settings.json")); !strings.Contains(settings, `"selectedType": "gemini-api-key"`) {
			t.Errorf("settings.json does not select key auth:\n%s", settings)
		}
	})
	t.Run("firecrawl set after settings.json was written", func(t *testing.T) {
		fake := geminitest.New(t, "ok")
		env, configDir := serverEnv(t, fake, "GEMINI_API_KEY=x")
		if out, err := runServer(t, env, "doctor", "--offline"); err != nil { // writes settings.json without Firecrawl
			t.Fatalf("doctor: %v\n%s", err, out)
		}
		path := filepath.Join(configDir, ".gemini", "settings.json")
		edited := strings.Replace(readFile(t, path), "{", `{"ui": {"theme": "mine"},`, 1) // the user's own entry
		if err := os.WriteFile(path, []byte(edited), 0o600); err != nil {
			t.Fatal(err)
		}
		env = append(env, "FIRECRAWL_API_KEY=fc-test-key-123")
		out, err := runServer(t, env, "doctor", "--offline")
		want := "! settings.json " + path + " (valid); it does not match the configuration yet"
		if err != nil || !strings.Contains(out, want) || !strings.Contains(out, "✓ Firecrawl     cloud (API key)") || strings.Contains(out, "fc-test-key-123") {
			t.Errorf("doctor: %v\n%s\nwant the hint %q, without the key", err, out, want)
		}
		if got := readFile(t, path); got != edited {
			t.Errorf("doctor rewrote settings.json:\n%s", got)
		}
		if out, _ := runServer(t, env); strings.Contains(out, "fc-test-key-123") {
			t.Errorf("the server's log shows the key:\n%s", out)
		}
		settings := readFile(t, path)
		if !strings.Contains(settings, `"firecrawl"`) || !strings.Contains(settings, `"theme": "mine"`) || strings.Contains(settings, "fc-test-key-123") {
			t.Errorf("after a start with FIRECRAWL_API_KEY, settings.json is\n%s\nwant the firecrawl server added, the user's entry kept and no key", settings)
		}
		out, err = runServer(t, env, "doctor", "--offline")
		if err != nil || !strings.Contains(out, "✓ settings.json") || !strings.Contains(out, "✓ Firecrawl     cloud (API key)") || strings.Contains(out, "fc-test-key-123") {
			t.Errorf("doctor: %v\n%s\nwant settings.json in line and Firecrawl on, without the key", err, out)
		}
	})
	t.Run("broken", func(t *testing.T) {
		env, configDir := serverEnv(t, nil, "GEMINI_CLI_PATH=/nonexistent/gemini")
		if err := os.MkdirAll(filepath.Join(configDir, ".gemini"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(configDir, ".gemini", "settings.json"), []byte("{oops"), 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := runServer(t, env, "doctor")
		if exitCode(err) != 1 {
			t.Fatalf("doctor passed a broken install (exit %d):\n%s", exitCode(err), out)
		}
		for _, want := range []string{"✗ Gemini CLI", "/nonexistent/gemini", "✗ settings.json", "✗ Auth"} {
			if !strings.Contains(out, want) {
				t.Errorf("doctor output lacks %q:\n%s", want, out)
			}
		}
	})
	t.Run("no credentials", func(t *testing.T) {
		fake := geminitest.New(t, "auth")
		env, _ := serverEnv(t, fake, "GEMINI_BACKEND=auto")
		out, err := runServer(t, env, "doctor")
		want := "✗ Auth          no credentials found\n                fix: Run `gemini` once in a terminal and sign in, or set GEMINI_API_KEY (aistudio.google.com/apikey)."
		if exitCode(err) != 1 || !strings.Contains(out, want) || !strings.Contains(out, "(AUTH_ERROR)") {
			t.Errorf("exit %d, output:\n%s\nwant exit 1 with %q and the CLI's refusal", exitCode(err), out, want)
		}
	})
	t.Run("a CLI signed in where doctor cannot see", func(t *testing.T) {
		fake := geminitest.New(t, "ok")
		env, _ := serverEnv(t, fake, "GEMINI_BACKEND=auto")
		out, err := runServer(t, env, "doctor")
		for _, want := range []string{"! Auth          no credentials doctor can see, but the Gemini CLI answered", "✓ Backend       Gemini CLI (auto)\n",
			"(version 0.61.0) answered in "} {
			if err != nil || !strings.Contains(out, want) {
				t.Errorf("doctor: %v, output lacks %q:\n%s", err, want, out)
			}
		}
	})
	t.Run("sealed from the developer's environment", func(t *testing.T) {
		// A shell with a key, the API as backend and Google's endpoint: none of it may reach a server under test.
		for k, v := range map[string]string{"GEMINI_API_KEY": "AIzaFAKE-developer-key", "GOOGLE_API_KEY": "AIzaFAKE-google-key",
			"GEMINI_BACKEND": "api", "GOOGLE_GEMINI_BASE_URL": "https://generativelanguage.googleapis.com", "MCP_AUTH_TOKEN": "tok-developer"} {
			t.Setenv(k, v)
		}
		env, _ := serverEnv(t, geminitest.New(t, "ok"))
		out, err := runServer(t, env, "doctor", "--offline") // offline: were the seal broken, nothing is sent either
		for _, want := range []string{"✗ Auth          no credentials found\n", "✓ Backend       Gemini CLI\n", "not queried (--offline)"} {
			if exitCode(err) != 1 || !strings.Contains(out, want) {
				t.Errorf("exit %d, output lacks %q:\n%s", exitCode(err), want, out)
			}
		}
		for _, unwant := range []string{"••••", "MCP_AUTH_TOKEN required"} { // a key in Auth, the token in HTTP
			if strings.Contains(out, unwant) {
				t.Errorf("output holds %q: the developer's environment reached the server:\n%s", unwant, out)
			}
		}
	})
	t.Run("API answers", func(t *testing.T) {
		mock, url := mockAPI(t, nil)
		env, _ := serverEnv(t, nil, "GEMINI_BACKEND=api", "GEMINI_API_KEY="+key, "GOOGLE_GEMINI_BASE_URL="+url,
			"GEMINI_CLI_PATH=/nonexistent/gemini")
		out, err := runServer(t, env, "doctor")
		if err != nil || !strings.Contains(out, "✓ Gemini API    answered in ") || !strings.Contains(out, "✓ Backend       Gemini API\n") {
			t.Errorf("doctor: %v\n%s\nwant exit 0 and the API's answer", err, out)
		}
		if n := len(mock.Requests()); n != 1 {
			t.Errorf("the mock got %d requests, want the one query", n)
		}
	})
	for _, reply := range []mockgemini.Reply{mockgemini.InvalidKey(), mockgemini.Unauthenticated()} {
		t.Run(fmt.Sprintf("key rejected (%d)", reply.Status), func(t *testing.T) {
			_, url := mockAPI(t, &reply)
			env, _ := serverEnv(t, nil, "GEMINI_BACKEND=api", "GEMINI_API_KEY="+key, "GOOGLE_GEMINI_BASE_URL="+url)
			out, err := runServer(t, env, "doctor")
			want := "the key in GEMINI_API_KEY (••••1234) was rejected"
			if exitCode(err) != 1 || !strings.Contains(out, want) || !strings.Contains(out, "fix: Check the key in GEMINI_API_KEY") ||
				strings.Contains(out, key) {
				t.Errorf("exit %d, output:\n%s\nwant exit 1 saying %q, without the key", exitCode(err), out, want)
			}
		})
	}
	t.Run("offline sends no query", func(t *testing.T) {
		mock, url := mockAPI(t, nil)
		env, _ := serverEnv(t, nil, "GEMINI_BACKEND=api", "GEMINI_API_KEY="+key, "GOOGLE_GEMINI_BASE_URL="+url)
		out, err := runServer(t, env, "doctor", "--offline")
		if err != nil || !strings.Contains(out, "✓ Gemini API    not queried (--offline)") {
			t.Errorf("doctor --offline: %v\n%s", err, out)
		}
		if reqs := mock.Requests(); len(reqs) != 0 {
			t.Errorf("doctor --offline sent %d requests to the API", len(reqs))
		}
	})
	t.Run("CLI that cannot start", func(t *testing.T) {
		env, _ := serverEnv(t, nil, "GEMINI_BACKEND=cli", "GEMINI_API_KEY="+key, "GEMINI_CLI_PATH="+os.Args[0], envNodeMissing+"=1")
		out, err := runServer(t, env, "doctor")
		for _, want := range []string{"✗ Gemini CLI", "exit status 127", "  " + nodeMissing, "Node.js"} {
			if exitCode(err) != 1 || !strings.Contains(out, want) {
				t.Errorf("exit %d, output lacks %q:\n%s", exitCode(err), want, out)
			}
		}
	})
	t.Run("non-loopback host without a token", func(t *testing.T) {
		fake := geminitest.New(t, "ok")
		for _, args := range [][]string{{"doctor", "--offline"}, {"--host", "0.0.0.0", "doctor", "--offline"}} {
			env, _ := serverEnv(t, fake, "GEMINI_API_KEY="+key, "MCP_SERVER_HOST=0.0.0.0")
			if args[0] == "--host" {
				env, _ = serverEnv(t, fake, "GEMINI_API_KEY="+key)
			}
			out, err := runServer(t, env, args...)
			if exitCode(err) != 1 || !strings.Contains(out, "✗ HTTP          --http would refuse to start") || !strings.Contains(out, "set MCP_AUTH_TOKEN") {
				t.Errorf("%v: exit %d, output:\n%s\nwant exit 1 with the HTTP check naming MCP_AUTH_TOKEN", args, exitCode(err), out)
			}
		}
		env, _ := serverEnv(t, fake, "GEMINI_API_KEY="+key, "MCP_SERVER_HOST=0.0.0.0", "MCP_AUTH_TOKEN=tok-123456789")
		if out, err := runServer(t, env, "doctor", "--offline"); err != nil || !strings.Contains(out, "✓ HTTP") || strings.Contains(out, "tok-123456789") {
			t.Errorf("with a token: %v\n%s", err, out)
		}
	})
	t.Run("bad values", func(t *testing.T) {
		fake := geminitest.New(t, "ok")
		env, configDir := serverEnv(t, fake, "GEMINI_API_KEY="+key, "MCP_SERVER_PORT=70000")
		if err := os.MkdirAll(configDir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(configDir, ".env"), []byte("GEMINI_SEARCH_TIMEOUT=abc\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := runServer(t, env, "doctor", "--offline")
		for _, want := range []string{
			`✗ Config        invalid GEMINI_SEARCH_TIMEOUT="abc" in ` + filepath.Join(configDir, ".env"),
			`✗ Config        invalid MCP_SERVER_PORT="70000" set in the process environment`,
			"✓ Config dir", "✓ Auth", "✓ Backend", "✓ HTTP          --http serves http://127.0.0.1:3000/mcp",
		} {
			if exitCode(err) != 1 || !strings.Contains(out, want) {
				t.Errorf("exit %d, output lacks %q:\n%s", exitCode(err), want, out)
			}
		}
	})
	t.Run("usage", func(t *testing.T) {
		env, _ := serverEnv(t, nil)
		out, err := runServer(t, env, "doctor", "extra")
		if exitCode(err) != 2 || !strings.Contains(out, "-offline") {
			t.Errorf("exit %d, output:\n%s\nwant exit 2 with the doctor's flags", exitCode(err), out)
		}
	})
}

func runServer(t *testing.T, env []string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binPath, args...)
	cmd.Env = env
	cmd.Stdin = strings.NewReader("") // stdio mode ends at EOF
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}

// A client whose connection breaks does not cancel its search (the spec: only notifications/cancelled does), so that
// it can resume the stream for the answer; the search still ends by its time limit, leaving no process behind.
func TestHTTPClientGoneSearchEndsByItsTimeLimit(t *testing.T) {
	fake := geminitest.New(t, "hang")
	env, _ := serverEnv(t, fake, "GEMINI_SEARCH_TIMEOUT=3000")
	_, base, _ := startHTTP(t, env)

	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	res, err := testkit.Client.Post(base+"/mcp", "application/json", strings.NewReader(init))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	session := res.Header.Get("Mcp-Session-Id")

	ctx, cancel := context.WithCancel(context.Background())
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search","arguments":{"query":"never ends"}}}`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	go func() {
		if res, err := testkit.Client.Do(req); err == nil {
			res.Body.Close()
		}
	}()
	testkit.WaitFor(t, "the search's fake CLI to start", func() bool { return len(fake.LiveRunPIDs()) > 0 })
	cancel() // the client goes away mid-search
	testkit.WaitFor(t, "the search's processes to end by its time limit", func() bool { return len(fake.LiveRunPIDs()) == 0 })
}

func TestStdioClientGoneStopsSearch(t *testing.T) {
	quitDuringCall(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"query":"never ends"}}}`)
}

// TestStdioTaskEndsWithTheServer: deep_search run as an MCP task outlives its request, but not the server.
func TestStdioTaskEndsWithTheServer(t *testing.T) {
	quitDuringCall(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deep_search","arguments":{"topic":"never ends"},"task":{}}}`,
		"GEMINI_SEARCH_TIMEOUT=60000")
}

// quitDuringCall starts the server over stdio, sends call after the handshake, and closes stdin once the fake CLI
// runs, as a client that quits does. The server must exit 0 within 10 s, leaving no CLI process behind.
func quitDuringCall(t *testing.T, call string, extraEnv ...string) {
	fake := geminitest.New(t, "hang")
	env, _ := serverEnv(t, fake, extraEnv...)
	cmd := exec.Command(binPath)
	cmd.Env = env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		call,
	} {
		if _, err := io.WriteString(stdin, msg+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	testkit.WaitFor(t, "the fake CLI to start", func() bool { return len(fake.LivePIDs()) > 0 })
	start := time.Now()
	stdin.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit: %v, want 0", err)
		}
	case <-time.After(testkit.WaitLimit):
		cmd.Process.Kill()
		t.Fatalf("server still running %v after its client closed stdin", testkit.WaitLimit)
	}
	t.Logf("exited %v after stdin closed", time.Since(start).Round(time.Millisecond))
	if pids := fake.LivePIDs(); len(pids) > 0 {
		t.Errorf("CLI processes %v outlived the server", pids)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestHTTPStatusPage: the headless HTTP server serves the status page too, read-only, behind the per-launch token
// of the link it logs; it has no settings page.
func TestHTTPStatusPage(t *testing.T) {
	env, _ := serverEnv(t, geminitest.New(t, "ok"))
	_, base, stderr := startHTTP(t, env)
	link := regexp.MustCompile(`status="?(http://\S+/status\?token=[0-9a-f]+)`).FindStringSubmatch(stderr.String())
	if link == nil {
		t.Fatalf("the log gives no status page link:\n%s", stderr)
	}
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Transport: testkit.Client.Transport, Jar: jar, Timeout: testkit.WaitLimit}
	get := func(c *http.Client, u string) (int, string) {
		t.Helper()
		res, err := c.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(body)
	}
	if code, _ := get(http.DefaultClient, base+"/status"); code != http.StatusForbidden {
		t.Errorf("/status without the token: %d, want 403", code)
	}
	code, page := get(browser, link[1])
	if code != http.StatusOK || !strings.Contains(page, "Running on "+base+"/mcp") {
		t.Errorf("/status with the token: %d, want 200 saying where the server runs:\n%s", code, page)
	}
	if code, _ := get(browser, base+"/settings"); code != http.StatusNotFound {
		t.Errorf("/settings: %d, want 404: the headless server has no settings page", code)
	}
}

// TestConnectCommands: connect and disconnect do from the command line what the tray's items do, for each client:
// the entry is added with a backup of the old file, listed as connected, and removed again with nothing else
// touched; a stdio entry carries the PATH the server was found on, for a client started from the dock. --port works
// after the command, and a file that cannot be read is said so, and left alone.
func TestConnectCommands(t *testing.T) {
	env, _ := serverEnv(t, nil)
	home := t.TempDir()
	env = append(env, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "PATH=/opt/node/bin:/usr/bin")
	cursor := filepath.Join(home, ".cursor", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(cursor), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cursor, []byte(`{"mcpServers": {"mine": {"url": "http://x"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	// Without a terminal to ask, connect shows the change and writes nothing; --yes writes it.
	if out, err := runServer(t, env, "connect", "cursor"); exitCode(err) != 1 || !strings.Contains(out, "\n+{\"mcpServers\": {\"mine\": {\"url\": \"http://x\"}, \"gemini-search\": {") ||
		!strings.Contains(out, "nothing was written: add --yes to the command") {
		t.Errorf("connect cursor without --yes: exit %d\n%s", exitCode(err), out)
	}
	if data, _ := os.ReadFile(cursor); string(data) != `{"mcpServers": {"mine": {"url": "http://x"}}}` {
		t.Errorf("Cursor's file written without --yes:\n%s", data)
	}
	for _, id := range []string{"cursor", "claude-desktop", "vscode", "claude-code", "codex", "goose", "continue", "zed"} {
		out, err := runServer(t, env, "connect", id, "--yes")
		if err != nil || !strings.Contains(out, ": connected (") {
			t.Errorf("connect %s: %v\n%s", id, err, out)
		}
	}
	connected := regexp.MustCompile(`(?m)^\S+ +connected `)
	if out, _ := runServer(t, env, "connect", "--list"); len(connected.FindAllString(out, -1)) != 8 || strings.Count(out, "\n") < 12 {
		t.Errorf("the list does not show the 8 clients connected among at least 12:\n%s", out)
	}
	if data, _ := os.ReadFile(cursor); !strings.Contains(string(data), `"mine"`) || !strings.Contains(string(data), "gemini-search") {
		t.Errorf("Cursor's file after connect:\n%s", data)
	}
	if backups, _ := filepath.Glob(cursor + ".*.bak"); len(backups) != 1 {
		t.Errorf("backups of Cursor's file: %q, want one", backups)
	}
	out, err := runServer(t, env, "connect", "claude-desktop", "--print")
	if err != nil || !strings.Contains(out, `"PATH": "/opt/node/bin:/usr/bin"`) || !strings.Contains(out, `"command": "`+binPath) {
		t.Errorf("connect claude-desktop --print: %v\n%s", err, out)
	}
	for _, id := range []string{"cursor", "claude-desktop", "vscode", "claude-code", "codex", "goose", "continue", "zed"} {
		if out, err := runServer(t, env, "disconnect", id, "--yes"); err != nil || !strings.Contains(out, ": not connected (") {
			t.Errorf("disconnect %s: %v\n%s", id, err, out)
		}
	}
	if data, _ := os.ReadFile(cursor); string(data) != `{"mcpServers": {"mine": {"url": "http://x"}}}` {
		t.Errorf("Cursor's file after disconnect:\n%s\nwant it as it was", data)
	}
	if out, err := runServer(t, env, "connect", "emacs"); exitCode(err) != 2 || !strings.Contains(out, "unknown client") {
		t.Errorf("an unknown client: exit %d\n%s", exitCode(err), out)
	}

	// The server's flags also after the command: the entry gets the address of a server on port 3100.
	for _, args := range [][]string{{"connect", "cursor", "--port", "3100", "--yes"}, {"--port", "3100", "connect", "cursor", "--yes"}} {
		out, err := runServer(t, env, args...)
		if err != nil || !strings.Contains(out, "Cursor: connected (") {
			t.Errorf("%q: %v\n%s", args, err, out)
		}
		if data, _ := os.ReadFile(cursor); !strings.Contains(string(data), `"url": "http://127.0.0.1:3100/mcp"`) {
			t.Errorf("%q: Cursor's file:\n%s", args, data)
		}
	}
	if out, _ := runServer(t, env, "connect"); !strings.Contains(out, "\ncursor          connected to an old address") &&
		!strings.HasPrefix(out, "cursor          connected to an old address") {
		t.Errorf("the list, for the server on port 3000, does not show Cursor's entry as old:\n%s", out)
	}
	for _, port := range []string{"70000", "0"} { // 0 is any free port to a server, no address for a client
		if out, err := runServer(t, env, "connect", "cursor", "--port", port); exitCode(err) != 2 || !strings.Contains(out, "invalid --port "+port) {
			t.Errorf("connect --port %s: exit %d\n%s", port, exitCode(err), out)
		}
	}

	// A file that cannot be parsed is listed with why, and connect leaves it alone with the same words.
	broken := "{\n  \"mcpServers\": {\n    \"mine\": ]\n  }\n}\n"
	if err := os.WriteFile(cursor, []byte(broken), 0o600); err != nil {
		t.Fatal(err)
	}
	const why = "cannot read ~/.cursor/mcp.json: line 3: invalid character ']' at start of value"
	if out, _ := runServer(t, env, "connect"); !strings.Contains(out, "cursor          "+why+"\n") {
		t.Errorf("the list does not say why Cursor's file cannot be read:\n%s", out)
	}
	if out, err := runServer(t, env, "connect", "cursor"); exitCode(err) != 1 || !strings.Contains(out, "gemini-search-mcp connect: "+why+"\n") {
		t.Errorf("connect to an unreadable file: exit %d\n%s", exitCode(err), out)
	}
	if data, _ := os.ReadFile(cursor); string(data) != broken {
		t.Errorf("the unreadable file changed to %q", data)
	}
}

// TestHelpGoesToStdout: the help of the binary and of its commands is on stdout (`--help | less` shows it); a
// usage error is on stderr, exit 2.
func TestHelpGoesToStdout(t *testing.T) {
	env, _ := serverEnv(t, nil)
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {"doctor", "--help"}, {"connect", "-h"}, {"help", "disconnect"}} {
		cmd := exec.Command(binPath, args...)
		cmd.Env = env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil || !strings.Contains(string(out), "Usage") || stderr.Len() != 0 {
			t.Errorf("%q: %v, stdout:\n%s\nstderr:\n%s", args, err, out, stderr.String())
		}
	}
	cmd := exec.Command(binPath, "--no-such-flag")
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if exitCode(err) != 2 || len(out) != 0 || !strings.Contains(stderr.String(), "flag provided but not defined: -no-such-flag") {
		t.Errorf("an unknown flag: exit %d, stdout %q, stderr:\n%s", exitCode(err), out, stderr.String())
	}
}

// A server killed outright leaves its CLI's MCP servers running (on Linux the CLI itself dies with it); the next
// server that starts ends them, once it has proved they are the ones recorded. The CLIs of a server that runs are
// left alone.
func TestLeftoversOfAKilledServerEnd(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("runs are recorded on Linux only")
	}
	fake := geminitest.New(t, "hang")
	env, _ := serverEnv(t, fake)
	hang := func(base string) {
		c, err := testkit.HTTPClient(base + "/mcp")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		initialize(t, c)
		go search(context.Background(), c, "never ends") //nolint:errcheck // ended with the test
	}
	killed, killedBase, _ := startHTTP(t, env)
	hang(killedBase)
	testkit.WaitFor(t, "the first CLI and its grandchild", func() bool { return len(fake.LivePIDs()) == 2 })
	first := fake.LivePIDs()
	live, liveBase, _ := startHTTP(t, env) // a server that keeps running, on the same state dir
	hang(liveBase)
	testkit.WaitFor(t, "the second CLI and its grandchild", func() bool { return len(fake.LivePIDs()) == 4 })
	var second []int
	for _, pid := range fake.LivePIDs() {
		if !slices.Contains(first, pid) {
			second = append(second, pid)
		}
	}

	if err := killed.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = killed.Wait()
	testkit.WaitFor(t, "the first CLI to die with its server", func() bool { return len(fake.LivePIDs()) == 3 })

	_, _, stderr := startHTTP(t, env) // sweeps as it starts, before it announces its address
	testkit.WaitFor(t, "the leftover grandchild to end", func() bool { return len(fake.LivePIDs()) == 2 })
	if live := fake.LivePIDs(); !slices.Equal(slices.Sorted(slices.Values(live)), slices.Sorted(slices.Values(second))) {
		t.Errorf("running after the sweep: %v, want the live server's %v", live, second)
	}
	if !strings.Contains(stderr.String(), "ended the CLI processes a crashed server left running") {
		t.Errorf("the sweep was not logged:\n%s", stderr)
	}
	// The live server ends its own when it stops (the cleanup's SIGKILL would leave them to the next server).
	if err := live.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_ = live.Wait()
}
