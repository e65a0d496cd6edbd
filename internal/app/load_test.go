package app

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

// loadSize is how much TestLoadLeavesNothingBehind sends: a little in make test, the full load under make load
// (LOAD=full).
func loadSize() (calls, clients, sessions int) {
	if os.Getenv("LOAD") == "full" {
		return 1000, 20, 5000
	}
	return 60, 6, 300
}

// footprint is what the process holds that a leak would grow.
type footprint struct {
	goroutines, fds int
	heap, rss       uint64 // bytes
}

func measure() footprint {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	fds, _ := os.ReadDir("/proc/self/fd")
	return footprint{goroutines: runtime.NumGoroutine(), fds: len(fds), heap: m.HeapAlloc, rss: rss()}
}

// rss is the process's resident memory (Linux); 0 where it cannot be read.
func rss() uint64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb uint64
			fmt.Sscan(rest, &kb)
			return kb << 10
		}
	}
	return 0
}

// The server under load, as users load it: calls from many HTTP clients at once, and many short sessions whose
// clients close without DELETE, as the TypeScript SDK's close() does. Nothing is lost (every call gets its report),
// a new client is served after them all, and once the clients are gone the goroutines, open files and heap are back
// near where they were: sessions, their streams and their calls leave nothing behind but the abandoned sessions the
// server keeps until they are idle for 30 minutes, or make room for new ones (at most 1,000). Once the stores'
// sweep has run past their times, as its ticks do when no traffic comes, the heap is back at the baseline: what
// the stores keep is bounded and goes. make load runs it with 1,000 calls from 20 clients and 5,000 sessions and
// prints the latencies.
func TestLoadLeavesNothingBehind(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	calls, clients, sessions := loadSize()
	fake := geminitest.New(t, geminitest.ScenarioOK)
	a, err := New(load(t, t.TempDir(), map[string]string{"GEMINI_CLI_PATH": fake.Path, "GEMINI_BACKEND": "cli",
		"GEMINI_API_KEY": "AIza-load-test-key", "GEMINI_MAX_CONCURRENT": "8", "GEMINI_QUEUE_TIMEOUT": "0",
		"GEMINI_CACHE_TTL": "0", "GEMINI_WARM_WORKERS": "0"}), Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- a.ServeOn(ctx, ln) }()
	defer func() {
		stop()
		if err := <-served; err != nil {
			t.Error(err)
		}
	}()
	url := "http://" + ln.Addr().String() + "/mcp"

	// One session and one search first, so that what is made once (the workspace, pools) is in the baseline.
	connect(t, url).search(t, "warm-up")
	settle(t, nil, 0)
	before := measure()

	start := time.Now()
	latencies := make([][]time.Duration, clients)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			mc := connect(t, url)
			for i := range calls / clients {
				began := time.Now()
				mc.search(t, fmt.Sprintf("load %d-%d", c, i))
				latencies[c] = append(latencies[c], time.Since(began))
			}
			mc.close(t)
		})
	}
	wg.Wait()
	callsTook := time.Since(start)

	start = time.Now()
	sessionClient := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 10}}
	for range 10 {
		wg.Go(func() {
			for range sessions / 10 {
				shortSession(t, sessionClient, url)
			}
		})
	}
	wg.Wait()
	sessionsTook := time.Since(start)
	sessionClient.CloseIdleConnections()
	late := connect(t, url) // more sessions were abandoned than the server keeps: it still takes a new one
	late.search(t, "after the sessions")
	late.close(t)

	after := settle(t, &before, slackHeap)
	// The sweep as its ticks run it: once now, finding what the load left in the stores, and once an hour later
	// with no traffic in between, when the abandoned sessions, their streams' events and what the stores keep are
	// past their time; it hands the memory back to the OS then.
	a.sweeps.sweep(time.Now())
	a.sweeps.sweep(time.Now().Add(time.Hour))
	swept := settle(t, &before, slackSwept)
	all := slices.Concat(latencies...)
	slices.Sort(all)
	if len(all) != calls/clients*clients {
		t.Fatalf("%d calls answered, want %d", len(all), calls/clients*clients)
	}
	pct := func(p int) time.Duration { return all[min(len(all)*p/100, len(all)-1)].Round(time.Millisecond) }
	t.Logf("\n%-34s %s\n%-34s %v (%.0f calls/s)\n%-34s p50 %v, p99 %v, max %v\n%-34s %v (%.0f sessions/s)\n"+
		"%-34s %d → %d\n%-34s %d → %d\n%-34s %.1f → %.1f → %.1f MiB (swept)\n%-34s %.1f → %.1f → %.1f MiB (swept)",
		"load", fmt.Sprintf("%d searches from %d clients (fake CLI, 8 at once), %d sessions", len(all), clients, sessions),
		"searches took", callsTook.Round(time.Millisecond), float64(len(all))/callsTook.Seconds(),
		"search latency", pct(50), pct(99), all[len(all)-1].Round(time.Millisecond),
		"sessions (initialize, ping, leave)", sessionsTook.Round(time.Millisecond), float64(sessions)/sessionsTook.Seconds(),
		"goroutines", before.goroutines, after.goroutines,
		"open files", before.fds, after.fds,
		"heap", mib(before.heap), mib(after.heap), mib(swept.heap),
		"resident memory", mib(before.rss), mib(after.rss), mib(swept.rss))
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// Near the baseline: a few goroutines and files may be in flux (a connection closing), and the heap holds what the
// runtime keeps (pools, caches) and the abandoned sessions the server keeps, at most 1,000 of about 10 KB each,
// with their streams' events; once swept, none of them.
const (
	slackGoroutines = 10
	slackFDs        = 5
	slackHeap       = 24 << 20
	slackSwept      = 4 << 20
)

