package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/mcpserver"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools"
)

// The server's own share of a search, with the fake Gemini CLI (the test binary: a process start and a canned
// stream-json answer) in place of the real one. `make bench` prints these; nothing here asserts a time.

// serial makes every query of a benchmark its own request: identical ones would be joined or cached.
var serial atomic.Int64

func query() string { return "what changed in Go 1.26? #" + strconv.FormatInt(serial.Add(1), 10) }

func benchSearches(b *testing.B, c *client.Client, q func() string) {
	b.Helper()
	testkit.Initialize(b, context.Background(), c)
	b.ResetTimer()
	for b.Loop() {
		res, err := search(context.Background(), c, q())
		if err != nil || res.IsError {
			b.Fatalf("search: %v %+v", err, res)
		}
	}
}

// BenchmarkSearchOverhead is one search call end to end with an instant fake CLI: in process (engine, runner and
// MCP server, no transport), and through the built binary over stdio and over HTTP.
func BenchmarkSearchOverhead(b *testing.B) {
	fake := geminitest.New(b, geminitest.ScenarioOK)
	b.Run("in-process", func(b *testing.B) {
		runner := gemini.NewRunner(gemini.Config{Command: fake.Command(), Dir: b.TempDir(), Timeout: time.Minute})
		engine, err := research.New(runner, research.Settings{}, nil)
		if err != nil {
			b.Fatal(err)
		}
		c, err := client.NewInProcessClient(mcpserver.New(tools.New(engine, tools.Options{Version: "bench"}), mcpserver.Options{Version: "bench"}))
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		if err := c.Start(context.Background()); err != nil {
			b.Fatal(err)
		}
		benchSearches(b, c, query)
	})
	b.Run("stdio", func(b *testing.B) {
		env, _ := serverEnv(b, fake, "GEMINI_CACHE_TTL=0")
		c, err := client.NewStdioMCPClientWithOptions(binPath, env, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		benchSearches(b, c, query)
	})
	b.Run("http", func(b *testing.B) {
		env, _ := serverEnv(b, fake, "GEMINI_CACHE_TTL=0")
		_, base, _ := startHTTP(b, env)
		c := httpClient(b, base)
		benchSearches(b, c, query)
	})
	b.Run("cache-hit-stdio", func(b *testing.B) {
		env, _ := serverEnv(b, fake)
		c, err := client.NewStdioMCPClientWithOptions(binPath, env, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		benchSearches(b, c, func() string { return "the same question every time" })
	})
}

func httpClient(b *testing.B, base string) *client.Client {
	b.Helper()
	tr, err := transport.NewStreamableHTTP(base + "/mcp")
	if err != nil {
		b.Fatal(err)
	}
	c := client.NewClient(tr)
	b.Cleanup(func() { c.Close() })
	if err := c.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	return c
}

// BenchmarkQueue is 100 calls at once through a queue of 3, each CLI run taking 1 s: the ideal is 34 s.
func BenchmarkQueue(b *testing.B) {
	const calls, limit = 100, 3
	fake := geminitest.New(b, geminitest.ScenarioSlow)
	b.Setenv(geminitest.EnvDelay, "1s")
	env, _ := serverEnv(b, fake, "GEMINI_CACHE_TTL=0", "GEMINI_MAX_CONCURRENT="+strconv.Itoa(limit),
		"GEMINI_QUEUE_TIMEOUT=0")
	env = append(env, geminitest.EnvDelay+"=1s")
	_, base, _ := startHTTP(b, env)
	c := httpClient(b, base)
	testkit.Initialize(b, context.Background(), c)
	ideal := float64((calls + limit - 1) / limit)
	for b.Loop() {
		start := time.Now()
		var wg sync.WaitGroup
		var failed atomic.Int64
		for range calls {
			wg.Go(func() {
				if res, err := search(context.Background(), c, query()); err != nil || res.IsError {
					failed.Add(1)
				}
			})
		}
		wg.Wait()
		if failed.Load() > 0 {
			b.Fatalf("%d of %d calls failed", failed.Load(), calls)
		}
		b.ReportMetric(time.Since(start).Seconds(), "wall-s")
		b.ReportMetric(ideal, "ideal-s")
	}
}

// BenchmarkIdleRSS is the resident memory of each binary serving HTTP with nothing to do.
func BenchmarkIdleRSS(b *testing.B) {
	tray := filepath.Join(b.TempDir(), "gemini-search-tray")
	if out, err := exec.Command("go", "build", "-o", tray, "../tray").CombinedOutput(); err != nil {
		b.Fatalf("build the tray: %v\n%s", err, out)
	}
	for _, bin := range []struct{ name, path string }{{"gemini-search-mcp", binPath}, {"gemini-search-tray", tray}} {
		b.Run(bin.name, func(b *testing.B) {
			env, _ := serverEnv(b, nil, "XDG_STATE_HOME="+b.TempDir(), "DBUS_SESSION_BUS_ADDRESS=")
			args := []string{"--http", "--port", "0"}
			if bin.name == "gemini-search-tray" {
				args = []string{"--headless", "--port", "0"}
			}
			for b.Loop() {
				cmd := exec.Command(bin.path, args...)
				cmd.Env = env
				if err := cmd.Start(); err != nil {
					b.Fatal(err)
				}
				time.Sleep(2 * time.Second) // start-up done, idle
				rss := residentKB(b, cmd.Process.Pid)
				cmd.Process.Kill()
				cmd.Wait()
				b.ReportMetric(float64(rss)/1024, "rss-MB")
			}
		})
	}
}

// residentKB reads a process's VmRSS from /proc (Linux).
func residentKB(b *testing.B, pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Skipf("no /proc: %v", err)
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return kb
		}
	}
	b.Fatal("no VmRSS")
	return 0
}
