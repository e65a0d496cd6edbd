package tools

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools/clientpath/clientpathtest"
)

// outputFileOf decodes a result's output_file.
func outputFileOf(t *testing.T, res *mcp.CallToolResult) (OutputFileStatus, map[string]any) {
	t.Helper()
	body := decodeBody(t, res)
	var status OutputFileStatus
	if raw, ok := body["output_file"]; ok {
		b, _ := json.Marshal(raw)
		if err := json.Unmarshal(b, &status); err != nil {
			t.Fatal(err)
		}
	}
	return status, body
}

// checkWritten checks that path holds want, with mode 0600.
func checkWritten(t *testing.T, path, want string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the report was not written: %v", err)
	}
	if string(got) != want {
		t.Errorf("file holds %q, want the report %q", got, want)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v (%v), want 0600", info.Mode().Perm(), err)
	}
}

// connectStdio serves s over stdio, its calls marked as stdio's as the transport marks them, and returns a client
// of it.
func connectStdio(t *testing.T, s *server.MCPServer) *client.Client {
	t.Helper()
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- server.NewStdioServer(s).Listen(WithStdio(ctx), serverIn, serverOut) }()
	c := client.NewClient(transport.NewIO(clientIn, clientOut, nil))
	t.Cleanup(func() {
		c.Close()
		cancel()
		serverOut.Close()
		if err := <-served; err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
			t.Errorf("stdio server: %v", err)
		}
	})
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	testkit.Initialize(t, ctx, c)
	return c
}

// connectHTTP serves s over Streamable HTTP and returns a client of it.
func connectHTTP(t *testing.T, s *server.MCPServer) *client.Client {
	t.Helper()
	srv := httptest.NewServer(server.NewStreamableHTTPServer(s))
	t.Cleanup(srv.Close)
	c, err := testkit.HTTPClient(srv.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	testkit.Initialize(t, context.Background(), c)
	return c
}

func TestOutputFileOverStdioGoesAnywhere(t *testing.T) {
	s, _ := newPipelineServer(t, "ok", research.Settings{}, Options{}, 30*time.Second) // no GEMINI_OUTPUT_DIR
	c := connectStdio(t, s)
	path := filepath.Join(t.TempDir(), "new", "folder", "report.md")

	status, body := outputFileOf(t, call(context.Background(), t, c, "search", map[string]any{"query": "q", "output_file": path}, nil))
	if body["success"] != true || status != (OutputFileStatus{Path: path, Written: true}) {
		t.Fatalf("output_file = %+v in %v, want %s written", status, body, path)
	}
	checkWritten(t, path, body["report"].(string))
	if info, err := os.Stat(filepath.Dir(path)); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("created folder mode %v (%v), want 0700", info.Mode().Perm(), err)
	}
}

