// Package npm holds, in one place, the npm packages this project pins: firecrawl-mcp, which the research agent's
// settings start with npx; the Gemini CLI, which the server starts with npx when none is installed; and the
// programs the end-to-end tests run (that CLI, the MCP clients and the conformance suite). e2e/install.sh installs
// them from package.json and package-lock.json; the binaries embed package.json, so the firecrawl-mcp and the CLI
// they start are the ones the tests ran.
package npm

import (
	_ "embed"
	"encoding/json"
	"fmt"
)

//go:embed package.json
var packageJSON []byte

// FirecrawlMCP is the npx package spec of the pinned firecrawl-mcp: firecrawl-mcp@<version>.
var FirecrawlMCP = spec("firecrawl-mcp")

// GeminiCLI is the npx package spec of the pinned Gemini CLI, @google/gemini-cli@<version>: the version the tests
// ran and the server's @path guard was read off, which the server runs when no gemini is installed.
var GeminiCLI = spec("@google/gemini-cli")

// spec is name@version for a package package.json pins; it panics when it pins none, which the package's test
// and every binary's start would show at once.
func spec(name string) string {
	version, err := pinned(packageJSON, name)
	if err != nil {
		panic(err)
	}
	return name + "@" + version
}

// pinned is the version the package.json data pins name to.
func pinned(data []byte, name string) (string, error) {
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		return "", fmt.Errorf("npm/package.json: %w", err)
	}
	version := pkg.Dependencies[name]
	if version == "" {
		return "", fmt.Errorf("npm/package.json pins no %s", name)
	}
	return version, nil
}
