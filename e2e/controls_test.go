//go:build e2e

package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	mg "github.com/gemini-search-mcp/gemini-search-mcp/internal/mockgemini"
)

// controlledBody is what a search result says beyond searchBody about the controls and the usage.
type controlledBody struct {
	Metadata struct {
		Filtered *struct {
			Excluded int `json:"excluded"`
		} `json:"filtered"`
		Usage *struct {
			TotalTokens int `json:"total_tokens"`
			Requests    int `json:"requests"`
		} `json:"usage"`
	} `json:"metadata"`
}

// 30. Research the user steers and pays for, on the API backend with its default model (flash, the API's
// gemini-flash-latest, which takes a response schema with Google Search), through the TypeScript SDK: a search
// with recency week and exclude_domains sends exactly one request, carrying Google Search's time range and the
// report's JSON schema; the excluded domain's source is gone, the other numbered [1]. fetch reads a page through
// URL context, a paywalled page is FETCH_FAILED, a loopback URL is refused before any request; after two searches
// ping shows their tokens summed.
func TestSteeredSearchFetchAndUsage(t *testing.T) {
	s := newScenario(t, "30 controls, fetch, usage")
	kept, dropped := "Der Föhn ist ein warmer Fallwind.", "Er macht manchen Kopfschmerzen."
	report, _ := json.Marshal(map[string]any{"success": true, "report": "# Föhn\n\n" + kept + " " + dropped,
		"metadata": map[string]any{"iterations": 1}})
	sources := []mg.Source{{URI: "https://excluded.example/kopfweh", Title: "excluded.example"},
		{URI: "https://wetter.example/foehn", Title: "wetter.example"}}
	s.mock.Handle(mg.KindSearch, mg.Always(mg.GroundedAnswer(string(report), sources, mg.Cite(kept, 1), mg.Cite(dropped, 0))))
	const page = "http://93.184.215.14/foehn" // a public address: the server checks it, the mock reads it
	s.mock.Handle(mg.KindFetch, mg.ByPrompt(mg.Always(mg.Fetched("# Föhn\n\nDer ganze Artikel.", page)),
		mg.Route{Contains: page + "?paid", Respond: mg.Always(mg.Reply{Text: "Behind a paywall.",
			URLs: []mg.URLMetadata{{URL: page + "?paid", Status: mg.URLRetrievalPaywall}}})}))
	srv := s.startHTTP("GEMINI_BACKEND=api")
	call := func(tool string, args map[string]any) *toolResult {
		t.Helper()
		out := s.sdk(sdkRequest{Transport: "http", URL: srv.url, Tool: tool, Arguments: args}, nil)
		if out.Error != "" || out.Result == nil {
			t.Fatalf("%s: the client failed: %s", tool, out.Error)
		}
		return out.Result
	}
	controlled := func(res *toolResult) controlledBody {
		var c controlledBody
		if err := json.Unmarshal([]byte(res.Content[0].Text), &c); err != nil {
			t.Fatal(err)
		}
		return c
	}

	res := call("search", map[string]any{"query": "Föhn", "recency": "week", "exclude_domains": []string{"excluded.example"}})
	b, c := res.body(t), controlled(res)
	if !b.Success || !strings.Contains(b.Report, kept+"[1]") || strings.Contains(b.Report, "excluded.example") ||
		strings.Contains(b.Report, "[2]") || len(b.Metadata.Sources) != 1 || b.Metadata.Sources[0].URL != sources[1].URI ||
		c.Metadata.Filtered == nil || c.Metadata.Filtered.Excluded != 1 {
		t.Errorf("search: %q, sources %+v, filtered %+v; want the excluded source gone and the other [1]",
			b.Report, b.Metadata.Sources, c.Metadata.Filtered)
	}
	reqs := s.mock.RequestsOf(mg.KindSearch)
	if len(reqs) != 1 || c.Metadata.Usage == nil || c.Metadata.Usage.Requests != 1 {
		t.Fatalf("%d requests, usage %+v; want exactly one", len(reqs), c.Metadata.Usage)
	}
	if body := string(reqs[0].Body); !strings.Contains(body, `"timeRangeFilter":{`) || reqs[0].ResponseSchema == nil ||
		!strings.Contains(body, `"responseMimeType":"application/json"`) {
		t.Errorf("the search request lacks the time range or the report's schema: %.600s", body)
	}

	second := controlled(call("search", map[string]any{"query": "Föhn in Tirol"}))
	var status struct {
		Usage struct {
			Today []struct {
				TotalTokens int `json:"total_tokens"`
				Requests    int `json:"requests"`
			} `json:"today"`
		} `json:"usage"`
	}
	if err := json.Unmarshal([]byte(call("ping", map[string]any{}).Content[0].Text), &status); err != nil {
		t.Fatal(err)
	}
	want := c.Metadata.Usage.TotalTokens + second.Metadata.Usage.TotalTokens
	if len(status.Usage.Today) != 1 || status.Usage.Today[0].TotalTokens != want || status.Usage.Today[0].Requests != 2 {
		t.Errorf("ping's usage today %+v, want %d tokens in 2 requests", status.Usage.Today, want)
	}

	if b := call("fetch", map[string]any{"url": page}).body(t); !b.Success || b.Report != "# Föhn\n\nDer ganze Artikel." {
		t.Errorf("fetch: %+v", b)
	}
	if b := call("fetch", map[string]any{"url": page + "?paid"}).body(t); b.Success || b.Error.Code != "FETCH_FAILED" ||
		!strings.Contains(b.Error.Message, "PAYWALL") {
		t.Errorf("a paywalled page: %+v, want FETCH_FAILED", b.Error)
	}
	fetches := len(s.mock.RequestsOf(mg.KindFetch))
	if b := call("fetch", map[string]any{"url": "http://127.0.0.1:3000/mcp"}).body(t); b.Success ||
		b.Error.Code != "INVALID_ARGUMENT" || len(s.mock.RequestsOf(mg.KindFetch)) != fetches {
		t.Errorf("a loopback URL: %+v, want it refused before any request", b.Error)
	}
	s.note("one request a search (%d tokens), ping sums %d; fetch, paywall and loopback as users see them", c.Metadata.Usage.TotalTokens, want)
}