// settle waits until the process is back near before, within heapSlack of its heap (before nil: until it stops
// changing), and returns its footprint then.
func settle(t *testing.T, before *footprint, heapSlack uint64) footprint {
	t.Helper()
	var now footprint
	prev := -1
	testkit.WaitFor(t, "goroutines, open files and heap back near the baseline", func() bool {
		now = measure()
		if before == nil {
			steady := now.goroutines == prev
			prev = now.goroutines
			return steady
		}
		return now.goroutines <= before.goroutines+slackGoroutines && now.fds <= before.fds+slackFDs &&
			now.heap <= before.heap+heapSlack
	})
	return now
}

type mcpClient struct {
	c  *client.Client
	hc *http.Client
}

// connect initializes an MCP session over HTTP with a client of its own connections.
func connect(t *testing.T, url string) mcpClient {
	t.Helper()
	hc := &http.Client{Transport: &http.Transport{}}
	c, err := client.NewStreamableHttpClient(url, transport.WithHTTPBasicClient(hc))
	if err != nil {
		panic(err) // only for a URL that does not parse
	}
	if _, err := c.Initialize(context.Background(), mcp.InitializeRequest{Params: mcp.InitializeParams{
		ProtocolVersion: mcp.LATEST_PROTOCOL_VERSION, ClientInfo: mcp.Implementation{Name: "load", Version: "1"}}}); err != nil {
		t.Error(err) // t.Error, not Fatal: this runs on the test's goroutines
	}
	return mcpClient{c, hc}
}

func (m mcpClient) search(t *testing.T, query string) {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = "search"
	req.Params.Arguments = map[string]any{"query": query}
	res, err := m.c.CallTool(context.Background(), req)
	if err != nil || res.IsError || !strings.Contains(testkit.Text(res), "# Fake report") {
		t.Errorf("search %q: %v, %v: want its report", query, res, err)
	}
}

// close ends the session (mcp-go's client DELETEs it) and the client's connections.
func (m mcpClient) close(t *testing.T) {
	if err := m.c.Close(); err != nil {
		t.Error(err)
	}
	m.hc.CloseIdleConnections()
}

// shortSession is a client that comes, pings and goes without ending its session (no DELETE), as the TypeScript
// SDK's close() does: initialize, notifications/initialized, tools/call ping.
func shortSession(t *testing.T, hc *http.Client, url string) {
	post := func(session, body string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		res, err := hc.Do(req)
		if err != nil { // t.Error, not Fatal: this runs on the test's goroutines
			t.Error(err)
			return &http.Response{Body: http.NoBody, Header: http.Header{}}
		}
		return res
	}
	drain := func(res *http.Response) {
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	res := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",`+
		`"capabilities":{},"clientInfo":{"name":"load","version":"1"}}}`)
	drain(res)
	session := res.Header.Get("Mcp-Session-Id")
	if res.StatusCode != http.StatusOK || session == "" {
		t.Errorf("initialize: %d, session %q", res.StatusCode, session)
		return
	}
	drain(post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	res = post(session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ping"}}`)
	drain(res)
	if res.StatusCode != http.StatusOK {
		t.Errorf("ping: %d", res.StatusCode)
	}
}
