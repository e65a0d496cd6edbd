// Command gemini-search-tray is the desktop app: the MCP server behind a system tray icon that shows what is
// being researched, with a settings page and one-click client setup.
package main

import (
	"os"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/trayapp"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	os.Exit(trayapp.Main(os.Args[1:], version, os.Stdout, os.Stderr))
}
