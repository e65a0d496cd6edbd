//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	mg "github.com/gemini-search-mcp/gemini-search-mcp/internal/mockgemini"
)

// BenchmarkBackends times one search on the Gemini API backend and on the Gemini CLI backend (the real CLI of the
// e2e cache) started cold and warm (GEMINI_WARM_WORKERS), each through the built server over HTTP, as an MCP
// client sees it: from tools/call to the backend's first request to the API (as the mock records it), to the first
// "searching: …" progress notification (time to first byte: the first search the backend reports, the CLI's
// google_web_search tool call or the API's early grounding queries) and to the result (total). All run against the
// same mock, whose answers are the same: one search, then the same fenced JSON report. The model is pinned, so the
// CLI asks no model router first. Before each warm search the benchmark waits until a warm CLI is in line and
// then 2 s, the time its start takes (the pause a user leaves between searches hides it). Once the searches are
// done, the idle RSS of each server with the processes it started (warm CLIs and their MCP servers). `make bench`
// runs it and prints the table (printBenchTable).
//
// The first run of each sub-benchmark (b.N = 1, before -benchtime's count) warms up; the table shows the last.
func BenchmarkBackends(b *testing.B) {
	s := newScenario(b, "bench api vs cli")
	benchScript(s)
	for _, row := range []struct {
		name, backend string
		warm          bool
	}{{"api", "api", false}, {"cli cold", "cli", false}, {"cli warm", "cli", true}} {
		srv := s.startHTTP("GEMINI_BACKEND="+row.backend, "GEMINI_MODEL=gemini-2.5-flash",
			fmt.Sprintf("GEMINI_WARM_WORKERS=%d", map[bool]int{false: 0, true: 1}[row.warm]),
			"GEMINI_SEARCH_CONFIG_DIR="+filepath.Join(s.root, "config-"+slug(row.name)))
		c, first := connect(b, srv.url)
		b.Run(slug(row.name), func(b *testing.B) {
			var firstRequests, ttfbs, totals []time.Duration
			for i := range b.N {
				if row.warm {
					if !waitFor(time.Minute, func() bool { return warmWorkers(b, srv.url) == 1 }) {
						b.Fatal("no warm CLI in line")
					}
					time.Sleep(2 * time.Second)
				}
				t := timeSearch(b, s, c, first, row.backend, fmt.Sprintf("%s-%d-%d", slug(row.name), b.N, i))
				firstRequests, ttfbs, totals = append(firstRequests, t.firstRequest), append(ttfbs, t.ttfb), append(totals, t.total)
			}
			t := searchTimes{firstRequest: median(firstRequests), ttfb: median(ttfbs), total: median(totals)}
			b.ReportMetric(float64(t.firstRequest.Microseconds())/1000, "first-request-ms")
			b.ReportMetric(float64(t.ttfb.Microseconds())/1000, "ttfb-ms")
			b.ReportMetric(float64(t.total.Microseconds())/1000, "total-ms")
			benchTable.set(benchRow{name: row.name, runs: b.N, searchTimes: t})
		})
		if row.warm {
			waitFor(time.Minute, func() bool { return warmWorkers(b, srv.url) == 1 })
			time.Sleep(2 * time.Second)
		}
		benchTable.setRSS(row.name, treeRSS(b, srv.cmd.Process.Pid))
	}
}

// treeRSS is the resident memory of pid and of every process below it, in bytes (Linux /proc).
func treeRSS(b *testing.B, pid int) int64 {
	b.Helper()
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		i := strings.LastIndexByte(string(stat), ')')
		if err != nil || i < 0 || i+2 >= len(stat) {
			continue
		}
		fields := strings.Fields(string(stat[i+2:])) // state ppid ...
		child, _ := strconv.Atoi(e.Name())
		parent, _ := strconv.Atoi(fields[1])
		children[parent] = append(children[parent], child)
	}
	var total int64
	for todo := []int{pid}; len(todo) > 0; {
		p := todo[0]
		todo = append(todo[1:], children[p]...)
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p))
		if err != nil {
			continue
		}
		for line := range strings.Lines(string(status)) {
			if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
				total += kb << 10
			}
		}
	}
	return total
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
	c, err := client.NewStreamableHttpClient(url)
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
// server reported and to the result.
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
	at := first.when()
	if at.IsZero() {
		b.Fatalf("%s: no \"searching: …\" progress notification before the result (%s)", backend, total)
	}
	return searchTimes{firstRequest: s.mock.Requests()[seen].Time.Sub(began), ttfb: at.Sub(began), total: total}
}

// benchResults are the rows printBenchTable prints once the benchmarks ran, one for each backend.
type benchResults struct {
	mu   sync.Mutex
	rows []benchRow
}

type benchRow struct {
	name string
	runs int
	searchTimes
	rss int64 // idle, the server with the processes it started
}

var benchTable benchResults

// set keeps the last measurement of a row: the benchmark framework runs each sub-benchmark again with a larger b.N.
func (r *benchResults) set(row benchRow) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if i := slices.IndexFunc(r.rows, func(x benchRow) bool { return x.name == row.name }); i >= 0 {
		r.rows[i] = row
		return
	}
	r.rows = append(r.rows, row)
}

// setRSS adds the idle memory to a row.
func (r *benchResults) setRSS(name string, rss int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if i := slices.IndexFunc(r.rows, func(x benchRow) bool { return x.name == name }); i >= 0 {
		r.rows[i].rss = rss
	}
}

// printBenchTable prints the table of BenchmarkBackends, if it ran.
func printBenchTable() {
	benchTable.mu.Lock()
	defer benchTable.mu.Unlock()
	if len(benchTable.rows) == 0 {
		return
	}
	fmt.Println("\nsearch through the MCP server over HTTP, mock Gemini API on 127.0.0.1 (median of the runs):")
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 3, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "backend\truns\tfirst API request p50\tfirst search (ttfb) p50\ttotal p50\tidle RSS (server + CLIs)\t")
	for _, r := range benchTable.rows {
		fmt.Fprintf(w, "%s\t%d\t%s\t%s\t%s\t%.0f MB\t\n", r.name, r.runs, ms(r.firstRequest), ms(r.ttfb), ms(r.total),
			float64(r.rss)/(1<<20))
	}
	w.Flush()
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
