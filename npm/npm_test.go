package npm

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// Every package is pinned to an exact version, and the lock installs that version: what the tests ran is what
// the binaries start.
func TestPinsAreExactAndLocked(t *testing.T) {
	t.Parallel()
	var pkg struct {
		Dependencies         map[string]string `json:"dependencies"`
		OptionalDependencies map[string]string `json:"optionalDependencies"`
	}
	var lock struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	data, err := os.ReadFile("package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(packageJSON, &pkg); err != nil {
		t.Fatalf("package.json: %v", err)
	}
	if err := json.Unmarshal(data, &lock); err != nil {
		t.Fatalf("package-lock.json: %v", err)
	}
	for _, deps := range []map[string]string{pkg.Dependencies, pkg.OptionalDependencies} {
		for name, version := range deps {
			if version == "" || strings.ContainsAny(version, "^~<>=* |") {
				t.Errorf("package.json pins %s to %q, want an exact version", name, version)
			}
			if got := lock.Packages["node_modules/"+name].Version; got != version {
				t.Errorf("package-lock.json installs %s %q, package.json pins %q: run npm install in npm/", name, got, version)
			}
		}
	}
	if FirecrawlMCP != "firecrawl-mcp@"+pkg.Dependencies["firecrawl-mcp"] {
		t.Errorf("FirecrawlMCP is %q", FirecrawlMCP)
	}
	if GeminiCLI != "@google/gemini-cli@"+pkg.Dependencies["@google/gemini-cli"] {
		t.Errorf("GeminiCLI is %q", GeminiCLI)
	}
}

func TestPinnedNamesWhatIsMissing(t *testing.T) {
	t.Parallel()
	if _, err := pinned([]byte(`{"dependencies":{}}`), "firecrawl-mcp"); err == nil || !strings.Contains(err.Error(), "pins no firecrawl-mcp") {
		t.Errorf("got %v, want it to say firecrawl-mcp is not pinned", err)
	}
}
