package main

// These tests build the tray binary and run it as a person would: with a private D-Bus session bus, driving its
// menu the way a desktop's tray host does (internal/tray/traytest), with the test binary standing in for the
// Gemini CLI (GEMINI_CLI_PATH). Tests that need dbus-daemon skip when it is not installed.

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gemini-search-mcp/gemini-search-mcp/assets"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tray/traytest"
)

var (
	binPath string
	bus     *traytest.Bus // nil when dbus-daemon is missing
	busErr  error
)

func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "xdg-open" { // the tray opening a page: see fakeOpener
		os.Exit(recordOpen(os.Args[1:]))
	}
	if filepath.Base(os.Args[0]) == "npx" { // the tray fetching the CLI: see fakeNpx
		os.Exit(recordNpx(os.Args[1:]))
	}
	geminitest.Main()
	var remove func()
	var err error
	// Not race-built: fyne.io/systray v1.12.2 has a data race of its own (GetLayout against refresh), which
	// would make every tray process exit with status 66.
	if binPath, remove, err = testkit.BuildMain("gemini-search-tray", false); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bus, busErr = traytest.StartBus()
	code := m.Run()
	if bus != nil {
		bus.Close()
	}
	remove()
	os.Exit(code)
}

// binaryVersion is the version the tray binary says it is (--version): "dev", or the pseudo-version Go stamps
// into a build made in a git clone, which the menu shows the same way.
func binaryVersion(t *testing.T) string {
	t.Helper()
	out, err := exec.Command(binPath, "--version").Output()
	version, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "gemini-search-tray ")
	if err != nil || !ok || version == "" {
		t.Fatalf("gemini-search-tray --version: %q, %v", out, err)
	}
	return version
}

func needBus(t *testing.T) {
	t.Helper()
	if bus == nil {
		t.Skipf("no private D-Bus session bus: %v", busErr)
	}
}

// trayProc is a running tray binary.
type trayProc struct {
	cmd       *exec.Cmd
	stderr    *testkit.SyncBuffer
	home      string // its HOME
	configDir string // its GEMINI_SEARCH_CONFIG_DIR
	xdgConfig string // its XDG_CONFIG_HOME
	cache     string // its XDG_CACHE_HOME, where earlier releases kept the history of reports
	data      string // its XDG_DATA_HOME, where the research library is kept
	state     string // its state dir: the log and the first-run mark
	menu      *traytest.Menu
	exited    chan error
}

type trayOptions struct {
	fake     *geminitest.Fake
	args     []string // default: --port 0
	dotenv   string   // written to the config dir's .env before the start
	env      []string
	headless bool // --headless
	noBus    bool // no --headless, but no session bus either
	signedIn bool // the Gemini CLI has a sign-in of its own in HOME
	firstRun bool // the tray has never opened its first-run page: it opens it (else it was opened before)
}

