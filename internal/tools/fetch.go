package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools/clientpath"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools/schemas"
)

// FetchArgs are the arguments of fetch.
type FetchArgs struct {
	URL         string `json:"url"`
	MaxChars    int    `json:"max_chars,omitempty"` // 0: research.DefaultFetchChars
	Format      string `json:"format,omitempty"`    // "": research.FormatMarkdown
	Model       string `json:"model,omitempty"`
	Fresh       bool   `json:"fresh,omitempty"`
	WaitSeconds *int   `json:"wait_seconds,omitempty"` // nil: GEMINI_CALL_WAIT
}

// maxFetchChars bounds max_chars.
const maxFetchChars = 1_000_000

func fetchTool() mcp.Tool {
	return mcp.NewTool("fetch",
		mcp.WithTitleAnnotation("Read a web page"),
		mcp.WithDescription("Reads one web page and returns its content as Markdown (or plain text), fast: no research, "+
			"no searching. On the Gemini API it reads through URL context; on the Gemini CLI through Firecrawl when "+
			"configured (pages that need JavaScript), else the agent's web fetch. A page that cannot be read (an error, "+
			"a paywall, a page deemed unsafe) is FETCH_FAILED. Only public http(s) URLs. A long page comes in parts "+
			"(fetch_chunk)."),
		mcp.WithString("url", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(4096),
			mcp.Description("The page's http or https URL; never a loopback, link-local or private address.")),
		mcp.WithInteger("max_chars", mcp.Min(100), mcp.Max(maxFetchChars),
			mcp.Description(fmt.Sprintf("The most characters of the page returned (default %d); the rest is cut, "+
				"the answer marked partial.", research.DefaultFetchChars))),
		mcp.WithString("format", mcp.Enum(research.FormatMarkdown, research.FormatText), mcp.DefaultString(research.FormatMarkdown),
			mcp.Description("markdown: headings, lists, tables and links kept. text: plain text.")),
		modelArgument(),
		freshArgument(),
		waitArgument(),
		mcp.WithRawOutputSchema(json.RawMessage(schemas.Report)),
		readOnlyAnnotations(true),
	)
}

// Fetch reads one page.
func (t *Tools) Fetch(ctx context.Context, a FetchArgs) (*Report, error) {
	return record(ctx, t, "fetch", a.URL, func(ctx context.Context) (*Report, error) {
		if err := t.checkArguments("fetch", a); err != nil {
			return nil, err
		}
		page, err := publicURL(ctx, strings.TrimSpace(a.URL))
		if err != nil {
			return nil, &Error{Code: backend.CodeInvalidArgument, Message: "invalid arguments for fetch: url: " + err.Error()}
		}
		rep, err := t.research(ctx, a.Model, func(ctx context.Context, p research.Progress) (research.Report, error) {
			return t.engine.Fetch(ctx, research.FetchRequest{URL: page, MaxChars: a.MaxChars, Format: a.Format,
				Model: a.Model, Fresh: a.Fresh, Progress: p})
		})
		if err != nil {
			return nil, err
		}
		return t.report(rep, clientpath.Output{}), nil
	})
}

// resolveWait bounds the look-up of a URL's host: a name that does not resolve in time is left to the reader.
const resolveWait = 2 * time.Second

// publicURL is raw as fetch reads it: an absolute http(s) URL of a public host. A host that is, or resolves to, a
// loopback, link-local, private or unspecified address (or is named localhost) is refused: the page reader may run
// on this machine (the Gemini CLI's web fetch), and must not be pointed at it or its network.
func publicURL(ctx context.Context, raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%q is not an http or https URL", raw)
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") || strings.HasSuffix(host, ".local") ||
		strings.HasSuffix(host, ".internal") {
		return "", fmt.Errorf("%s names this machine or its network", u.Hostname())
	}
	addrs := []netip.Addr{}
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = append(addrs, a)
	} else {
		ctx, cancel := context.WithTimeout(ctx, resolveWait)
		defer cancel()
		found, _ := net.DefaultResolver.LookupNetIP(ctx, "ip", host) // unresolved: the reader fails on it
		addrs = append(addrs, found...)
	}
	for _, a := range addrs {
		if a = a.Unmap(); a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
			a.IsUnspecified() || a.IsMulticast() || a.IsInterfaceLocalMulticast() {
			return "", fmt.Errorf("%s is %s, a loopback, link-local or private address", u.Hostname(), cmp.Or(a.String(), "?"))
		}
	}
	return u.String(), nil
}
