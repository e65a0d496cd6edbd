//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
	mg "github.com/gemini-search-mcp/gemini-search-mcp/internal/mockgemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/workspace"
)

// Targets of issue 27 for a warm CLI search.
const (
	warmFirstRequestTarget = 60 * time.Millisecond
	warmCPUTarget          = 200 * time.Millisecond
)

// warmCLIFigures is what measureWarmCLI measured of one way of keeping the CLI warm.
type warmCLIFigures struct {
	Mode         gemini.WarmMode
	Searches     int
	FirstRequest time.Duration // median, from the prompt given to the runner to the mock's first request
	CPU          time.Duration // per search: user + system CPU of the CLI's processes
}

// Met reports whether the figures meet issue 27's targets for a warm search.
func (f warmCLIFigures) Met() bool {
	return f.FirstRequest <= warmFirstRequestTarget && f.CPU <= warmCPUTarget
}

// measureWarmCLI runs searches warm searches on the real CLI of the e2e cache, against the mock, for each way of
// keeping it warm: pre-spawned one-shot processes (WarmOneShot) and a long-lived --acp worker (WarmACP). The runner
// is the server's own (internal/gemini), run in this process, so that the CPU of every CLI process is seen: those
// alive from /proc (utime + stime of every process of the scenario, by its E2E_RUN_ID), those that ended from this
// process's RUSAGE_CHILDREN (the runner waits for them), just before the first warm search and 2 s after the last (the
// runner's work after a search: a one-shot replacement's start, a worker's next session), the runner still open (a
// worker's end is not a search's). A one-shot process serves one search, so its whole start counts; a worker's start
// does not (it serves many).
// Before each search it waits until the runner has a warm process, and 2 s more: a one-shot one's start cannot be
// seen to end, and a worker goes on with its start for a moment after it answered (neither start is a search's).
// Linux only. `make bench`'s table can call it.
func measureWarmCLI(tb testing.TB, searches int) []warmCLIFigures {
	tb.Helper()
	var figures []warmCLIFigures
	for _, mode := range []gemini.WarmMode{gemini.WarmOneShot, gemini.WarmACP} {
		s := newScenario(tb, "warm cli "+string(mode))
		s.mock.Handle(mg.KindChat, mg.Always(mg.Text("The warm answer.")))
		if err := os.MkdirAll(s.config, 0o700); err != nil {
			tb.Fatal(err)
		}
		if _, err := workspace.Regenerate(s.config, workspace.Options{KeyAuth: true}, true); err != nil {
			tb.Fatal(err)
		}
		r := gemini.NewRunner(gemini.Config{
			Command:  gemini.Command{Path: filepath.Join(cacheDir, "node_modules", ".bin", "gemini")},
			Dir:      s.config,
			ExtraEnv: s.env(),
			Timeout:  2 * time.Minute,
			Warm:     mode,
			WarmMax:  4,
		})
		search := func() time.Duration {
			tb.Helper()
			seen := len(s.mock.Requests())
			start := time.Now()
			res, err := r.Run(context.Background(), backend.Request{Prompt: "Say the warm answer.", Model: "gemini-2.5-flash"})
			if err != nil || res.Text != "The warm answer." {
				tb.Fatalf("%s: got %q, %v", mode, res.Text, err)
			}
			reqs := s.mock.Requests()
			if len(reqs) <= seen {
				tb.Fatalf("%s: the search reached no mock request", mode)
			}
			return reqs[seen].Time.Sub(start)
		}
		r.KeepWarm(1)
		search() // cold: the first search starts the warm ones
		var before time.Duration
		var firsts []time.Duration
		for i := range searches {
			if !waitFor(2*time.Minute, func() bool { return r.Warm() >= 1 }) {
				tb.Fatalf("%s: no warm CLI", mode)
			}
			time.Sleep(2 * time.Second)
			if i == 0 {
				before = scenarioCPU(tb, s.runID)
			}
			firsts = append(firsts, search())
		}
		time.Sleep(2 * time.Second) // the last search's after-work: a one-shot replacement's start, a worker's next session
		cpu := scenarioCPU(tb, s.runID) - before
		r.Close()
		slices.Sort(firsts)
		figures = append(figures, warmCLIFigures{Mode: mode, Searches: searches, FirstRequest: firsts[len(firsts)/2],
			CPU: cpu / time.Duration(searches)})
	}
	return figures
}

// scenarioCPU is the CPU time of the scenario's CLI processes so far: of those alive (by their E2E_RUN_ID) from
// /proc, of those this process waited for from RUSAGE_CHILDREN.
func scenarioCPU(tb testing.TB, runID string) time.Duration {
	tb.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		tb.Fatal(err)
	}
	total := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	ticks := int64(100) // USER_HZ on Linux
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		environ, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !slices.Contains(strings.Split(string(environ), "\x00"), envRunID+"="+runID) {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(stat), ')')
		fields := strings.Fields(string(stat)[i+2:]) // from field 3 (state) on
		if len(fields) < 13 {
			continue
		}
		utime, _ := strconv.ParseInt(fields[11], 10, 64) // field 14
		stime, _ := strconv.ParseInt(fields[12], 10, 64) // field 15
		total += time.Duration((utime + stime) * int64(time.Second) / ticks)
	}
	return total
}

// printWarmCLITable prints figures beside their targets.
func printWarmCLITable(figures []warmCLIFigures) {
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "warm CLI\tsearches\tprompt→first request\ttarget\tCPU per search\ttarget\tmet")
	for _, f := range figures {
		fmt.Fprintf(w, "%s\t%d\t%.1f ms\t≤ %d ms\t%.3f s\t≤ %.1f s\t%v\n", f.Mode, f.Searches,
			float64(f.FirstRequest.Microseconds())/1000, warmFirstRequestTarget.Milliseconds(), f.CPU.Seconds(),
			warmCPUTarget.Seconds(), f.Met())
	}
	w.Flush()
}

// BenchmarkWarmCLI measures a warm search on pre-spawned one-shot CLIs and on an --acp worker (measureWarmCLI)
// and prints the table. b.N is not used: each mode runs 5 searches.
func BenchmarkWarmCLI(b *testing.B) {
	for b.Loop() {
		figures := measureWarmCLI(b, 5)
		printWarmCLITable(figures)
	}
}
