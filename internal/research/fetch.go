package research

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

// Formats of a fetched page.
const (
	FormatMarkdown = "markdown"
	FormatText     = "text"
)

// DefaultFetchChars is the most characters of a page fetch returns when the request says nothing.
const DefaultFetchChars = 50_000

// FetchRequest is one call of the fetch tool: one page, read, not researched.
type FetchRequest struct {
	URL      string // an http(s) URL the caller has checked (tools: no loopback, link-local or private address)
	MaxChars int    // the most characters of the page returned; 0: DefaultFetchChars
	Format   string // FormatMarkdown (the default) or FormatText
	Model    string // overrides Settings.Model for this call
	Fresh    bool
	Progress Progress
}

// fetchPrompt asks for one page's content, whole, in a format, and nothing else. It is the engine's own: a fetch
// is no research, and no template of the user's applies.
const fetchPrompt = `Read the web page at this URL with your tool for reading web pages (URL context, web_fetch, or
firecrawl_scrape when you have it): %s

Return the page's main content %s, whole and in its own words: keep its headings, lists, tables and links; leave out
navigation, ads, cookie banners and footers. Do not summarize, do not comment, do not search the web, and do not add
anything of your own. If the page cannot be read, say only why, in one sentence.`

// Fetch reads one page through the backend's own page reader (URL context on the Gemini API, web_fetch or
// Firecrawl on the Gemini CLI) and returns its content, cut to MaxChars. A page the backend reports it could not read
// (an error, a paywall, a page deemed unsafe) is a FETCH_FAILED Failure. It shares search's queue, cache, joining
// and time limit (GEMINI_SEARCH_TIMEOUT).
func (e *Engine) Fetch(ctx context.Context, req FetchRequest) (Report, error) {
	model := e.model(req.Model)
	req.Format = cmp.Or(req.Format, FormatMarkdown)
	req.MaxChars = cmp.Or(req.MaxChars, DefaultFetchChars)
	return e.joined(ctx, []string{"fetch", req.URL, req.Format, fmt.Sprint(req.MaxChars), model}, req.Fresh, req.Progress,
		func(ctx context.Context, p Progress) (Report, error) {
			req.Progress = p
			return e.fetch(ctx, req, model)
		})
}

func (e *Engine) fetch(ctx context.Context, req FetchRequest, model string) (Report, error) {
	ctx = withDeadline(ctx, e.settings.SearchTimeout, "GEMINI_SEARCH_TIMEOUT")
	start := e.now()
	req.Progress.report("reading: " + req.URL)
	as := "as Markdown"
	if req.Format == FormatText {
		as = "as plain text, without Markdown"
	}
	rr, err := e.round(ctx, backend.Request{Prompt: fmt.Sprintf(fetchPrompt, req.URL, as), Model: model, Fetch: true},
		freeText, req.Progress, nil)
	if err != nil {
		return Report{}, e.failure(ctx, req.URL, err)
	}
	if f := unread(req.URL, rr.res); f != nil {
		return Report{}, f
	}
	b := newBuilder(req.URL, "", start)
	b.freeText = true
	b.use(rr)
	rep := b.report(e.now())
	if page := []rune(rep.Summary); len(page) > req.MaxChars {
		rep.Summary = string(page[:req.MaxChars])
		rep.Report = rep.Summary + fmt.Sprintf("\n\n[The page goes on: cut at max_chars, %d characters.]", req.MaxChars)
		rep.Partial = true
	}
	rep.Metadata.SourcesVisited = []string{req.URL}
	rep.Metadata.Timestamp = start.UTC().Format(time.RFC3339)
	return rep, nil
}

// unread is why the run res of a fetch of page did not read it, as a FETCH_FAILED Failure; nil when it did. On the
// Gemini API, URL context must have read the page (a model that read nothing would answer from memory); on the
// Gemini CLI, a failed page read of its tools (web_fetch, Firecrawl's scrape) is the failure.
func unread(page string, res backend.Result) *Failure {
	same := func(u string) bool {
		return strings.TrimSuffix(strings.ToLower(u), "/") == strings.TrimSuffix(strings.ToLower(page), "/")
	}
	fail := func(why, fix string) *Failure {
		return &Failure{Code: backend.CodeFetchFailed, Backend: res.Backend, Message: fmt.Sprintf("The page %s "+
			"could not be read (%s).", page, why), Details: fix}
	}
	for u, why := range res.Unread {
		if same(u) {
			return fail(why, unreadFix(why))
		}
	}
	for _, te := range res.ToolErrors {
		if strings.Contains(te.Tool, "fetch") || strings.Contains(te.Tool, "scrape") {
			return fail(shorten(te.Message), unreadFix(""))
		}
	}
	if res.Backend == backend.API && !slices.ContainsFunc(res.URLs, same) {
		return fail("URL context did not read it", unreadFix(""))
	}
	return nil
}

// unreadFix is what to do about a page URL context could not read, by its status.
func unreadFix(status string) string {
	switch status {
	case "URL_RETRIEVAL_STATUS_PAYWALL":
		return "The page is behind a paywall or a login: its content is not to be had this way."
	case "URL_RETRIEVAL_STATUS_UNSAFE":
		return "Google deemed the page unsafe and did not read it."
	}
	return "Check that the URL opens in a browser; try again later, or on the Gemini CLI backend with Firecrawl for " +
		"a page that needs JavaScript."
}
