package gemini

import (
	"regexp"
	"strings"
	"sync"
)

// What the Gemini CLI (0.61.0) writes on stderr when an MCP server of its settings does not start (a command that
// is missing, a server that exits, or one that does not answer within its timeout) or fails later: once per run,
// whichever servers failed, and the run goes on without their tools, exit code 0. With mcpArgs, Firecrawl's is the
// only server it may have started.
const mcpIssuesLine = "MCP issues detected. Run /mcp list for status."

// mcpErrorLine is the reason the CLI gives besides, only when it runs with DEBUG=true:
//
//	[MCP error] Error during discovery for MCP server 'firecrawl': MCP error -32001: Request timed out _McpError: …
//	[MCP error] Error during discovery for MCP server 'firecrawl': spawn npx ENOENT Error: spawn npx ENOENT
//
// The message is followed by the error object as Node prints it, which repeats the message after its class name.
var mcpErrorLine = regexp.MustCompile(`^\[MCP error\] .*?MCP server '([^']+)'[^:]*: (.+)$`)

// errorClass starts the error object Node prints after the message: " _McpError: ", " Error: ".
var errorClass = regexp.MustCompile(` [\w$]*Error: `)

// maxMCPLine bounds the stderr line mcpWatch reads; longer lines are skipped (neither of its lines is long).
const maxMCPLine = 4 << 10

// firecrawlServer is the name of Firecrawl's MCP server in the CLI's settings (templates/settings.json.tmpl).
const firecrawlServer = "firecrawl"

// noMCPServer is the one MCP server a run may start when the CLI's settings start no Firecrawl: a name no settings
// define. The CLI takes no empty name (0.61.0 fails its start: "mcpName is required if specified").
const noMCPServer = "gemini-search-mcp-none"

// mcpArgs are the CLI's flags that make Firecrawl's MCP server the only one a run may start (firecrawl: the CLI's
// settings start it, config.FirecrawlEnabled), or none, whatever servers the user's own settings
// (~/.gemini/settings.json, which the CLI merges with the config folder's) and extensions add. The agent has no
// business starting those, and one that fails would pass for Firecrawl: the CLI's "MCP issues detected" names no
// server. "-e none" loads no extension, nor the context files, commands and tools that extensions bring.
//
// Measured with the CLI 0.61.0: --allowed-mcp-server-names replaces the settings' mcp.allowed and mcp.excluded, and
// keeps the servers of extensions and of the user's settings from starting. The config folder's mcp.allowed would
// not do: the CLI intersects it with the user's own list, and an empty intersection allows every server.
func mcpArgs(firecrawl bool) []string {
	allowed := noMCPServer
	if firecrawl {
		allowed = firecrawlServer
	}
	return []string{"--allowed-mcp-server-names", allowed, "-e", "none"}
}

// mcpWatch reads the CLI's stderr as it arrives, every line of it (the stderr the runner keeps is only its tail,
// and these lines come at the start), for what it says about the MCP servers. An --acp worker's is read while it
// runs.
type mcpWatch struct {
	mu      sync.Mutex
	out     lines             // stderr, a line at a time, each at most maxMCPLine
	issues  bool              // mcpIssuesLine was seen
	reasons map[string]string // server → the reason of its first failure, from DEBUG lines
}

func (w *mcpWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.out.write(p, maxMCPLine, w.end)
	return len(p), nil
}

// end reads one line of the CLI's stderr.
func (w *mcpWatch) end(raw []byte) {
	line := strings.TrimSpace(string(raw))
	if line == mcpIssuesLine {
		w.issues = true
		return
	}
	m := mcpErrorLine.FindStringSubmatch(line)
	if m == nil {
		return
	}
	reason := m[2]
	if loc := errorClass.FindStringIndex(reason); loc != nil && loc[0] > 0 {
		reason = reason[:loc[0]]
	}
	if w.reasons == nil {
		w.reasons = map[string]string{}
	}
	if _, ok := w.reasons[m[1]]; !ok {
		w.reasons[m[1]] = truncateString(strings.TrimSpace(reason), 300)
	}
}

// firecrawlDown says why Firecrawl's MCP server did not start or failed, from what the CLI wrote so far: its own
// reason when it gave one (DEBUG=true), else that it reported MCP issues and named no server, which means Firecrawl,
// the only MCP server mcpArgs lets it start. "" when the CLI reported no failure of it.
func (w *mcpWatch) firecrawlDown() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.out.flush(w.end) // a last line without a newline counts too
	return w.down()
}

func (w *mcpWatch) down() string {
	if !w.issues && len(w.reasons) == 0 {
		return ""
	}
	if reason, ok := w.reasons[firecrawlServer]; ok {
		return reason
	}
	if len(w.reasons) > 0 { // another server failed (none can, with mcpArgs), and the CLI said which
		return ""
	}
	return `the Gemini CLI could not start its MCP server (it said only "MCP issues detected")`
}
