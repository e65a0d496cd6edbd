// Package testkit holds the small helpers the tests of several packages share.
package testkit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// WaitLimit bounds a test's wait for something that should happen soon (a process to start or exit, a change to
// be seen): long enough that a machine at load 20 never reaches it, so reaching it means a hang, never slowness.
// A test that succeeds never waits this long; only how long a thing takes is for benchmarks to measure.
const WaitLimit = 2 * time.Minute

// FirstWordsLimit is a time limit under test (a search's timeout, say) that a run must reach having said
// something: long enough for a fake CLI or the mock API to start and stream its first words on a machine at
// load 20, short enough that a test waiting it out stays quick.
const FirstWordsLimit = 10 * time.Second

// WaitFor polls cond until it holds, and fails the test naming what it waited for after WaitLimit.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(WaitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", WaitLimit, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// SyncBuffer is a bytes.Buffer that a process's output (or a logger) and the test can share.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// BuildMain compiles the main package in the current directory to a temporary folder, for tests that run the real
// binary; it is for TestMain, which has no *testing.T. remove deletes the folder. With race, the binary is built
// with the race detector when the tests are, so `go test -race` checks the binary's code too (a race makes it
// exit with status 66).
func BuildMain(name string, race bool) (path string, remove func(), err error) {
	dir, err := os.MkdirTemp("", name+"-bin-")
	if err != nil {
		return "", nil, err
	}
	path = filepath.Join(dir, name)
	args := []string{"build", "-o", path}
	if race && raceEnabled {
		args = append(args, "-race")
	}
	if out, err := exec.Command("go", append(args, ".")...).CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("build %s: %v\n%s", name, err, out)
	}
	return path, func() { os.RemoveAll(dir) }, nil
}

// Initialize sends c's initialize request, as an MCP client's first, and fails the test if it is refused.
func Initialize(t testing.TB, ctx context.Context, c *client.Client) *mcp.InitializeResult {
	t.Helper()
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
	res, err := c.Initialize(ctx, req)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return res
}

// Text is the text of res's content items, joined by newlines: what a client that reads only text sees.
func Text(res *mcp.CallToolResult) string {
	var texts []string
	for _, c := range res.Content {
		if tc, ok := mcp.AsTextContent(c); ok {
			texts = append(texts, tc.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// FreePort is a port on 127.0.0.1 that nothing listened on a moment ago.
func FreePort(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// LongReport is a Markdown report of about n bytes: a title, then lines of words that vary, which the tools cut
// into parts at.
func LongReport(n int) string {
	var sb strings.Builder
	sb.Grow(n + 100)
	sb.WriteString("# A long report\n\n")
	for i := 0; sb.Len() < n; i++ {
		fmt.Fprintf(&sb, "Line %d of the report says what the research found, in words that vary: %x.\n", i, i*7919)
	}
	return sb.String()
}

// FencedReport is the model's answer the research prompts ask for: report in a fenced JSON block.
func FencedReport(report string) string {
	data, err := json.Marshal(map[string]any{"success": true, "report": report,
		"metadata": map[string]any{"sources_visited": []string{}, "search_queries_used": []string{}, "iterations": 1}})
	if err != nil {
		panic(err) // strings and lists: cannot fail
	}
	return "```json\n" + string(data) + "\n```"
}

// Client is the tests' HTTP client, with connections of its own: httptest.Server.Close closes the idle connections
// of http.DefaultTransport, which breaks a request that another test is sending on one of them at that moment
// ("http: CloseIdleConnections called"), and a POST is not sent again.
var Client = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}

// HTTPClient is a Streamable HTTP MCP client of url on Client's connections.
func HTTPClient(url string, options ...transport.StreamableHTTPCOption) (*client.Client, error) {
	return client.NewStreamableHttpClient(url, append([]transport.StreamableHTTPCOption{transport.WithHTTPBasicClient(Client)},
		options...)...)
}
