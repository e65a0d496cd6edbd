package research

import (
	"context"
	"strings"
	"testing"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
)

// TestCLIReportEndsWithItsSources: the sources the agent numbered (with titles and snippets) close the report as
// [Title](URL) links with the queries, as on the API backend, and come back in metadata.sources; a list with a URL
// that is not http(s) is left out rather than shown misnumbered, and the markers that pointed into it with it.
func TestCLIReportEndsWithItsSources(t *testing.T) {
	answer := func(url string) string {
		return "```json\n" + `{"success": true, "report": "Go 1.26 shipped in February [1].", "metadata": {
  "sources": [{"url": "` + url + `", "title": "Go 1.26 [notes]", "snippet": "Released\nin February."}],
  "sources_visited": ["https://go.dev/doc/go1.26"], "search_queries_used": ["go 1.26 release"], "iterations": 2}}` + "\n```"
	}
	t.Setenv(geminitest.EnvAnswer, answer("https://go.dev/doc/go1.26"))
	e, fake, _ := newEngine(t, geminitest.ScenarioOK, Settings{})
	rep, err := e.Search(context.Background(), SearchRequest{Query: "go 1.26", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := "Go 1.26 shipped in February [1].\n\n---\n**Sources:**\n1. [Go 1.26 \\[notes\\]](https://go.dev/doc/go1.26)\n\n" +
		"**Search queries performed:**\n1. \"fake query\"\n2. \"go 1.26 release\""
	if rep.Report != want || rep.Summary != "Go 1.26 shipped in February [1]." || len(rep.Metadata.Sources) != 1 ||
		rep.Metadata.Sources[0].Snippet != "Released in February." {
		t.Errorf("got report %q, summary %q, sources %+v\nwant %q", rep.Report, rep.Summary, rep.Metadata.Sources, want)
	}
	if !strings.Contains(fake.Calls()[0].Stdin, "at most 3 sources") {
		t.Error("the prompt does not pass the limit on")
	}

	t.Setenv(geminitest.EnvAnswer, answer("javascript:alert(1)"))
	e, _, _ = newEngine(t, geminitest.ScenarioOK, Settings{})
	if rep, err = e.Search(context.Background(), SearchRequest{Query: "go 1.26"}); err != nil ||
		rep.Report != "Go 1.26 shipped in February." || rep.Metadata.Sources != nil {
		t.Errorf("got %q, %+v, %v", rep.Report, rep.Metadata.Sources, err)
	}
}
