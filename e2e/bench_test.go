//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	mg "github.com/gemini-search-mcp/gemini-search-mcp/internal/mockgemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools/parts"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tray/traytest"
)

// BenchmarkTable measures the server as its users meet it and fills the one table `make bench` prints
// (printBenchTable, at the end of the run), each figure beside its target (issue 27): the built binaries' memory
// when idle and the time to answer initialize; a search on the Gemini CLI backend (the real CLI of the e2e cache)
// cold and warm, to the model's first request, and the CPU it costs; the two ways of keeping the CLI warm side by
// side (an --acp worker, pre-spawned one-shot processes); the API backend's own share of a search; what a report's
// length costs, up to a cache hit on 5 MB; 100 calls at once over stdio and HTTP. Everything runs against the mock
// Gemini API on 127.0.0.1, offline. Figures are medians of BENCH_RUNS runs (10 unless set) after one to warm up;
// nothing here asserts a time: a search that does not produce its report fails the benchmark.
//
// It measures once, whatever b.N: make bench runs it with -benchtime 1x.
func BenchmarkTable(b *testing.B) {
	runs := benchRuns()
	for b.Loop() {
		benchStart(b, runs)
		benchCLI(b, runs)
		benchWarmModes(b, runs)
		benchAPI(b, runs)
		benchLongReports(b, runs)
		benchConcurrent(b)
	}
}

// The table's sections, in the order it prints them.
const (
	sectionStart   = "start and idle memory"
	sectionCLI     = "search on the Gemini CLI (real CLI, mock API)"
	sectionACP     = "warm CLI in the runner: an --acp worker vs pre-spawned one-shot"
	sectionAPI     = "search on the Gemini API backend (mock API)"
	sectionReports = "long reports"
	sectionLoad    = "100 calls at once"
)

var sections = []string{sectionStart, sectionCLI, sectionACP, sectionAPI, sectionReports, sectionLoad}

// benchRow is one line of the table: what was measured, its target ("" when none was set: the figure is there to
// compare) and the measurement, in words.
type benchRow struct{ section, what, target, measured string }

var benchTable struct {
	mu   sync.Mutex
	rows []benchRow
}

// addBenchRow adds a row to section; the table keeps the rows of a section in the order they came. Other benchmarks
// of this package may add rows too, when make bench runs them.
func addBenchRow(section, what, target, measured string) {
	benchTable.mu.Lock()
	defer benchTable.mu.Unlock()
	benchTable.rows = append(benchTable.rows, benchRow{section, what, target, measured})
}

// printBenchTable prints the table, if a benchmark filled it.
func printBenchTable() {
	benchTable.mu.Lock()
	defer benchTable.mu.Unlock()
	if len(benchTable.rows) == 0 {
		return
	}
	fmt.Printf("\nmake bench: the built server against the mock Gemini API on 127.0.0.1 (median of %d runs; %d CPUs)\n",
		benchRuns(), runtime.NumCPU())
	var out bytes.Buffer
	w := tabwriter.NewWriter(&out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "\tmeasured\ttarget")
	for _, section := range sections {
		fmt.Fprintf(w, "%s\t\t\n", section)
		for _, r := range benchTable.rows {
			if r.section == section {
				fmt.Fprintf(w, "  %s\t%s\t%s\n", r.what, r.measured, cmpOr(r.target, "-"))
			}
		}
	}
	w.Flush()
	for line := range strings.Lines(out.String()) {
		fmt.Println(strings.TrimRight(line, " \n")) // a section's line has empty cells
	}
}

// benchRuns is BENCH_RUNS, else 10.
func benchRuns() int {
	if n, err := strconv.Atoi(os.Getenv("BENCH_RUNS")); err == nil && n > 0 {
		return n
	}
	return 10
}

// idleSettle is how long a server is left alone before its memory is read: its start-up is over by then, and what
// it holds is what it holds while it waits for a client.
const idleSettle = 2 * time.Second

