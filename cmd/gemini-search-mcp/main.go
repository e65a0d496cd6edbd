// Command gemini-search-mcp is the headless MCP server: stdio by default (Claude Desktop), Streamable HTTP with
// --http (Cursor, VS Code), and `doctor` to check an installation.
package main

import (
	"os"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/buildinfo"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/headless"
)

// version is set at build time with -ldflags "-X main.version=..."; go install records the module's instead.
var version = "dev"

func main() {
	os.Exit(headless.Main(os.Args[1:], buildinfo.Version(version), os.Stdin, os.Stdout, os.Stderr))
}
