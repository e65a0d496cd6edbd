//go:build e2e

package e2e

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	mg "github.com/gemini-search-mcp/gemini-search-mcp/internal/mockgemini"
)

// Results never claim more than they are (issue 21): an answer cut off, or a search that went without its
// Firecrawl, is no whole report, and is not cached as one.

// honesty is what these scenarios read of a search's result besides searchBody.
type honesty struct {
	Partial  bool   `json:"partial"`
	Report   string `json:"report"`
	Metadata struct {
		FinishReason string `json:"finish_reason"`
		Firecrawl    string `json:"firecrawl"`
		Cached       bool   `json:"cached"`
	} `json:"metadata"`
}

func honestyOf(t *testing.T, call string, res *toolResult) honesty {
	t.Helper()
	if res == nil || res.IsError || len(res.Content) == 0 {
		t.Fatalf("%s: no successful result: %+v", call, res)
	}
	var h honesty
	if err := json.Unmarshal([]byte(res.Content[0].Text), &h); err != nil {
		t.Fatalf("%s: the result is not the JSON body: %v", call, err)
	}
	return h
}

// 18. GEMINI_BACKEND=api: an answer cut off by the model's output limit (finishReason MAX_TOKENS), and one whose
// stream just ends without a finish reason, come back partial, say why, and are not cached: the same search
// asked again reaches the API again.
func TestAPICutOffAnswersArePartial(t *testing.T) {
	s := newScenario(t, "18 api: cut-off answers are partial")
	const cut = "```json\n{\"success\": true, \"report\": \"# Go 1.26\\n\\nGo 1.26 was released in February 2026 with"
	s.mock.Handle(mg.KindSearch, mg.ByPrompt(unexpected,
		mg.Route{Contains: "max tokens", Respond: mg.Always(mg.MaxTokens(cut))},
		mg.Route{Contains: "cut off", Respond: mg.Always(mg.CutOff(cut))},
	))
	srv := s.startHTTP("GEMINI_BACKEND=api", "GEMINI_CACHE_TTL=900000")

	for _, tt := range []struct{ query, reason, notice string }{
		{"Go 1.26, max tokens", "MAX_TOKENS", "the model reached its output limit (MAX_TOKENS)"},
		{"Go 1.26, cut off", "stream ended without a finish reason", "the Gemini API's stream ended"},
	} {
		for i := range 2 {
			out := s.sdk(sdkRequest{Transport: "http", URL: srv.url, Arguments: map[string]any{"query": tt.query}}, nil)
			h := honestyOf(t, tt.query, out.Result)
			if !h.Partial || h.Metadata.FinishReason != tt.reason || h.Metadata.Cached ||
				!strings.HasPrefix(h.Report, "[Partial response: the answer was cut off") || !strings.Contains(h.Report, tt.notice) ||
				!strings.Contains(h.Report, "released in February 2026 with") {
				t.Errorf("%q, call %d: partial %v, finish_reason %q, cached %v, report:\n%s", tt.query, i+1, h.Partial,
					h.Metadata.FinishReason, h.Metadata.Cached, h.Report)
			}
			if out.Result.Meta["partial"] != true {
				t.Errorf("%q, call %d: _meta %v, want partial", tt.query, i+1, out.Result.Meta)
			}
		}
	}
	// One request per call: no JSON correction of a cut answer, and nothing from the cache.
	checkAPIRequests(t, s, 0, 4)
}

// 19. Firecrawl configured, but its MCP server cannot start (npx, offline, finds no firecrawl-mcp): the real CLI
// says only "MCP issues detected" on stderr and researches on without it. The search succeeds and says so:
// metadata.firecrawl, a warning in the server log, and no caching.
func TestFirecrawlThatDidNotStart(t *testing.T) {
	s := newScenario(t, "19 firecrawl did not start")
	groundedScript(s)
	// npx finds the pinned firecrawl-mcp through the node_modules link next to the scenario's config dir
	// (newScenario); from a config dir with none above it, offline, it cannot get one.
	config := filepath.Join(t.TempDir(), "config")
	srv := s.startHTTP("GEMINI_SEARCH_CONFIG_DIR="+config, "FIRECRAWL_API_URL=http://"+closedPort(t), "GEMINI_CACHE_TTL=900000")

	for i := range 2 {
		out := s.sdk(sdkRequest{Transport: "http", URL: srv.url, Arguments: map[string]any{"query": question}}, nil)
		checkGroundedReport(t, "sdk", out.Result)
		h := honestyOf(t, "search", out.Result)
		if !strings.HasPrefix(h.Metadata.Firecrawl, "unavailable: ") || h.Metadata.Cached || h.Partial {
			t.Errorf("call %d: metadata.firecrawl %q, cached %v, partial %v; want it unavailable, and the report whole "+
				"but not cached", i+1, h.Metadata.Firecrawl, h.Metadata.Cached, h.Partial)
		}
		if i == 0 {
			s.note("metadata.firecrawl: %s", h.Metadata.Firecrawl)
		}
	}
	chats := s.mock.RequestsOf(mg.KindChat)
	for _, r := range chats {
		if slices.ContainsFunc(r.Tools, func(name string) bool { return strings.HasPrefix(name, "mcp_firecrawl_") }) {
			t.Errorf("request %d offered Firecrawl's tools %q, though it did not start", r.Seq, r.Tools)
		}
	}
	if len(chats) < 4 { // two turns per search: the search call, then the report
		t.Errorf("%d chat requests, want both searches to run the CLI (nothing cached)", len(chats))
	}
	if n := strings.Count(srvLog(s), "Firecrawl did not start"); n != 2 {
		t.Errorf("the server warned %d times that Firecrawl did not start, want once per search:\n%s", n, srvLog(s))
	}
}
