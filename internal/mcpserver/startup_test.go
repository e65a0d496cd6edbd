package mcpserver

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools"
)

// The server's start-up, as a client sees it: `make bench` prints these; nothing here asserts a time. ns/op is the
// mean, median-ms the median.

// initializeLine is a client's first message over stdio.
const initializeLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",` +
	`"capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}` + "\n"

// BenchmarkStartup is the time from starting the server to its answer to initialize: the built headless binary over
// stdio (process start, config, engine and MCP server), its --version alone (the process and package
// initialization), and in process (New and ServeStdio only).
func BenchmarkStartup(b *testing.B) {
	bin := buildServer(b)
	env := sealedEnv(b)
	b.Run("binary-initialize", func(b *testing.B) {
		medianOf(b, func() time.Duration {
			cmd := exec.Command(bin)
			cmd.Env = env
			stdin, err := cmd.StdinPipe()
			if err != nil {
				b.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				b.Fatal(err)
			}
			start := time.Now()
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			if _, err := io.WriteString(stdin, initializeLine); err != nil {
				b.Fatal(err)
			}
			answer, err := bufio.NewReader(stdout).ReadString('\n')
			took := time.Since(start)
			if err != nil || !strings.Contains(answer, `"result"`) {
				b.Fatalf("initialize: %v %s", err, answer)
			}
			b.StopTimer()
			stdin.Close() // the server ends with its input
			if err := cmd.Wait(); err != nil {
				b.Fatalf("server exit: %v", err)
			}
			b.StartTimer()
			return took
		})
	})
	b.Run("binary-version", func(b *testing.B) {
		medianOf(b, func() time.Duration {
			cmd := exec.Command(bin, "--version")
			cmd.Env = env
			start := time.Now()
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("--version: %v\n%s", err, out)
			}
			return time.Since(start)
		})
	})
	b.Run("in-process", func(b *testing.B) {
		medianOf(b, func() time.Duration {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			start := time.Now()
			done := make(chan error, 1)
			go func() {
				done <- ServeStdio(ctx, newServer(blockedEngine{}, tools.Options{Version: "bench"}), inR, outW, nil)
			}()
			if _, err := io.WriteString(inW, initializeLine); err != nil {
				b.Fatal(err)
			}
			answer, err := bufio.NewReader(outR).ReadString('\n')
			took := time.Since(start)
			if err != nil || !strings.Contains(answer, `"result"`) {
				b.Fatalf("initialize: %v %s", err, answer)
			}
			b.StopTimer()
			inW.Close()
			if err := <-done; err != nil {
				b.Fatalf("serve: %v", err)
			}
			b.StartTimer()
			return took
		})
	})
}

// medianOf runs once per benchmark iteration and reports the median of what it measured.
func medianOf(b *testing.B, once func() time.Duration) {
	var took []time.Duration
	for b.Loop() {
		took = append(took, once())
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "median-ms")
}

// buildServer builds the headless server, without the race detector whatever the tests use: start-up is measured as
// users get it.
func buildServer(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "gemini-search-mcp")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/gemini-search-mcp").CombinedOutput(); err != nil {
		b.Fatalf("build the server: %v\n%s", err, out)
	}
	return bin
}

// sealedEnv is the server's whole environment: the developer's own configuration blanked, a private HOME and config
// and XDG dirs, no Gemini CLI, and the Gemini API at a closed loopback port, so nothing leaves 127.0.0.1.
func sealedEnv(b *testing.B) []string {
	b.Helper()
	home := b.TempDir()
	env := os.Environ()
	for _, v := range config.EnvVars() {
		env = append(env, v.Name+"=")
	}
	return append(env,
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"GEMINI_SEARCH_CONFIG_DIR="+filepath.Join(home, "config"),
		"GEMINI_CLI_PATH="+filepath.Join(home, "no-gemini"),
		"GEMINI_API_KEY=",
		"GOOGLE_API_KEY=",
		"GOOGLE_GENAI_USE_VERTEXAI=",
		"GEMINI_BACKEND=cli",
		"GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:1",
	)
}
