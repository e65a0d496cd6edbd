package templates_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"text/template"

	"github.com/gemini-search-mcp/gemini-search-mcp/npm"
	"github.com/gemini-search-mcp/gemini-search-mcp/prompts"
	"github.com/gemini-search-mcp/gemini-search-mcp/templates"
)

// firecrawlSettings renders settings.json.tmpl with Firecrawl on, as internal/workspace does, and returns what the
// tests below read of it.
func firecrawlSettings(t *testing.T) (core []string, server struct {
	Command      string   `json:"command"`
	Args         []string `json:"args"`
	IncludeTools []string `json:"includeTools"`
},
) {
	t.Helper()
	tmpl, err := template.ParseFS(templates.FS, "settings.json.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	data := struct {
		Firecrawl, KeyAuth bool
		FirecrawlMCP       string
	}{Firecrawl: true, FirecrawlMCP: npm.FirecrawlMCP}
	if err := tmpl.Execute(&out, data); err != nil {
		t.Fatal(err)
	}
	var s struct {
		Tools      struct{ Core []string } `json:"tools"`
		MCPServers map[string]json.RawMessage
	}
	if err := json.Unmarshal(out.Bytes(), &s); err != nil {
		t.Fatalf("the rendered settings are not JSON: %v\n%s", err, out.Bytes())
	}
	if err := json.Unmarshal(s.MCPServers["firecrawl"], &server); err != nil {
		t.Fatalf("mcpServers.firecrawl: %v", err)
	}
	return s.Tools.Core, server
}

// The settings start the pinned firecrawl-mcp, the one the end-to-end tests install and run.
func TestFirecrawlIsPinnedToTheTestedVersion(t *testing.T) {
	t.Parallel()
	_, server := firecrawlSettings(t)
	if want := []string{"-y", npm.FirecrawlMCP}; server.Command != "npx" || !slices.Equal(server.Args, want) {
		t.Errorf("mcpServers.firecrawl runs %s %q, want npx %q: the version the end-to-end tests run", server.Command,
			server.Args, want)
	}
}

// The research prompt names each Firecrawl tool the settings offer, by the name the agent sees
// (mcp_firecrawl_<tool>), and the tools the settings keep are the ones they offer.
func TestTheResearchPromptNamesTheFirecrawlToolsOffered(t *testing.T) {
	t.Parallel()
	core, server := firecrawlSettings(t)
	var offered []string
	for _, name := range core {
		if tool, ok := strings.CutPrefix(name, "mcp_firecrawl_"); ok {
			offered = append(offered, tool)
		}
	}
	if len(offered) == 0 || !slices.Equal(offered, server.IncludeTools) {
		t.Errorf("tools.core offers Firecrawl's %q, includeTools keeps %q: want the same tools", offered, server.IncludeTools)
	}
	research, err := prompts.Load(prompts.Research)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range offered {
		if !strings.Contains(research, "`mcp_firecrawl_"+tool+"`") {
			t.Errorf("prompts/research.md does not name `mcp_firecrawl_%s`, a tool the settings offer", tool)
		}
	}
}
