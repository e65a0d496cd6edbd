package research_test

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	mg "github.com/gemini-search-mcp/gemini-search-mcp/internal/mockgemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
)

// TestTimeRangeOnTheAPI: a search of sources after a date asks Google Search for that time range, up to now.
func TestTimeRangeOnTheAPI(t *testing.T) {
	t.Parallel()
	mock := mg.New()
	e := apiEngine(t, mock, time.Minute, research.Settings{})
	after := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	if _, err := e.Search(t.Context(), research.SearchRequest{Query: "go news", Steering: research.Steering{After: after}}); err != nil {
		t.Fatal(err)
	}
	reqs := mock.RequestsOf(mg.KindSearch)
	if len(reqs) == 0 || !strings.Contains(string(reqs[0].Body), `"timeRangeFilter":{"endTime":"`) ||
		!strings.Contains(string(reqs[0].Body), `"startTime":"2026-11-20T00:00:00Z"`) ||
		!strings.Contains(reqs[0].Prompt, "published on 2026-11-20 or later") {
		t.Errorf("the request does not carry the time range: %s", reqs[0].Body)
	}
}

// TestExcludedDomainOnTheAPI: a grounded answer's source from an excluded domain is removed, the others numbered
// anew; the claim that rested on it alone is no longer supported, and has no marker.
func TestExcludedDomainOnTheAPI(t *testing.T) {
	t.Parallel()
	mock := mg.New()
	report := "Go 1.26 shipped in February. It has generics. It is fast."
	mock.Handle(mg.KindSearch, mg.Always(mg.GroundedAnswer(jsonAnswer(report),
		[]mg.Source{{URI: "https://example.org/go", Title: "example.org"}, {URI: "https://go.dev/doc", Title: "go.dev"}},
		mg.Cite("Go 1.26 shipped in February.", 0), mg.Cite("It has generics.", 0, 1), mg.Cite("It is fast.", 1))))
	e := apiEngine(t, mock, time.Minute, research.Settings{})
	rep, err := e.Search(t.Context(), research.SearchRequest{Query: "go 1.26", Steering: research.Steering{Exclude: []string{"example.org"}}})
	if err != nil {
		t.Fatal(err)
	}
	m := rep.Metadata
	want := "Go 1.26 shipped in February. It has generics.[1] It is fast.[1]"
	if rep.Summary != want || len(m.Sources) != 1 || m.Sources[0].URL != "https://go.dev/doc" ||
		*m.ClaimsSupported != 2 || *m.ClaimsUnsupported != 1 || m.Filtered == nil || m.Filtered.Excluded != 1 {
		t.Errorf("report %q (want %q); sources %+v; claims %d/%d; filtered %+v", rep.Summary, want, m.Sources,
			*m.ClaimsSupported, *m.ClaimsUnsupported, m.Filtered)
	}
}

// TestUsageOnTheAPI: a report's metadata.usage is the API's usageMetadata, with the requests made (a retry too).
func TestUsageOnTheAPI(t *testing.T) {
	t.Parallel()
	mock := mg.New()
	var calls atomic.Int32
	mock.Handle(mg.KindSearch, func(*mg.Request) mg.Reply {
		if calls.Add(1) == 1 {
			return mg.Unavailable()
		}
		return mg.Grounded(jsonAnswer("Go 1.26 shipped."), mg.DefaultSources...)
	})
	e := apiEngine(t, mock, time.Minute, research.Settings{})
	rep, err := e.Search(t.Context(), research.SearchRequest{Query: "go"})
	if err != nil {
		t.Fatal(err)
	}
	if u := rep.Metadata.Usage; u == nil || u.Requests != 2 || u.TotalTokens == 0 || u.TotalTokens != u.InputTokens+u.OutputTokens {
		t.Errorf("usage %+v, want the answer's tokens and two requests", u)
	}
}