// benchStart measures the built binaries at rest: the time from spawning the server to its answer to initialize
// over stdio, and the memory of each, with nothing searched, then (in benchCLI) with a warm CLI.
func benchStart(b *testing.B, runs int) {
	s := newScenario(b, "bench start")
	apiEnv := []string{"GEMINI_BACKEND=api"}
	cliEnv := []string{"GEMINI_BACKEND=cli", "GEMINI_WARM_WORKERS="} // blank: the default warm policy

	var inits []time.Duration
	for range runs + 1 {
		srv, took := spawnStdio(b, s, apiEnv...)
		srv.stop()
		inits = append(inits, took)
	}
	addBenchRow(sectionStart, "initialize over stdio, from spawn to answer", "≤ 20 ms", ms(median(inits[1:])))

	for _, server := range []struct {
		what string
		env  []string
	}{{"API backend", apiEnv}, {"CLI backend", cliEnv}} {
		srv, _ := spawnStdio(b, s, server.env...)
		time.Sleep(idleSettle)
		addBenchRow(sectionStart, "idle RSS, headless over stdio, "+server.what+", after initialize", "≤ 20 MB",
			memoryOf(b, srv.cmd.Process.Pid).String())
		addBenchRow(sectionStart, "  Gemini CLI processes it started, "+server.what, "0",
			strconv.Itoa(len(descendants(srv.cmd.Process.Pid))))
		srv.stop()
	}

	// Once used, the server holds what its first search opened: the research library (SQLite) above all.
	s.mock.Handle(mg.KindSearch, mg.Always(apiRounds[0].reply()))
	used, _ := spawnStdio(b, s, apiEnv...)
	used.request(b, "tools/call", map[string]any{"name": "search", "arguments": map[string]any{"query": "idle after use"}})
	for _, list := range []string{"tools/list", "resources/list"} {
		used.request(b, list, nil)
	}
	time.Sleep(idleSettle)
	addBenchRow(sectionStart, "idle RSS, headless over stdio, API backend, after a search, tools/list, resources/list", "",
		memoryOf(b, used.cmd.Process.Pid).String())
	used.stop()

	srv := s.startHTTP(apiEnv...)
	connect(b, srv.url)
	time.Sleep(idleSettle)
	addBenchRow(sectionStart, "idle RSS, headless over HTTP (--http), API backend, a session open", "≤ 20 MB",
		memoryOf(b, srv.cmd.Process.Pid).String())

	what, rss := trayRSS(b, s)
	addBenchRow(sectionStart, what, "≤ 40 MB", rss)
}

// stdioServer is the server as a stdio client spawns it, driven by hand: JSON-RPC lines on its pipes, so that
// nothing of a client library's own start is timed.
type stdioServer struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	sent int // the last request's id
}

// request sends a JSON-RPC request of method with params and returns its answer's line.
func (s *stdioServer) request(b *testing.B, method string, params any) string {
	b.Helper()
	s.sent++
	req, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.sent, "method": method, "params": params})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.in.Write(append(req, '\n')); err != nil {
		b.Fatalf("%s over stdio: %v", method, err)
	}
	id := fmt.Sprintf(`"id":%d,`, s.sent)
	for {
		line, err := s.out.ReadString('\n')
		if err != nil {
			b.Fatalf("%s over stdio: no answer: %v", method, err)
		}
		if strings.Contains(line, id) {
			var answer struct {
				Error  json.RawMessage `json:"error"`
				Result struct {
					IsError bool `json:"isError"`
				} `json:"result"`
			}
			if err := json.Unmarshal([]byte(line), &answer); err != nil || answer.Error != nil || answer.Result.IsError {
				b.Fatalf("%s over stdio: %s (%v)", method, line, err)
			}
			return line
		}
	}
}

