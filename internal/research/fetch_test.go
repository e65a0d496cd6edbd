package research_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	mg "github.com/gemini-search-mcp/gemini-search-mcp/internal/mockgemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
)

// TestFetchOnTheAPI: a page is read through URL context alone (no search), and comes back whole, or cut at
// max_chars and marked partial; a page URL context could not read is FETCH_FAILED with why and what to do.
func TestFetchOnTheAPI(t *testing.T) {
	t.Parallel()
	const page = "https://example.com/article"
	mock := mg.New()
	paywalled := mg.Reply{Text: "The page is behind a paywall.", URLs: []mg.URLMetadata{{URL: page + "?paid", Status: mg.URLRetrievalPaywall}}}
	mock.Handle(mg.KindFetch, mg.ByPrompt(mg.Always(mg.Fetched("# Größe\n\nThe whole article, über alles.", page)),
		mg.Route{Contains: page + "?paid", Respond: mg.Always(paywalled)}))
	e := apiEngine(t, mock, time.Minute, research.Settings{})

	rep, err := e.Fetch(t.Context(), research.FetchRequest{URL: page})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Report != "# Größe\n\nThe whole article, über alles." || rep.Partial || !slices.Equal(rep.Metadata.SourcesVisited, []string{page}) {
		t.Errorf("fetched %q (partial %v), sources %q", rep.Report, rep.Partial, rep.Metadata.SourcesVisited)
	}
	reqs := mock.RequestsOf(mg.KindFetch)
	if len(reqs) != 1 || !slices.Equal(reqs[0].BuiltinTools, []string{"urlContext"}) || !strings.Contains(reqs[0].Prompt, page) {
		t.Errorf("requests %+v, want one offering URL context alone, naming the page", reqs)
	}

	rep, err = e.Fetch(t.Context(), research.FetchRequest{URL: page, MaxChars: 10, Fresh: true})
	if err != nil || !rep.Partial || !strings.HasPrefix(rep.Report, "# Größe\n\nT") || !strings.Contains(rep.Report, "cut at max_chars") {
		t.Errorf("max_chars 10: %q, %v", rep.Report, err)
	}

	// A model that read nothing through URL context answered from memory: no page.
	mock.Handle(mg.KindFetch, mg.Always(mg.Text("From memory: the article says things.")))
	if _, err = e.Fetch(t.Context(), research.FetchRequest{URL: page + "?unread"}); !strings.Contains(fmt.Sprint(err), "URL context did not read it") {
		t.Errorf("a page URL context did not read: %v, want FETCH_FAILED", err)
	}
	mock.Handle(mg.KindFetch, mg.Always(paywalled))
	_, err = e.Fetch(t.Context(), research.FetchRequest{URL: page + "?paid"})
	var f *research.Failure
	if !errors.As(err, &f) || f.Code != backend.CodeFetchFailed || !strings.Contains(f.Message, "PAYWALL") ||
		!strings.Contains(f.Details, "paywall") {
		t.Errorf("a paywalled page: %v, want FETCH_FAILED saying why", err)
	}
}
