package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"regexp"
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

// resolveWait bounds the look-up of a URL's host.
const resolveWait = 2 * time.Second

// hostName is what a host name fetch takes looks like: ASCII labels of letters, digits and hyphens, the last one
// not all digits (a number is no name: 2130706433 and 0x7f.1 are addresses to a browser's URL parser).
var hostName = regexp.MustCompile(`^([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+[a-z]([a-z0-9-]*[a-z0-9])?$`)

// publicURL is raw as fetch reads it: an absolute http(s) URL of a public host. The host must be a standard IP
// literal or a host name that resolves, and no address it is or resolves to may be loopback, private, link-local,
// shared (100.64/10), unspecified, multicast or otherwise not global: the page reader may run on this machine (the
// Gemini CLI's web fetch), and must not be pointed at it or its network. The reader resolves the name again, and
// may follow a redirect: what it then reaches is not checked here.
func publicURL(ctx context.Context, raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return "", fmt.Errorf("%q is not an http or https URL (without a user name)", raw)
	}
	host := backend.ASCIIHost(u.Hostname())
	var addrs []netip.Addr
	switch a, err := netip.ParseAddr(host); {
	case err == nil:
		addrs = []netip.Addr{a}
	case !hostName.MatchString(host):
		return "", fmt.Errorf("%q is neither a host name nor an IP address", u.Hostname())
	case host == "localhost" || strings.HasSuffix(host, ".localhost") || strings.HasSuffix(host, ".local") ||
		strings.HasSuffix(host, ".internal"):
		return "", fmt.Errorf("%s names this machine or its network", u.Hostname())
	default:
		ctx, cancel := context.WithTimeout(ctx, resolveWait)
		defer cancel()
		if addrs, err = net.DefaultResolver.LookupNetIP(ctx, "ip", host); err != nil || len(addrs) == 0 {
			return "", fmt.Errorf("%s does not resolve: it cannot be checked to be a public host", u.Hostname())
		}
	}
	for _, a := range addrs {
		if !public(a) {
			return "", fmt.Errorf("%s is %s, a loopback, link-local, private or otherwise not public address",
				u.Hostname(), a.String())
		}
	}
	return u.String(), nil
}

// notPublic are the ranges a global unicast address may still be in that reach this machine or its network.
var notPublic = []netip.Prefix{
	netip.MustParsePrefix("100.64.0.0/10"), // shared address space (carrier-grade NAT)
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("fec0::/10"), // site-local, deprecated but routed by some
	netip.MustParsePrefix("::/96"),     // IPv4-compatible
}

// nat64 is the NAT64 prefix: its addresses' last 32 bits are an IPv4 address, which is what is reached.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// public reports whether a is an address of the public internet.
func public(a netip.Addr) bool {
	a = a.Unmap()
	if nat64.Contains(a) {
		b := a.As16()
		return public(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
	}
	if !a.IsGlobalUnicast() || a.IsPrivate() {
		return false
	}
	for _, p := range notPublic {
		if p.Contains(a) {
			return false
		}
	}
	return true
}
