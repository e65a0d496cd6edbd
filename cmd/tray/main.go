// Command gemini-search-tray is the desktop app: the MCP server behind a system tray icon that shows what is
// being researched, with a settings page and one-click client setup.
package main

import (
	"os"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/buildinfo"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/trayapp"
)

// version is set at build time with -ldflags "-X main.version=..."; go install records the module's instead.
var version = "dev"

func main() {
	os.Exit(trayapp.Main(os.Args[1:], buildinfo.Version(version), os.Stdout, os.Stderr))
}
