package gemini

import (
	"slices"
	"strings"
	"testing"
)

// What the real CLI 0.61.0 wrote on stderr for a Firecrawl that did not start (shared/notes/gemini-cli.md; measured
// against the mock API: a command not found, a package npx could not get offline, a server that never answered).
const (
	realNoise   = "Warning: 256-color support not detected. Using a terminal with at least 256-color support is recommended for a better visual experience.\nRipgrep is not available. Falling back to GrepTool.\n"
	realIssues  = "MCP issues detected. Run /mcp list for status.\n"
	realTimeout = "[MCP error] Error during discovery for MCP server 'firecrawl': MCP error -32001: Request timed out _McpError: MCP error -32001: Request timed out\n" +
		"    at _McpError.fromError (file:///x/node_modules/@google/gemini-cli/bundle/chunk-JDPZ4CE3.js:303741:12)\n"
	realENOENT = "[MCP error] Error during discovery for MCP server 'firecrawl': spawn /nonexistent/firecrawl-mcp ENOENT Error: spawn /nonexistent/firecrawl-mcp ENOENT\n" +
		"  syscall: 'spawn /nonexistent/firecrawl-mcp',\n"
	realClosed = "[DEBUG] [MCP STDERR (firecrawl)]:  npm error code ENOTCACHED\n" +
		"[MCP error] Error during discovery for MCP server 'firecrawl': MCP error -32000: Connection closed _McpError: MCP error -32000: Connection closed\n"
)

func TestMCPWatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, stderr, want string
	}{
		{"all started", realNoise, ""},
		{"issues, no reason", realNoise + realIssues, `the Gemini CLI could not start its MCP server (it said only "MCP issues detected")`},
		{"timed out (DEBUG)", realNoise + realTimeout + realIssues, "MCP error -32001: Request timed out"},
		{"command not found (DEBUG)", realENOENT + realIssues, "spawn /nonexistent/firecrawl-mcp ENOENT"},
		{"npx offline (DEBUG)", realClosed + realIssues, "MCP error -32000: Connection closed"},
		{"the first reason stands", realTimeout + realENOENT + realIssues, "MCP error -32001: Request timed out"},
		{"another server of the user's", strings.ReplaceAll(realTimeout, "'firecrawl'", "'mine'") + realIssues, ""},
		{"last line without a newline", realNoise + strings.TrimSuffix(realIssues, "\n"), `the Gemini CLI could not start its MCP server (it said only "MCP issues detected")`},
		{"a line too long to read is skipped", strings.Repeat("x", maxMCPLine+1) + realIssues[:10] + "\n", ""},
	}
	for _, tt := range tests {
		for _, chunk := range []int{1, 7, 1 << 20} {
			var w mcpWatch
			for s := tt.stderr; s != ""; {
				n := min(chunk, len(s))
				w.Write([]byte(s[:n]))
				s = s[n:]
			}
			if got := w.firecrawlDown(); got != tt.want {
				t.Errorf("%s, in chunks of %d: got %q, want %q", tt.name, chunk, got, tt.want)
			}
		}
	}
}

// Whatever the user's settings and extensions add, a run may start Firecrawl's MCP server alone, or none; the CLI
// takes no empty name.
func TestMCPArgs(t *testing.T) {
	t.Parallel()
	for firecrawl, want := range map[bool][]string{
		true:  {"--allowed-mcp-server-names", "firecrawl", "-e", "none"},
		false: {"--allowed-mcp-server-names", "gemini-search-mcp-none", "-e", "none"},
	} {
		if got := mcpArgs(firecrawl); !slices.Equal(got, want) {
			t.Errorf("mcpArgs(%v): got %q, want %q", firecrawl, got, want)
		}
	}
}