// spawnStdio starts the server over stdio with the scenario's environment and extra, sends initialize and the
// initialized notification, and returns it with the time from spawning it to the answer.
func spawnStdio(b *testing.B, s *scenario, extra ...string) (*stdioServer, time.Duration) {
	b.Helper()
	cmd := exec.Command(serverBin)
	cmd.Env, cmd.Dir, cmd.Stderr = s.env(extra...), s.root, s.newLog("server")
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` +
		mcp.LATEST_PROTOCOL_VERSION + `","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}` + "\n"
	began := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	srv := &stdioServer{cmd: cmd, in: in, out: bufio.NewReader(out), sent: 1}
	b.Cleanup(srv.stop)
	if _, err := io.WriteString(in, initialize); err != nil {
		b.Fatal(err)
	}
	answer, err := srv.out.ReadString('\n')
	took := time.Since(began)
	if err != nil || !strings.Contains(answer, `"serverInfo"`) {
		b.Fatalf("initialize over stdio: %q, %v", answer, err)
	}
	if _, err := io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		b.Fatal(err)
	}
	return srv, took
}

// stop ends the server as a client does: it closes its stdin, then kills what is left.
func (s *stdioServer) stop() {
	if s.cmd.ProcessState != nil {
		return
	}
	s.in.Close()
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(hangLimit):
		_ = s.cmd.Process.Kill()
		<-done
	}
}

// trayRSS starts the tray (E2E_TRAY, else a build of ../cmd/tray) with its icon on a private D-Bus session bus, or
// with --headless when there is no dbus-daemon, and returns its row's name and its idle memory.
func trayRSS(b *testing.B, s *scenario) (what, rss string) {
	b.Helper()
	tray := os.Getenv("E2E_TRAY")
	if tray == "" {
		tray = filepath.Join(b.TempDir(), "gemini-search-tray")
		if out, err := exec.Command("go", "build", "-o", tray, "../cmd/tray").CombinedOutput(); err != nil {
			b.Fatalf("build the tray: %v\n%s", err, out)
		}
	}
	// The first-run page was opened before: this start opens no browser.
	state := filepath.Join(s.home, ".local", "state", "gemini-search-mcp")
	if err := os.MkdirAll(state, 0o700); err != nil {
		b.Fatal(err)
	}
	writeFile(b, filepath.Join(state, "first-run-page-opened"), "")
	args, env := []string{"--port", "0"}, []string{"GEMINI_BACKEND=api"}
	what = "idle RSS, tray with its icon on a private D-Bus session bus, API backend"
	if bus, err := traytest.StartBus(); err == nil {
		defer bus.Close()
		env = append(env, "DBUS_SESSION_BUS_ADDRESS="+bus.Address)
	} else {
		args = append(args, "--headless")
		what = fmt.Sprintf("idle RSS, tray --headless (no icon: %v), API backend", err)
	}
	cmd := exec.Command(tray, args...)
	cmd.Env, cmd.Dir, cmd.Stderr = s.env(env...), s.root, s.newLog("tray")
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}()
	time.Sleep(2 * idleSettle) // it also draws its menu and icon
	return what, memoryOf(b, cmd.Process.Pid).String()
}

// memory is what a process holds resident: all of it, the pages of files it maps (its binary's, mostly) and its
// own (heap, stacks).
type memory struct{ rss, file, anon int64 }

func (m memory) String() string {
	return fmt.Sprintf("%.1f MB (file %.1f, anon %.1f)", mb(m.rss), mb(m.file), mb(m.anon))
}

func mb(n int64) float64 { return float64(n) / (1 << 20) }

// memoryOf reads pid's resident memory from /proc/PID/status (Linux).
func memoryOf(b *testing.B, pid int) memory {
	b.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatalf("read the memory of %d: %v", pid, err)
	}
	var m memory
	for line := range strings.Lines(string(status)) {
		name, value, _ := strings.Cut(line, ":")
		kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		switch name {
		case "VmRSS":
			m.rss = kb << 10
		case "RssFile":
			m.file = kb << 10
		case "RssAnon":
			m.anon = kb << 10
		}
	}
	return m
}

// descendants are the processes below pid (Linux /proc).
func descendants(pid int) []int {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if fields := statFields(child); len(fields) > 1 {
			parent, _ := strconv.Atoi(fields[1])
			children[parent] = append(children[parent], child)
		}
	}
	var below []int
	for todo := children[pid]; len(todo) > 0; todo = todo[1:] {
		below = append(below, todo[0])
		todo = append(todo, children[todo[0]]...)
	}
	return below
}

// statFields are the fields of /proc/PID/stat after the command's name: state, ppid, …; nil when pid is gone.
func statFields(pid int) []string {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	i := strings.LastIndexByte(string(stat), ')')
	if err != nil || i < 0 || i+2 >= len(stat) {
		return nil
	}
	return strings.Fields(string(stat[i+2:]))
}

// treeRSS is the resident memory of pid and of every process below it, in bytes.
func treeRSS(b *testing.B, pid int) int64 {
	total := memoryOf(b, pid).rss
	for _, p := range descendants(pid) {
		if status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p)); err == nil {
			for line := range strings.Lines(string(status)) {
				if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
					kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
					total += kb << 10
				}
			}
		}
	}
	return total
}

// treeCPU is the CPU time pid and the processes below it used so far: their own, and that of their children they
// waited for (a one-shot CLI's, once the server reaped it, stays in the server's count).
func treeCPU(pid int) time.Duration {
	var ticks int64
	for _, p := range append([]int{pid}, descendants(pid)...) {
		fields := statFields(p)
		if len(fields) < 15 {
			continue
		}
		for _, f := range fields[11:15] { // utime stime cutime cstime
			n, _ := strconv.ParseInt(f, 10, 64)
			ticks += n
		}
	}
	return time.Duration(ticks) * time.Second / 100 // USER_HZ
}

// benchCLI times searches on the Gemini CLI backend, through the built server over HTTP: cold (no CLI started
// ahead, GEMINI_WARM_WORKERS=0) and warm (the default policy, after one search started it), whatever warm mechanism
// the server uses. The model is pinned, so the CLI asks no model router first. Before each warm search it waits
// until the server offers a warm CLI, then for a pause between two searches as a user's; CPU is the server's and
// its processes' over all the runs, the pauses included, divided by the searches.
func benchCLI(b *testing.B, runs int) {
	s := newScenario(b, "bench cli")
	benchScript(s)
	for _, mode := range []struct {
		name string
		warm bool
	}{{"cold", false}, {"warm", true}} {
		warmth := map[bool]string{false: "GEMINI_WARM_WORKERS=0", true: "GEMINI_WARM_WORKERS="}[mode.warm]
		srv := s.startHTTP("GEMINI_BACKEND=cli", "GEMINI_MODEL=gemini-2.5-flash", warmth,
			"GEMINI_SEARCH_CONFIG_DIR="+filepath.Join(s.root, "config-"+mode.name))
		c, first := connect(b, srv.url)
		pid := srv.cmd.Process.Pid
		timeSearch(b, s, c, first, "cli", mode.name+"-warm-up")
		offered := true
		ready := func() {
			if mode.warm && !waitFor(time.Minute, func() bool { return warmWorkers(b, srv.url) >= 1 }) {
				offered = false
			}
			time.Sleep(idleSettle)
		}
		ready()
		var times []searchTimes
		cpu := treeCPU(pid)
		for i := range runs {
			times = append(times, timeSearch(b, s, c, first, "cli", fmt.Sprintf("%s-%d", mode.name, i)))
			ready()
		}
		perSearch := (treeCPU(pid) - cpu) / time.Duration(runs)
		t := medianTimes(times)
		target := map[bool][3]string{false: {"", "", ""}, true: {"≤ 60 ms", "≤ 0.2 s", ""}}[mode.warm]
		name := mode.name
		if mode.warm && !offered {
			name += " (no warm CLI was offered within a minute)"
		}
		addBenchRow(sectionCLI, name+": tools/call to the model's first request", target[0], ms(t.firstRequest))
		addBenchRow(sectionCLI, name+": CPU per search (server and its CLIs)", target[1], fmt.Sprintf("%.2f s", perSearch.Seconds()))
		addBenchRow(sectionCLI, name+": first search reported / result", "", ms(t.ttfb)+" / "+ms(t.total))
		if mode.warm {
			addBenchRow(sectionStart, "idle RSS, server and its CLIs, a warm CLI offered after a search", "",
				fmt.Sprintf("%.1f MB (%d processes)", mb(treeRSS(b, pid)), 1+len(descendants(pid))))
		}
	}
}

// benchWarmModes puts the two ways of keeping the CLI warm side by side, each in the server's runner with the real
// CLI (measureWarmCLI, e2e/acp_bench_test.go): a long-lived --acp worker and pre-spawned one-shot processes.
func benchWarmModes(b *testing.B, runs int) {
	for _, f := range measureWarmCLI(b, runs) {
		addBenchRow(sectionACP, fmt.Sprintf("%s: prompt to the model's first request", f.Mode),
			fmt.Sprintf("≤ %d ms", warmFirstRequestTarget.Milliseconds()), ms(f.FirstRequest))
		addBenchRow(sectionACP, fmt.Sprintf("%s: CPU per search (its CLI processes)", f.Mode),
			fmt.Sprintf("≤ %.1f s", warmCPUTarget.Seconds()), fmt.Sprintf("%.3f s", f.CPU.Seconds()))
	}
}

// benchAPI times the API backend's own share of a search: the mock answers at once, so what is left is the
// server's and the SDK's.
func benchAPI(b *testing.B, runs int) {
	s := newScenario(b, "bench api")
	rep := apiRounds[0].reply()
	s.mock.Handle(mg.KindSearch, mg.Always(rep))
	srv := s.startHTTP("GEMINI_BACKEND=api", "GEMINI_MODEL=gemini-2.5-flash")
	c, first := connect(b, srv.url)
	var times []searchTimes
	for i := range runs + 1 {
		times = append(times, timeSearch(b, s, c, first, "api", fmt.Sprintf("api-%d", i)))
	}
	t := medianTimes(times[1:])
	addBenchRow(sectionAPI, "tools/call to the first API request / the result, mock answering at once", "",
		ms(t.firstRequest)+" / "+ms(t.total))
}

// benchLongReports measures what a report's length costs: cutting it into parts for fetch_chunk, in process, and
// over stdio the second of two identical searches (the cache's answer, cut into parts and encoded), for reports
// of 1 KB, 100 KB and 5 MB.
func benchLongReports(b *testing.B, runs int) {
	sizes := []struct {
		name  string
		bytes int
	}{{"1 KB", 1_000}, {"100 KB", 100_000}, {"5 MB", 5_000_000}}

	var cuts []string
	for _, size := range sizes {
		report := testkit.LongReport(size.bytes)
		// As many times as 100 ms hold, at least runs: a 1 KB report takes microseconds. (testing.Benchmark would
		// wait for this benchmark to end.)
		store, n, began := parts.NewStore(), 0, time.Now()
		for ; n < runs || time.Since(began) < 100*time.Millisecond; n++ {
			store.Put(report, parts.Split(report, 20_000))
		}
		perOp := time.Since(began) / time.Duration(n)
		cuts = append(cuts, fmt.Sprintf("%.2f", float64(perOp.Nanoseconds())/float64(len(report))))
	}
	addBenchRow(sectionReports, "cut into parts and kept, in process: ns per byte at 1 KB / 100 KB / 5 MB",
		"linear: the same", strings.Join(cuts, " / "))

	s := newScenario(b, "bench long reports")
	var routes []mg.Route
	for _, size := range sizes {
		routes = append(routes, mg.Route{Contains: "report of " + size.name,
			Respond: mg.Always(mg.Grounded(testkit.FencedReport(testkit.LongReport(size.bytes)), goSources...))})
	}
	s.mock.Handle(mg.KindSearch, mg.ByPrompt(unexpected, routes...))
	c := stdioClient(b, s, "GEMINI_BACKEND=api", "GEMINI_MODEL=gemini-2.5-flash")
	var hits, firsts []string
	for _, size := range sizes {
		var misses, second []time.Duration
		for i := range runs + 1 {
			query := fmt.Sprintf("a report of %s, #%d", size.name, i)
			began := time.Now()
			benchSearch(b, c, query, false)
			between := time.Now()
			benchSearch(b, c, query, true)
			misses, second = append(misses, between.Sub(began)), append(second, time.Since(between))
		}
		hits, firsts = append(hits, ms(median(second[1:]))), append(firsts, ms(median(misses[1:])))
		if size.bytes == 5_000_000 {
			addBenchRow(sectionReports, "search answered from the cache over stdio, 5 MB report", "≤ 20 ms", ms(median(second[1:])))
		}
	}
	addBenchRow(sectionReports, "search answered from the cache over stdio, 1 KB / 100 KB / 5 MB", "", strings.Join(hits, " / "))
	addBenchRow(sectionReports, "the first search of it (the mock's answer, kept, cut, encoded), the same", "",
		strings.Join(firsts, " / "))
}

// stdioClient starts the server over stdio through mcp-go's client and initializes it.
func stdioClient(b *testing.B, s *scenario, extra ...string) *client.Client {
	b.Helper()
	c, err := client.NewStdioMCPClientWithOptions(serverBin, s.env(extra...), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "e2e-bench", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		b.Fatalf("initialize over stdio: %v", err)
	}
	return c
}

// benchSearch calls search with query; the call must succeed, and come from the cache when cached says so.
func benchSearch(b *testing.B, c *client.Client, query string, cached bool) {
	b.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = "search"
	req.Params.Arguments = map[string]any{"query": query}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := c.CallTool(ctx, req)
	if err != nil || res.IsError {
		b.Fatalf("search %q: %v %+v", query, err, res)
	}
	var body searchBody
	if text, ok := res.Content[0].(mcp.TextContent); ok {
		_ = json.Unmarshal([]byte(text.Text), &body)
	}
	if !body.Success || body.Metadata.Cached != cached {
		b.Fatalf("search %q: success %v, cached %v, want cached %v", query, body.Success, body.Metadata.Cached, cached)
	}
}

// benchConcurrent makes 100 calls at once to the server on the API backend, over HTTP (one session) and over
// stdio, each answered by the mock after a second, GEMINI_MAX_CONCURRENT at a time: the ideal is 10 s.
func benchConcurrent(b *testing.B) {
	const calls, limit, each = 100, 10, time.Second
	s := newScenario(b, "bench concurrent")
	rep := apiRounds[0].reply()
	rep.Delay = each
	s.mock.Handle(mg.KindSearch, mg.Always(rep))
	env := []string{"GEMINI_BACKEND=api", "GEMINI_MODEL=gemini-2.5-flash", "GEMINI_CACHE_TTL=0",
		"GEMINI_MAX_CONCURRENT=" + strconv.Itoa(limit), "GEMINI_QUEUE_TIMEOUT=0"}
	ideal := time.Duration((calls+limit-1)/limit) * each
	var serial atomic.Int64
	for _, transport := range []string{"stdio", "HTTP"} {
		var c *client.Client
		if transport == "stdio" {
			c = stdioClient(b, s, env...)
		} else {
			c, _ = connect(b, s.startHTTP(env...).url)
		}
		began := time.Now()
		var wg sync.WaitGroup
		var failed atomic.Int64
		for range calls {
			wg.Go(func() {
				req := mcp.CallToolRequest{}
				req.Params.Name = "search"
				req.Params.Arguments = map[string]any{"query": fmt.Sprintf("%s #%d", question, serial.Add(1))}
				if res, err := c.CallTool(context.Background(), req); err != nil || res.IsError {
					failed.Add(1)
				}
			})
		}
		wg.Wait()
		if failed.Load() > 0 {
			b.Fatalf("%s: %d of %d calls failed", transport, failed.Load(), calls)
		}
		addBenchRow(sectionLoad, fmt.Sprintf("over %s, %d at a time, each answered after %v", transport, limit, each),
			fmt.Sprintf("ideal %.0f s", ideal.Seconds()), fmt.Sprintf("%.1f s", time.Since(began).Seconds()))
	}
}

// benchScript answers a search the same way on both backends: the CLI's agent calls google_web_search (grounded
// with goSources), then answers the report; the API answers the same report grounded on the same sources, its
// search query announced with the first chunk. Both reports stream in 3 chunks 30 ms apart, as a real answer
// takes its time: mcp-go v1.2.1's HTTP transport can drop a notification sent in the same instant as the result,
// which an instant answer makes the API's first search.
func benchScript(s *scenario) {
	round := apiRounds[0]
	api := round.reply()
	cli := mg.Text(api.Text)
	for _, rep := range []*mg.Reply{&api, &cli} {
		rep.Chunks, rep.ChunkDelay = 3, 30*time.Millisecond
	}
	s.mock.Handle(mg.KindSearch, func(r *mg.Request) mg.Reply {
		if fromSDK(*r) {
			return api
		}
		return mg.Grounded(strings.Join([]string{round.cited[0].Text, round.cited[1].Text}, " "), round.sources...)
	})
	s.mock.Handle(mg.KindChat, mg.Turns(mg.Reply{Calls: []mg.FunctionCall{searchCall(round.query)}}, cli))
}

// median is the middle value of d (the upper one of an even count).
func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	d = slices.Clone(d)
	slices.Sort(d)
	return d[len(d)/2]
}

// medianTimes is the median of each of the times.
func medianTimes(times []searchTimes) searchTimes {
	var firstRequests, ttfbs, totals []time.Duration
	for _, t := range times {
		firstRequests, ttfbs, totals = append(firstRequests, t.firstRequest), append(ttfbs, t.ttfb), append(totals, t.total)
	}
	return searchTimes{firstRequest: median(firstRequests), ttfb: median(ttfbs), total: median(totals)}
}

// firstSearch is when the first "searching: …" progress notification of the current call arrived.
type firstSearch struct {
	mu    sync.Mutex
	token string
	at    time.Time
}

// expect starts timing the call with this progress token.
func (f *firstSearch) expect(token string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.token, f.at = token, time.Time{}
}

// seen is the session's notification handler.
func (f *firstSearch) seen(note mcp.JSONRPCNotification) {
	now := time.Now()
	if note.Method != "notifications/progress" {
		return
	}
	msg, _ := note.Params.AdditionalFields["message"].(string)
	token := fmt.Sprint(note.Params.AdditionalFields["progressToken"])
	f.mu.Lock()
	defer f.mu.Unlock()
	if token == f.token && f.at.IsZero() && strings.HasPrefix(msg, "searching: ") {
		f.at = now
	}
}

// when is the arrival of the current call's first search; zero while there was none.
func (f *firstSearch) when() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.at
}

// connect opens an MCP session with the server at url.
func connect(b *testing.B, url string) (*client.Client, *firstSearch) {
	b.Helper()
	c, err := testkit.HTTPClient(url)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	first := &firstSearch{}
	c.OnNotification(first.seen)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "e2e-bench", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		b.Fatalf("initialize %s: %v", url, err)
	}
	return c, first
}

// searchTimes are the times from tools/call to the backend's first request to the API, to the first search the
// server reported (zero when it reported none) and to the result.
type searchTimes struct{ firstRequest, ttfb, total time.Duration }

// timeSearch calls search once, checks that the backend produced the report, and times it.
func timeSearch(b *testing.B, s *scenario, c *client.Client, first *firstSearch, backend, token string) searchTimes {
	b.Helper()
	seen := len(s.mock.Requests())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = "search"
	req.Params.Arguments = map[string]any{"query": question, "fresh": true} // every run researches
	req.Params.Meta = &mcp.Meta{ProgressToken: token}
	first.expect(token)
	began := time.Now()
	res, err := c.CallTool(ctx, req)
	total := time.Since(began)
	if err != nil {
		b.Fatalf("%s: tools/call search: %v", backend, err)
	}
	var body searchBody
	if len(res.Content) > 0 {
		if text, ok := res.Content[0].(mcp.TextContent); ok {
			_ = json.Unmarshal([]byte(text.Text), &body)
		}
	}
	if res.IsError || !body.Success || body.Metadata.Backend != backend || !strings.Contains(body.Report, apiRounds[0].cited[0].Text) {
		b.Fatalf("%s: the search did not produce the report on its backend: isError=%v %+v", backend, res.IsError, body)
	}
	t := searchTimes{firstRequest: s.mock.Requests()[seen].Time.Sub(began), total: total}
	if at := first.when(); !at.IsZero() {
		t.ttfb = at.Sub(began)
	}
	return t
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
