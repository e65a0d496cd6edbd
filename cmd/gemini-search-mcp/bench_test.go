package main

import (
	"context"
	"strconv"
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
// stream-json answer) in place of the real one. `make bench-go` prints these; nothing here asserts a time. The
// built binaries' memory, initialize and 100 calls at once are rows of make bench's table (e2e/bench_test.go).

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