func startTray(t *testing.T, o trayOptions) *trayProc {
	t.Helper()
	root := t.TempDir()
	p := &trayProc{home: filepath.Join(root, "home"), configDir: filepath.Join(root, "config"),
		xdgConfig: filepath.Join(root, "xdg-config"), cache: filepath.Join(root, "cache"),
		data:  filepath.Join(root, "data"),
		state: filepath.Join(root, "state", "gemini-search-mcp"), stderr: &testkit.SyncBuffer{}, exited: make(chan error, 1)}
	for _, d := range []string{p.home, p.configDir, p.xdgConfig, p.state} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if !o.firstRun {
		if err := os.WriteFile(filepath.Join(p.state, "first-run-page-opened"), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if o.dotenv != "" {
		if err := os.WriteFile(filepath.Join(p.configDir, ".env"), []byte(o.dotenv), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if o.signedIn {
		creds := filepath.Join(p.home, ".gemini", "oauth_creds.json")
		if err := os.MkdirAll(filepath.Dir(creds), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(creds, []byte(`{}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	args := o.args
	if args == nil {
		args = []string{"--port", "0"}
	}
	if o.headless {
		args = append(args, "--headless")
	}
	env := append(traytest.Environ(),
		"HOME="+p.home,
		"XDG_CONFIG_HOME="+p.xdgConfig,
		"XDG_STATE_HOME="+filepath.Dir(p.state),
		"XDG_CACHE_HOME="+p.cache,
		"XDG_DATA_HOME="+p.data,
		"GEMINI_SEARCH_CONFIG_DIR="+p.configDir,
		"PROGRESS_LOG_INTERVAL=60000",
		"GEMINI_QUEUE_TIMEOUT=0",
		"GEMINI_WARM_WORKERS=0", // a test that wants warm CLIs says so
	)
	if !o.headless && !o.noBus && bus != nil {
		env = append(env, "DBUS_SESSION_BUS_ADDRESS="+bus.Address)
	}
	cli := filepath.Join(root, "no-gemini") // never npx: a warm worker would download and start the real CLI
	if o.fake != nil {
		cli = o.fake.Path
	}
	env = append(env, "GEMINI_CLI_PATH="+cli)
	p.cmd = exec.Command(binPath, args...)
	p.cmd.Env = append(env, o.env...)
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exited <- p.cmd.Wait() }()
	t.Cleanup(func() {
		if p.menu != nil {
			p.menu.Close()
		}
		select {
		case <-p.exited:
		default:
			_ = p.cmd.Process.Signal(os.Interrupt)
			select {
			case err := <-p.exited:
				if err != nil { // a crash skips the shutdown that waits for the CLI runs
					t.Errorf("the tray exited with %v after SIGINT, want 0", err)
				}
			case <-time.After(testkit.WaitLimit):
				p.cmd.Process.Kill()
				<-p.exited
				t.Errorf("the tray did not stop within %v of SIGINT", testkit.WaitLimit)
			}
		}
		if t.Failed() {
			t.Logf("tray stderr:\n%s", p.stderr.String())
		}
	})
	if !o.headless && !o.noBus {
		menu, err := traytest.Connect(bus.Address, p.cmd.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		p.menu = menu
		p.waitMenu(t, "the menu to appear", func(root traytest.Item) bool { _, ok := root.Find("Quit"); return ok })
	}
	return p
}

// waitMenu polls the menu until cond holds, and returns that menu.
func (p *trayProc) waitMenu(t *testing.T, what string, cond func(root traytest.Item) bool) traytest.Item {
	t.Helper()
	deadline := time.Now().Add(testkit.WaitLimit)
	var last traytest.Item
	var lastErr error
	for time.Now().Before(deadline) {
		root, err := p.menu.Layout()
		if err == nil && cond(root) {
			return root
		}
		last, lastErr = root, err
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s; last menu (err %v):\n%s", what, lastErr, last)
	return traytest.Item{}
}

func (p *trayProc) item(t *testing.T, root traytest.Item, label string) traytest.Item {
	t.Helper()
	it, ok := root.Find(label)
	if !ok {
		t.Fatalf("no item %q in the menu:\n%s", label, root)
	}
	return it
}

func (p *trayProc) click(t *testing.T, label string) {
	t.Helper()
	root, err := p.menu.Layout()
	if err != nil {
		t.Fatal(err)
	}
	it := p.item(t, root, label)
	if !it.Enabled {
		t.Fatalf("%q is disabled:\n%s", label, root)
	}
	if err := p.menu.Click(it.ID); err != nil {
		t.Fatalf("click %q: %v", label, err)
	}
}

var (
	runningRE = regexp.MustCompile(`^Running on (http://127\.0\.0\.1:\d+)/mcp · (Gemini (CLI|API)\b|no backend$)`)
	servingRE = regexp.MustCompile(`serving MCP over HTTP url=(http://\S+)/mcp`) // the tray's log line for each start
)

// waitRunning waits for the status line to say the server runs and returns its base URL.
func (p *trayProc) waitRunning(t *testing.T) (string, traytest.Item) {
	t.Helper()
	root := p.waitMenu(t, "Running on …", func(root traytest.Item) bool {
		return len(root.Children) > 0 && runningRE.MatchString(root.Children[0].Label)
	})
	return runningRE.FindStringSubmatch(root.Children[0].Label)[1], root
}

// waitIcon waits for the tray icon to show state (an assets state).
func (p *trayProc) waitIcon(t *testing.T, state string) {
	t.Helper()
	data, err := assets.Icon(state, "png")
	if err != nil {
		t.Fatal(err)
	}
	want, err := traytest.PixmapOf(data)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(testkit.WaitLimit)
	for {
		got, err := p.menu.Icon()
		if err == nil && got.W == want.W && got.H == want.H && bytes.Equal(got.Pix, want.Pix) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the icon never showed %q (last error %v)", state, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func wantEnabled(t *testing.T, root traytest.Item, want map[string]bool) {
	t.Helper()
	for label, enabled := range want {
		it, ok := root.Find(label)
		if !ok {
			t.Errorf("no item %q", label)
			continue
		}
		if it.Enabled != enabled {
			t.Errorf("%q enabled = %v, want %v; menu:\n%s", label, it.Enabled, enabled, root)
		}
	}
}

// healthy reports whether the server at base answers /healthz; a stopped one refuses the connection at once.
func healthy(base string) bool {
	c := http.Client{Transport: testkit.Client.Transport, Timeout: testkit.WaitLimit}
	resp, err := c.Get(base + "/healthz")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func searchAsync(t *testing.T, base, query string) <-chan *mcp.CallToolResult {
	t.Helper()
	return callAsync(t, base, "search", map[string]any{"query": query})
}

// callAsync calls tool with args on the server at base and delivers its result when it comes.
func callAsync(t *testing.T, base, tool string, args map[string]any) <-chan *mcp.CallToolResult {
	t.Helper()
	c, err := testkit.HTTPClient(base + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	testkit.Initialize(t, ctx, c)
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = tool, args
		res, _ := c.CallTool(ctx, req)
		done <- res
	}()
	return done
}

// quit clicks Quit (or the item of that label, when given) and waits until the tray has exited with status 0.
func (p *trayProc) quit(t *testing.T, label ...string) {
	t.Helper()
	p.click(t, cmp.Or(append(label, "Quit")...))
	select {
	case err := <-p.exited:
		p.exited <- err // for the cleanup
		if err != nil {
			t.Fatalf("the tray exited with %v, want 0", err)
		}
	case <-time.After(testkit.WaitLimit):
		t.Fatalf("the tray did not quit within %v", testkit.WaitLimit)
	}
}

// A failed deep_search shows in Last errors on one short line, its underscores kept (dbusmenu would eat them as
// access keys); a click on it opens the last errors on the status page, where its query and fix are.
func TestErrorLineOpensTheStatusPage(t *testing.T) {
	t.Parallel()
	needBus(t)
	fake := geminitest.NewLocal(t, geminitest.ScenarioQuota)
	openerEnv, opened := fakeOpener(t)
	p := startTray(t, trayOptions{fake: fake, env: append(fake.Env(), openerEnv...), dotenv: "GEMINI_FALLBACK_MODEL=none\n"})
	base, _ := p.waitRunning(t)
	<-callAsync(t, base, "deep_search", map[string]any{"topic": "rust_2024 edition"})
	root := p.waitMenu(t, "the error line", func(root traytest.Item) bool { _, ok := root.Find("Last errors (1)"); return ok })
	errs, _ := root.Find("Last errors (1)")
	lines := errs.VisibleLabels()
	if len(lines) != 3 || !regexp.MustCompile(`^\d\d:\d\d deep_search QUOTA_ERROR: `).MatchString(lines[0]) ||
		lines[1] != "---" || lines[2] != "Clear" {
		t.Fatalf("Last errors %q, want the failure on one line, then Clear", lines)
	}
	p.click(t, lines[0])
	link := waitOpened(t, opened)
	if !regexp.MustCompile(`^` + regexp.QuoteMeta(base) + `/status\?token=[0-9a-f]+#errors$`).MatchString(link) {
		t.Errorf("opened %q, want %s/status?token=…#errors", link, base)
	}
	u, _ := url.Parse(link)
	if page := statusPage(t, base, u.Query().Get("token")); !strings.Contains(page, `id="errors"`) ||
		!strings.Contains(page, "rust_2024 edition") {
		t.Errorf("the status page lacks the errors' section or the failed query:\n%s", page)
	}
}

// A first run without a Gemini CLI says what is wrong at once and the icon says the server is down; a click on the
// problem opens its fix on the setup page. Once the CLI is installed, Restart finds it and the problem goes.
func TestSetupProblemsClearAfterRestart(t *testing.T) {
	t.Parallel()
	needBus(t)
	fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
	openerEnv, opened := fakeOpener(t)
	p := startTray(t, trayOptions{env: append(fake.Env(), openerEnv...), signedIn: true, dotenv: "GEMINI_BACKEND=cli\n"})
	shown := func(root traytest.Item, label string) bool { it, ok := root.Find(label); return ok && it.Visible }
	root := p.waitMenu(t, "the setup problem", func(root traytest.Item) bool { return shown(root, "Setup: 1 problem") })
	setup, _ := root.Find("Setup: 1 problem")
	lines := setup.VisibleLabels()
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "✗ Gemini CLI: not found") {
		t.Fatalf("the setup problem %q does not say what is missing", lines)
	}
	if !strings.Contains(root.Children[0].Label, " · no backend") {
		t.Errorf("the status line %q names a backend that cannot start", root.Children[0].Label)
	}
	p.waitIcon(t, assets.Error)
	p.click(t, lines[0])
	link := waitOpened(t, opened)
	if !strings.HasSuffix(link, "#check-gemini-cli") {
		t.Errorf("opened %q, want the setup page at #check-gemini-cli", link)
	}
	jar, _ := cookiejar.New(nil)
	page := fetch(t, &http.Client{Transport: testkit.Client.Transport, Jar: jar, Timeout: testkit.WaitLimit}, http.MethodGet, link, nil, "")
	if !regexp.MustCompile(`id="check-gemini-cli">(?s:.)*npm install -g @google/gemini-cli`).MatchString(page) {
		t.Errorf("the setup page has no Gemini CLI check with the install command:\n%s", page)
	}

	// The CLI is installed where GEMINI_CLI_PATH says (startTray points it at a missing file).
	if err := os.Symlink(fake.Path, filepath.Join(filepath.Dir(p.home), "no-gemini")); err != nil {
		t.Fatal(err)
	}
	p.click(t, "Restart")
	p.waitMenu(t, "no setup problem", func(root traytest.Item) bool {
		_, problem := root.Find("Setup:")
		return !problem && !shown(root, "Setup") && strings.HasPrefix(root.Children[0].Label, "Running on")
	})
	p.waitIcon(t, assets.Idle)
}

// A copy that finds no clipboard program says so in a notification, where the user looks once the menu has
// closed: it is no failure of the server, so Last errors and the icon stay as they were. (Not parallel: it owns the
// bus's notification name.)
func TestCopyWithoutAClipboardIsNoServerError(t *testing.T) {
	needBus(t)
	d := startNotificationDaemon(t)
	fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
	p := startTray(t, trayOptions{fake: fake, env: append(fake.Env(), "PATH="+t.TempDir(), "WAYLAND_DISPLAY=", "DISPLAY=:99"),
		signedIn: true})
	p.waitRunning(t)
	p.click(t, "Copy config") // Cursor's, the first
	waitNotice(t, d, "The Cursor configuration was not copied", "no clipboard program found")
	root, err := p.menu.Layout()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := root.Find("Last errors (0)"); !ok {
		t.Errorf("the failed copy counts as a server error:\n%s", root)
	}
	p.waitIcon(t, assets.Idle)
}

func TestMenuStartStop(t *testing.T) {
	t.Parallel()
	needBus(t)
	fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
	p := startTray(t, trayOptions{fake: fake, env: fake.Env(), signedIn: true})
	base, root := p.waitRunning(t)
	if got := root.Children[0].Label; !strings.HasSuffix(got, " · Gemini CLI") {
		t.Errorf("the status line %q does not say which backend serves", got)
	}
	wantLabels := []string{"Running searches (0)", "Last errors (0)", "Recent research", "---", "Start server", "Stop server", "Restart", "---",
		"Clients", "---",
		"Getting started…", "Settings…", "Check setup…", "Open status page", "Open config folder", "Open log file", "Start at login", "---",
		"Gemini Search MCP " + binaryVersion(t), "Quit"}
	if got := root.VisibleLabels()[1:]; !slices.Equal(got, wantLabels) { // [0] is the status line
		t.Errorf("the menu's items below the status line:\n got %q\nwant %q", got, wantLabels)
	}
	wantEnabled(t, root, map[string]bool{
		"Running on": false, "Start server": false, "Stop server": true, "Restart": true,
		"Running searches (0)": true, "Last errors (0)": true, "Clear": false, "Settings…": true, "Quit": true,
		"Recent research": true, "No research finished yet": false,
		"Clients": true, "Cursor · not connected": true, "Claude Desktop · not connected": true,
		"VS Code · not connected": true, "Claude Code · not connected": true, "Copy config": true, "Connect": true,
		"Disconnect":   false,
		"Check setup…": true, "Open status page": true, "Open config folder": true, "Open log file": true,
		"Start at login": true,
	})
	if it := p.item(t, root, "Start at login"); !it.Checkmark || it.Checked {
		t.Errorf("Start at login: checkmark=%v checked=%v, want an unchecked check box", it.Checkmark, it.Checked)
	}
	if !healthy(base) {
		t.Fatalf("%s/healthz does not answer while the menu says running", base)
	}
	p.waitIcon(t, assets.Idle)

	p.click(t, "Stop server")
	root = p.waitMenu(t, "Stopped", func(root traytest.Item) bool { return root.Children[0].Label == "Stopped" })
	wantEnabled(t, root, map[string]bool{"Start server": true, "Stop server": false, "Restart": false})
	if healthy(base) {
		t.Errorf("%s/healthz still answers after Stop server", base)
	}
	p.waitIcon(t, assets.Stopped)

	p.click(t, "Start server")
	base, root = p.waitRunning(t)
	wantEnabled(t, root, map[string]bool{"Start server": false, "Stop server": true, "Restart": true})
	if !healthy(base) {
		t.Errorf("%s/healthz does not answer after Start server", base)
	}

	// With --port 0 the restarted server listens on a port the kernel picks, usually another one but possibly the
	// same: the restart shows as one more start in the log, and the menu then names the port of that start.
	starts := len(servingRE.FindAllString(p.stderr.String(), -1))
	p.click(t, "Restart")
	old := base
	root = p.waitMenu(t, "the restarted server", func(root traytest.Item) bool {
		all := servingRE.FindAllStringSubmatch(p.stderr.String(), -1)
		return len(all) > starts && strings.HasPrefix(root.Children[0].Label, "Running on "+all[len(all)-1][1]+"/mcp ·")
	})
	base = runningRE.FindStringSubmatch(root.Children[0].Label)[1]
	if base != old && healthy(old) {
		t.Errorf("%s/healthz still answers after Restart", old)
	}
	if !healthy(base) {
		t.Errorf("%s/healthz does not answer after Restart", base)
	}
}

func TestMenuShowsRunningSearch(t *testing.T) {
	needBus(t)
	fake := geminitest.New(t, geminitest.ScenarioSlow)
	t.Setenv(geminitest.EnvDelay, "3s")
	p := startTray(t, trayOptions{fake: fake, signedIn: true})
	base, _ := p.waitRunning(t)

	done := searchAsync(t, base, "tray test query")
	lineRE := regexp.MustCompile(`^search · "tray test query" · (\d\d:\d\d)`)
	elapsedOf := func(root traytest.Item) string {
		runs, ok := root.Find("Running searches (1)")
		if !ok {
			return ""
		}
		for _, c := range runs.Children {
			if m := lineRE.FindStringSubmatch(c.Label); c.Visible && m != nil {
				return m[1]
			}
		}
		return ""
	}
	root := p.waitMenu(t, "the running search", func(root traytest.Item) bool { return elapsedOf(root) != "" })
	first := elapsedOf(root)
	if no, _ := root.Find("No searches running"); no.Visible {
		t.Errorf("\"No searches running\" is shown next to a running search")
	}
	p.waitIcon(t, assets.Researching)
	p.waitMenu(t, "the elapsed time to move on from "+first, func(root traytest.Item) bool {
		e := elapsedOf(root)
		return e != "" && e > first
	})

	select {
	case res := <-done:
		if res == nil || res.IsError {
			t.Fatalf("search failed: %+v", res)
		}
	case <-time.After(testkit.WaitLimit):
		t.Fatal("the search did not finish")
	}
	root = p.waitMenu(t, "no running search", func(root traytest.Item) bool {
		_, ok := root.Find("Running searches (0)")
		return ok
	})
	p.waitIcon(t, assets.Idle)
	if no := p.item(t, root, "No searches running"); !no.Visible {
		t.Error("\"No searches running\" is not shown once the search is done")
	}
	if _, ok := root.Find(`search · "tray test query"`); ok {
		if it, _ := root.Find(`search · "tray test query"`); it.Visible {
			t.Errorf("the finished search is still listed:\n%s", root)
		}
	}
}

func TestMenuShowsFailure(t *testing.T) {
	needBus(t)
	fake := geminitest.New(t, geminitest.ScenarioAuth)
	p := startTray(t, trayOptions{fake: fake, signedIn: true})
	base, _ := p.waitRunning(t)

	res := <-searchAsync(t, base, "will fail")
	if res == nil || !res.IsError {
		t.Fatalf("search result %+v, want an error", res)
	}
	root := p.waitMenu(t, "Last errors (1)", func(root traytest.Item) bool { _, ok := root.Find("Last errors (1)"); return ok })
	errs := p.item(t, root, "Last errors (1)")
	var lines []string
	for _, c := range errs.Children {
		if c.Visible && strings.Contains(c.Label, "AUTH_ERROR") {
			lines = append(lines, c.Label)
		}
	}
	if len(lines) != 1 || !regexp.MustCompile(`^\d\d:\d\d search AUTH_ERROR: `).MatchString(lines[0]) {
		t.Errorf("error lines %q, want one \"hh:mm search AUTH_ERROR: …\"; menu:\n%s", lines, root)
	}
	wantEnabled(t, root, map[string]bool{"Clear": true})
	p.waitIcon(t, assets.Failing)

	p.click(t, "Clear")
	root = p.waitMenu(t, "Last errors (0)", func(root traytest.Item) bool { _, ok := root.Find("Last errors (0)"); return ok })
	wantEnabled(t, root, map[string]bool{"Clear": false})
	p.waitIcon(t, assets.Idle)
}

// TestOpenFailureKeepsTheTokenSecret: when the settings page cannot be opened (no xdg-open), the failure shows
// among the last errors without the link's per-launch token, and the log line of the failure has none either.
func TestOpenFailureKeepsTheTokenSecret(t *testing.T) {
	t.Parallel()
	needBus(t)
	p := startTray(t, trayOptions{env: []string{"PATH=" + t.TempDir()}}) // no xdg-open on PATH
	p.waitRunning(t)
	pagesBase, token := p.pages(t) // logged, since no tray host runs on the test's bus

	p.click(t, "Settings…")
	root := p.waitMenu(t, "Last errors (1)", func(root traytest.Item) bool { _, ok := root.Find("Last errors (1)"); return ok })
	var line string
	for _, c := range p.item(t, root, "Last errors (1)").Children {
		if c.Visible && strings.Contains(c.Label, "TRAY_ERROR") {
			line = c.Label
		}
	}
	if !strings.Contains(line, "open the settings page") {
		t.Errorf("error line %q, want one saying the settings page could not be opened", line)
	}
	if strings.Contains(line, token) {
		t.Errorf("the error line holds the token: %q", line)
	}
	if _, ok := root.Find("Running searches (0)"); !ok {
		t.Errorf("a failed menu action shows as a running search:\n%s", root)
	}
	if page := statusPage(t, pagesBase, token); !strings.Contains(page, "TRAY_ERROR") || !strings.Contains(page, "/settings") ||
		strings.Contains(page, token) {
		t.Errorf("the status page's last errors lack the failure or hold the token:\n%s", page)
	}
	testkit.WaitFor(t, "the failure in the log", func() bool { return strings.Contains(p.stderr.String(), "menu action failed") })
	for _, l := range strings.Split(p.stderr.String(), "\n") {
		if strings.Contains(l, "menu action failed") && strings.Contains(l, token) {
			t.Errorf("the log line of the failure holds the token: %s", l)
		}
	}
}

// Quit while a search runs asks first, in a notification; the second click quits, ending every process.
// (Not parallel: it owns the bus's notification name.)
func TestQuitEndsEverything(t *testing.T) {
	needBus(t)
	d := startNotificationDaemon(t)
	fake := geminitest.New(t, geminitest.ScenarioHang)
	p := startTray(t, trayOptions{fake: fake})
	base, _ := p.waitRunning(t)
	done := searchAsync(t, base, "hangs forever")
	p.waitMenu(t, "the hanging search", func(root traytest.Item) bool { _, ok := root.Find("Running searches (1)"); return ok })
	deadline := time.Now().Add(testkit.WaitLimit)
	for len(fake.LivePIDs()) < 2 && time.Now().Before(deadline) { // the fake CLI and its grandchild
		time.Sleep(50 * time.Millisecond)
	}

	p.click(t, "Quit") // asks first: a search runs
	waitNotice(t, d, "Quit: 1 search will be cancelled", "Click Quit again within 10 seconds to quit anyway.")
	p.quit(t)
	if live := fake.LivePIDs(); len(live) > 0 {
		t.Errorf("processes still running after Quit: %v", live)
	}
	select {
	case res := <-done:
		wantCancelled(t, res, "the tray app was quit")
	case <-time.After(testkit.WaitLimit):
		t.Error("the client's search call did not end when the tray quit")
	}
}

// wantCancelled checks that res is a CANCELLED result that says why.
func wantCancelled(t *testing.T, res *mcp.CallToolResult, why string) {
	t.Helper()
	if res == nil {
		t.Fatal("the call got no result: the server cut it off")
	}
	text := testkit.Text(res)
	if !res.IsError || !strings.Contains(text, `"code": "CANCELLED"`) || !strings.Contains(text, why) {
		t.Errorf("result %s, want a CANCELLED error saying %q", text, why)
	}
}

// Stop server while a search runs asks first, in a notification (the menu closed on the click); the second click
// stops the server, and the client's call gets a CANCELLED result that says why instead of a cut connection. (Not
// parallel: it owns the bus's notification name.)
func TestStopAsksFirstAndTellsTheClientWhy(t *testing.T) {
	needBus(t)
	d := startNotificationDaemon(t)
	fake := geminitest.NewLocal(t, geminitest.ScenarioHang)
	p := startTray(t, trayOptions{fake: fake, env: fake.Env()})
	base, _ := p.waitRunning(t)
	done := searchAsync(t, base, "hangs forever")
	p.waitMenu(t, "the hanging search", func(root traytest.Item) bool { _, ok := root.Find("Running searches (1)"); return ok })

	p.click(t, "Stop server")
	waitNotice(t, d, "Stop server: 1 search will be cancelled", "Click Stop server again within 10 seconds to stop anyway.")
	root, err := p.menu.Layout()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := root.Find("Running searches (1)"); !ok || !runningRE.MatchString(root.Children[0].Label) {
		t.Fatalf("the first click stopped something:\n%s", root)
	}
	if _, ok := root.Find("Stop server"); !ok {
		t.Errorf("the label changed, though the notification asked:\n%s", root)
	}
	select {
	case res := <-done:
		t.Fatalf("the search ended on the first click: %s", testkit.Text(res))
	default:
	}

	p.click(t, "Stop server")
	select {
	case res := <-done:
		wantCancelled(t, res, "the server was stopped from the tray menu")
	case <-time.After(testkit.WaitLimit):
		t.Fatal("the client's search call did not end when the server stopped")
	}
	p.waitMenu(t, "Stopped", func(root traytest.Item) bool { return root.Children[0].Label == "Stopped" })
	testkit.WaitFor(t, "the CLI to end", func() bool { return len(fake.LivePIDs()) == 0 })
}

// Without a notification server, Stop server asks in its own label instead, seen on opening the menu again: for
// as long as the second click confirms, then the label is back and a click asks again; clicking the question
// stops the server. (Not parallel: no test may own the bus's notification name meanwhile.)
func TestStopAsksInItsLabelWithoutNotifications(t *testing.T) {
	needBus(t)
	fake := geminitest.NewLocal(t, geminitest.ScenarioHang)
	p := startTray(t, trayOptions{fake: fake, env: fake.Env()})
	base, _ := p.waitRunning(t)
	done := searchAsync(t, base, "hangs forever")
	p.waitMenu(t, "the hanging search", func(root traytest.Item) bool { _, ok := root.Find("Running searches (1)"); return ok })
	const question = "Click again to stop (cancels 1 search)"
	asking := func(root traytest.Item) bool { _, ok := root.Find(question); return ok }

	p.click(t, "Stop server")
	p.waitMenu(t, "the question in the label", asking)
	p.waitMenu(t, "the label back once the time to confirm is over", func(root traytest.Item) bool {
		_, ok := root.Find("Stop server")
		return ok && !asking(root)
	})
	p.click(t, "Stop server")
	root := p.waitMenu(t, "the question asked again", asking)
	if _, ok := root.Find("Running searches (1)"); !ok || !runningRE.MatchString(root.Children[0].Label) {
		t.Fatalf("a click after the time to confirm stopped something:\n%s", root)
	}
	select {
	case res := <-done:
		t.Fatalf("the search ended before the confirming click: %s", testkit.Text(res))
	default:
	}

	p.click(t, question)
	select {
	case res := <-done:
		wantCancelled(t, res, "the server was stopped from the tray menu")
	case <-time.After(testkit.WaitLimit):
		t.Fatal("the client's search call did not end when the server stopped")
	}
	p.waitMenu(t, "Stopped, and the label back", func(root traytest.Item) bool {
		_, ok := root.Find("Stop server")
		return root.Children[0].Label == "Stopped" && ok
	})
}

// The tray keeps a signed-in CLI warm while its server runs, and says so in the status line; Stop server and
// Quit end it, Start server starts another.
func TestWarmWorkersFollowTheServer(t *testing.T) {
	t.Parallel()
	needBus(t)
	fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
	p := startTray(t, trayOptions{fake: fake, env: append(fake.Env(), "GEMINI_WARM_WORKERS=1"), signedIn: true})
	warm := func(root traytest.Item) bool {
		return strings.HasSuffix(root.Children[0].Label, "Gemini CLI, 1 warm")
	}
	base, _ := p.waitRunning(t)
	if started := fake.Started(); len(started) != 0 {
		t.Fatalf("the server started %d CLI processes before any search", len(started))
	}

	// A CLI search that succeeds makes a warm worker, which the status line counts.
	if res := <-searchAsync(t, base, "warm me up"); res == nil || res.IsError {
		t.Fatalf("search: %+v", res)
	}
	p.waitMenu(t, "one warm CLI in the status line", warm)

	p.click(t, "Stop server")
	p.waitMenu(t, "Stopped", func(root traytest.Item) bool { return root.Children[0].Label == "Stopped" })
	testkit.WaitFor(t, "the warm CLI to end", func() bool { return len(fake.LivePIDs()) == 0 })

	// Started again, the server keeps nothing warm until a search comes again.
	p.click(t, "Start server")
	_, root := p.waitRunning(t)
	if warm(root) || len(fake.LivePIDs()) != 0 {
		t.Errorf("after Start server: %q, %d CLI processes; want none until a search", root.Children[0].Label, len(fake.LivePIDs()))
	}

	p.quit(t)
	if live := fake.LivePIDs(); len(live) > 0 {
		t.Errorf("processes still running after Quit: %v", live)
	}
}

func TestPortInUseThenChangedInDotenv(t *testing.T) {
	t.Parallel()
	needBus(t)
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	_, busyPort, _ := net.SplitHostPort(busy.Addr().String())
	p := startTray(t, trayOptions{args: []string{}, dotenv: "# chosen by hand\nMCP_SERVER_PORT=" + busyPort + "\n"})

	root := p.waitMenu(t, "the port-in-use status", func(root traytest.Item) bool {
		return strings.HasPrefix(root.Children[0].Label, "Not running: port "+busyPort+" is already in use")
	})
	wantEnabled(t, root, map[string]bool{"Start server": true, "Stop server": false, "Restart": false, "Settings…": true})
	p.waitIcon(t, assets.Error)

	// The pages stay reachable on a port of their own, so the port can be changed in Settings.
	pagesBase, token := p.pages(t)
	if pagesBase == "http://127.0.0.1:"+busyPort {
		t.Errorf("the settings page is said to be on the busy port")
	}
	if page := statusPage(t, pagesBase, token); !strings.Contains(page, "already in use") {
		t.Errorf("the status page does not say why the server is down:\n%s", page)
	}

	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, freePort, _ := net.SplitHostPort(free.Addr().String())
	free.Close()
	if err := os.WriteFile(filepath.Join(p.configDir, ".env"), []byte("# chosen by hand\nMCP_SERVER_PORT="+freePort+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	base, _ := p.waitRunning(t)
	if want := "http://127.0.0.1:" + freePort; base != want {
		t.Errorf("running on %s, want %s", base, want)
	}
	// The server serves the pages again: their own port is closed.
	testkit.WaitFor(t, "the pages' own port to close", func() bool {
		c, err := net.Dial("tcp", strings.TrimPrefix(pagesBase, "http://"))
		if err == nil {
			c.Close()
		}
		return err != nil
	})
	if page := statusPage(t, base, token); !strings.Contains(page, "Running on "+base+"/mcp") {
		t.Errorf("the status page on %s:\n%s", base, page)
	}
}

// Connect and Disconnect change the client's file and say so in a notification and in the client's line; Start at
// login writes the autostart entry. (Not parallel: it owns the bus's notification name.)
func TestConnectClientAndStartAtLogin(t *testing.T) {
	needBus(t)
	d := startNotificationDaemon(t)
	p := startTray(t, trayOptions{})
	base, _ := p.waitRunning(t)

	cursor := filepath.Join(p.home, ".cursor", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(cursor), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cursor, []byte(`{"mcpServers":{"other":{"command":"other-server"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	p.click(t, "Connect") // Cursor's, the first
	waitNotice(t, d, "Connected Cursor", "Restart Cursor to load the change.")
	p.waitMenu(t, "the connected state", func(root traytest.Item) bool { _, ok := root.Find("Cursor · connected"); return ok })
	data, err := os.ReadFile(cursor)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"other"`, `"other-server"`, `"gemini-search"`, `"url": "` + base + `/mcp"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("%s lacks %s:\n%s", cursor, want, data)
		}
	}
	if backups, _ := filepath.Glob(cursor + ".*.bak"); len(backups) != 1 {
		t.Errorf("backups %v, want one", backups)
	}
	p.click(t, "Disconnect") // Cursor's, the first
	p.waitMenu(t, "the disconnect", func(root traytest.Item) bool { _, ok := root.Find("Cursor · not connected"); return ok })
	if data, _ := os.ReadFile(cursor); strings.Contains(string(data), `"gemini-search"`) || !strings.Contains(string(data), `"other-server"`) {
		t.Errorf("%s after Disconnect:\n%s", cursor, data)
	}

	desktopFile := filepath.Join(p.xdgConfig, "autostart", "gemini-search-tray.desktop")
	p.click(t, "Start at login")
	p.waitMenu(t, "Start at login checked", func(root traytest.Item) bool { it, ok := root.Find("Start at login"); return ok && it.Checked })
	data, err = os.ReadFile(desktopFile)
	if err != nil || !strings.Contains(string(data), "Exec="+binPath) {
		t.Errorf("%s: %q (%v), want an Exec line for %s", desktopFile, data, err, binPath)
	}
	p.click(t, "Start at login")
	p.waitMenu(t, "Start at login unchecked", func(root traytest.Item) bool { it, ok := root.Find("Start at login"); return ok && !it.Checked })
	if _, err := os.Stat(desktopFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s still there after unchecking (%v)", desktopFile, err)
	}
}

// waitNotice waits for a notification titled title whose body holds body: the outcome of a click, shown where the
// user looks once the menu has closed.
func waitNotice(t *testing.T, d *notificationDaemon, title, body string) {
	t.Helper()
	testkit.WaitFor(t, "the notification "+title, func() bool {
		for _, n := range d.list() {
			if n.summary == title && strings.Contains(n.body, body) {
				return true
			}
		}
		return false
	})
}