func TestOutputFileOverHTTP(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "reports")
	clientpathtest.Mkdir(t, dir)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "escape")); err != nil {
		t.Fatal(err)
	}
	var logs testkit.SyncBuffer
	var outputDir atomic.Value
	outputDir.Store("")
	s, fake := newPipelineServer(t, "ok", research.Settings{MaxRounds: 2}, Options{
		OutputDir: func() string { return outputDir.Load().(string) },
		Logger:    slog.New(slog.NewTextHandler(&logs, nil)),
	}, 30*time.Second)
	c := connectHTTP(t, s)

	refusals := []struct {
		name, dir, arg, want string
	}{
		{"without GEMINI_OUTPUT_DIR", "", "r.md", "GEMINI_OUTPUT_DIR is not set"},
		{"dot dot", dir, "../r.md", "outside GEMINI_OUTPUT_DIR"},
		{"absolute elsewhere", dir, filepath.Join(outside, "r.md"), "outside GEMINI_OUTPUT_DIR"},
		{"symlink out", dir, "escape/r.md", "through a symbolic link"},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			outputDir.Store(tt.dir) // read per call
			for _, tool := range []string{"search", "deep_search"} {
				res := call(context.Background(), t, c, tool, map[string]any{"query": "q", "topic": "q", "output_file": tt.arg}, nil)
				body := decodeBody(t, res)
				e, _ := body["error"].(map[string]any)
				if !res.IsError || e["code"] != string(backend.CodeInvalidArgument) || !strings.Contains(e["message"].(string), tt.want) {
					t.Errorf("%s: got %v, want INVALID_ARGUMENT mentioning %q", tool, body, tt.want)
				}
			}
		})
	}
	if n := len(fake.Calls()); n != 0 {
		t.Fatalf("the CLI ran %d times for refused calls, want 0: refusals come before research", n)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("files were written outside the output dir: %v", entries)
	}

	outputDir.Store(dir)
	status, body := outputFileOf(t, call(context.Background(), t, c, "deep_search", map[string]any{"topic": "t",
		"output_file": "2026/june/report.md"}, nil))
	want := filepath.Join(dir, "2026", "june", "report.md")
	if body["success"] != true || status != (OutputFileStatus{Path: want, Written: true}) {
		t.Fatalf("output_file = %+v in %v, want %s written", status, body, want)
	}
	checkWritten(t, want, body["report"].(string))
	for _, d := range []string{filepath.Join(dir, "2026"), filepath.Dir(want)} {
		if info, err := os.Stat(d); err != nil || info.Mode().Perm() != 0o700 {
			t.Errorf("created folder %s mode %v (%v), want 0700", d, info.Mode().Perm(), err)
		}
	}
	if !strings.Contains(logs.String(), "level=INFO msg=\"wrote the report to output_file\" path="+want) {
		t.Errorf("log %q lacks the written file", logs.String())
	}
}

func TestOutputFileWriteErrorKeepsTheReport(t *testing.T) {
	dir := t.TempDir()
	clientpathtest.Mkdir(t, filepath.Join(dir, "taken"))
	s, _ := newPipelineServer(t, "ok", research.Settings{}, Options{OutputDir: func() string { return dir }}, 30*time.Second)
	c := connect(t, s)

	res := call(context.Background(), t, c, "search", map[string]any{"query": "q", "output_file": "taken"}, nil)
	status, body := outputFileOf(t, res)
	if res.IsError || body["success"] != true || !strings.HasPrefix(body["report"].(string), "# Fake report") {
		t.Fatalf("got %v, want the report", body)
	}
	if status.Path != filepath.Join(dir, "taken") || status.Written || !strings.Contains(status.Error, "is a folder") {
		t.Errorf("output_file = %+v, want written false because the target is a folder", status)
	}
}

func TestOutputFileHoldsTheWholeChunkedReport(t *testing.T) {
	long := strings.Repeat("Line of a long report.\n", 40)
	answer, _ := json.Marshal(map[string]any{"success": true, "report": long})
	t.Setenv(geminitest.EnvAnswer, "```json\n"+string(answer)+"\n```")
	dir := t.TempDir()
	s, _ := newPipelineServer(t, "ok", research.Settings{}, Options{ResponseLimit: func() int { return 300 },
		OutputDir: func() string { return dir }}, 30*time.Second)
	c := connect(t, s) // in process: not stdio, so the HTTP rule applies

	status, body := outputFileOf(t, call(context.Background(), t, c, "search", map[string]any{"query": "q", "output_file": "long.md"}, nil))
	if body["chunks"] == nil || !status.Written {
		t.Fatalf("got %v, want a report in parts, written", body)
	}
	checkWritten(t, filepath.Join(dir, "long.md"), long)
}

func TestOutputFileInProcessIsNotStdio(t *testing.T) {
	s, fake := newPipelineServer(t, "ok", research.Settings{}, Options{}, 30*time.Second)
	res := call(context.Background(), t, connect(t, s), "search", map[string]any{"query": "q",
		"output_file": filepath.Join(t.TempDir(), "r.md")}, nil)
	if !res.IsError || !strings.Contains(resultText(t, res), "GEMINI_OUTPUT_DIR is not set") || len(fake.Calls()) != 0 {
		t.Errorf("got %s, want a refusal before research: only ServeStdio's calls may write anywhere", resultText(t, res))
	}
}
