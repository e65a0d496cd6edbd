package research

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
)

func TestDomain(t *testing.T) {
	for in, want := range map[string]string{
		"example.org": "example.org", " Docs.Python.org ": "docs.python.org", "https://www.example.com/a?b": "example.com",
		"www.bbc.co.uk.": "bbc.co.uk", "localhost": "", "-bad.org": "", "a..b": "", "": "", "exa mple.org": "",
		"example.org/docs/page": "example.org", "München.de": "xn--mnchen-3ya.de", "xn--mnchen-3ya.de": "xn--mnchen-3ya.de",
		"https://www.bücher.example/x": "xn--bcher-kva.example",
	} {
		got, err := Domain(in)
		if got != want || (err != nil) != (want == "") {
			t.Errorf("Domain(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, c := range []struct {
		source backend.Source
		domain string
	}{
		{backend.Source{URL: "https://news.example.org/a"}, "news.example.org"},
		// Google Search grounding's sources are redirects: their title is the page's domain.
		{backend.Source{URL: "https://vertexaisearch.cloud.google.com/grounding-api-redirect/xyz", Title: "example.com"}, "example.com"},
		{backend.Source{URL: "not a url"}, ""},
		{backend.Source{URL: "https://münchen.de/föhn"}, "xn--mnchen-3ya.de"}, // whatever form each is written in
		{backend.Source{URL: "https://xn--mnchen-3ya.de/föhn"}, "xn--mnchen-3ya.de"},
	} {
		if got := sourceDomain(c.source); got != c.domain {
			t.Errorf("sourceDomain(%+v) = %q, want %q", c.source, got, c.domain)
		}
	}
}

// TestLimitOnTheCLI: an agent that lists 20 sources for a search limited to 3 gets a report of 3 sources, its
// markers of the others dropped, so that no marker points past the list; metadata says how many went.
func TestLimitOnTheCLI(t *testing.T) {
	var sources []map[string]string
	var text strings.Builder
	for i := 1; i <= 20; i++ {
		sources = append(sources, map[string]string{"url": fmt.Sprintf("https://site%d.example/page", i), "title": fmt.Sprint("Site ", i)})
		fmt.Fprintf(&text, "Fact %d [%d]. ", i, i)
	}
	text.WriteString("Together [1, 4] and [2-5].") // the forms models write groups in
	body, _ := json.Marshal(map[string]any{"success": true, "report": strings.TrimSpace(text.String()),
		"metadata": map[string]any{"sources": sources, "sources_visited": []string{}, "search_queries_used": []string{}}})
	t.Setenv(geminitest.EnvAnswer, "```json\n"+string(body)+"\n```")
	e, _, _ := newEngine(t, geminitest.ScenarioOK, Settings{})
	rep, err := e.Search(context.Background(), SearchRequest{Query: "twenty facts", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Metadata.Sources) != 3 || !strings.HasPrefix(rep.Summary, "Fact 1 [1]. Fact 2 [2]. Fact 3 [3]. Fact 4. ") ||
		strings.Contains(rep.Report, "[4]") || strings.Contains(rep.Report, "[20]") ||
		!strings.Contains(rep.Summary, "Together [1] and [2][3].") ||
		rep.Metadata.Filtered == nil || rep.Metadata.Filtered.OverLimit != 17 {
		t.Errorf("report %q, %d sources, filtered %+v; want 3 sources and no marker past them", rep.Report,
			len(rep.Metadata.Sources), rep.Metadata.Filtered)
	}
}

// TestDomainsOnTheCLI: sources of an excluded domain (and its subdomains), or of no included one, are removed and
// the others numbered anew; the prompt asks for the same.
func TestDomainsOnTheCLI(t *testing.T) {
	body, _ := json.Marshal(map[string]any{"success": true, "report": "A [1]. B [2]. C [3].",
		"metadata": map[string]any{"sources": []map[string]string{
			{"url": "https://blog.spam.example/a"}, {"url": "https://docs.python.org/3/"}, {"url": "https://other.org/x"}},
			"sources_visited": []string{}, "search_queries_used": []string{}}})
	t.Setenv(geminitest.EnvAnswer, "```json\n"+string(body)+"\n```")
	e, fake, _ := newEngine(t, geminitest.ScenarioOK, Settings{})
	rep, err := e.Search(context.Background(), SearchRequest{Query: "python", Steering: Steering{Exclude: []string{"spam.example"}}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Summary != "A. B [1]. C [2]." || len(rep.Metadata.Sources) != 2 || rep.Metadata.Filtered.Excluded != 1 {
		t.Errorf("excluded: %q, %+v, %+v", rep.Summary, rep.Metadata.Sources, rep.Metadata.Filtered)
	}
	if !strings.Contains(fake.Calls()[0].Stdin, "-site:spam.example") {
		t.Error("the prompt does not ask to leave the excluded domain out")
	}
	if _, err := e.Search(context.Background(), SearchRequest{Query: "föhn", Steering: Steering{Language: "de", Country: "AT"}}); err != nil {
		t.Fatal(err)
	}
	if prompt := fake.Calls()[1].Stdin; !strings.Contains(prompt, "BCP 47 tag de") || !strings.Contains(prompt, "ISO 3166 code AT") {
		t.Error("the prompt does not ask for the language and the country")
	}
	rep, err = e.Search(context.Background(), SearchRequest{Query: "python", Steering: Steering{Include: []string{"python.org"}}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Summary != "A. B [1]. C." || len(rep.Metadata.Sources) != 1 || rep.Metadata.Filtered.NotIncluded != 2 {
		t.Errorf("included: %q, %+v, %+v", rep.Summary, rep.Metadata.Sources, rep.Metadata.Filtered)
	}
}
