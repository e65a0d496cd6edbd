package research

import (
	"cmp"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

// Controls narrow what a report may cite: its most sources, and the domains its sources may or may not come from.
// The prompt asks for them, and the report is held to them: a source they rule out is removed, the claims resting
// on it alone are no longer supported, and the markers are numbered anew with none left pointing nowhere.
type Controls struct {
	Limit int // the most sources the report lists; 0: no limit beyond the backend's
	Steering
}

// Steering is what a research request says its sources may be: which domains, how recent, in what language and
// from where.
type Steering struct {
	Include []string // domains (with their subdomains) its sources must come from (Domain's form); none: any
	Exclude []string // domains (with their subdomains) its sources must not come from
	// After and Before bound when its sources were published (zero: no bound): the prompt asks for them, and the
	// API's Google Search searches only that time range. A source carries no date to hold it to.
	After, Before time.Time
	// Language (a BCP 47 tag: de, pt-BR) is the language of the report and of the sources it prefers; Country (ISO
	// 3166-1: DE) is where its sources and facts should come from. Both are asked in the prompt; "": any.
	Language, Country string
}

// Filtered is what the controls removed from a report, for its metadata.
type Filtered struct {
	Excluded    int `json:"excluded,omitempty"`     // sources from an excluded domain
	NotIncluded int `json:"not_included,omitempty"` // sources from none of the included domains
	OverLimit   int `json:"over_limit,omitempty"`   // sources past the limit
}

// domainPattern is what a domain of Include or Exclude looks like: example.org, docs.python.org.
var domainPattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$`)

// Domain is d as Controls keep it (lower case, in its ASCII form as DNS has it, without a scheme, "www." or a
// path: münchen.de is xn--mnchen-3ya.de), or an error saying what is wrong with it.
func Domain(given string) (string, error) {
	d := strings.ToLower(strings.TrimSpace(given))
	if !strings.Contains(d, "://") {
		d = "//" + d // a host with a path, as example.org/docs, is a URL's host too
	}
	if u, err := url.Parse(d); err == nil && u.Host != "" {
		d = u.Hostname()
	}
	d = strings.TrimPrefix(backend.ASCIIHost(d), "www.")
	if !domainPattern.MatchString(d) {
		return "", fmt.Errorf("%q is not a domain like example.org", strings.TrimSpace(given))
	}
	return d, nil
}

// orNil is f, or nil when nothing was removed.
func (f Filtered) orNil() *Filtered {
	if f == (Filtered{}) {
		return nil
	}
	return &f
}

// any reports whether the controls hold the report's sources to anything.
func (c Controls) any() bool { return c.Limit > 0 || len(c.Include) > 0 || len(c.Exclude) > 0 }

// key is the controls as part of a request's identity (for the cache and joining).
func (c Controls) key() string {
	return fmt.Sprintf("%d|%s|%s|%s|%s|%s|%s", c.Limit, strings.Join(c.Include, ","), strings.Join(c.Exclude, ","),
		day(c.After), day(c.Before), c.Language, c.Country)
}

// day is t as a date, "" for zero.
func day(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.DateOnly)
}

// request is req with the controls' time range.
func (c Controls) request(req backend.Request) backend.Request {
	req.After, req.Before = c.After, c.Before
	return req
}

// instructions are the controls as the prompt gives them to the agent, after the topic; "" without any domain, time,
// language or country rule.
func (c Controls) instructions() string {
	var b strings.Builder
	if len(c.Include) > 0 {
		fmt.Fprintf(&b, "\n\nUse and cite only sources from these sites: %s. Search them with site: (for example "+
			"site:%s).", strings.Join(c.Include, ", "), c.Include[0])
	}
	if len(c.Exclude) > 0 {
		fmt.Fprintf(&b, "\n\nDo not use or cite sources from these sites: %s. Leave them out of searches with -site: "+
			"(for example -site:%s).", strings.Join(c.Exclude, ", "), c.Exclude[0])
	}
	switch after, before := day(c.After), day(c.Before); {
	case after != "" && before != "":
		fmt.Fprintf(&b, "\n\nUse only sources published from %s to before %s.", after, before)
	case after != "":
		fmt.Fprintf(&b, "\n\nUse only sources published on %s or later.", after)
	case before != "":
		fmt.Fprintf(&b, "\n\nUse only sources published before %s.", before)
	}
	if c.Language != "" {
		fmt.Fprintf(&b, "\n\nWrite the report in the language with the BCP 47 tag %s, and prefer sources written in it.",
			c.Language)
	}
	if c.Country != "" {
		fmt.Fprintf(&b, "\n\nPrefer sources from the country with the ISO 3166 code %s, and facts as they apply there.",
			c.Country)
	}
	return b.String()
}

// why is the reason the controls rule s out, as the Filtered field it counts in; nil when they allow it.
func (c Controls) why(s backend.Source, f *Filtered) *int {
	d := sourceDomain(s)
	switch {
	case slices.ContainsFunc(c.Exclude, func(x string) bool { return within(d, x) }):
		return &f.Excluded
	case len(c.Include) > 0 && !slices.ContainsFunc(c.Include, func(x string) bool { return within(d, x) }):
		return &f.NotIncluded
	}
	return nil
}

// keep numbers anew the sources the controls allow, in their order, up to the limit: the old number of each (from 1)
// → its new one; the others are counted in f.
func (c Controls) keep(sources []backend.Source, f *Filtered) (number map[int]int, kept []backend.Source) {
	number = map[int]int{}
	for i, s := range sources {
		switch reason := c.why(s, f); {
		case reason != nil:
			*reason++
		case c.Limit > 0 && len(kept) == c.Limit:
			f.OverLimit++
		default:
			kept = append(kept, s)
			number[i+1] = len(kept)
		}
	}
	return number, kept
}

// grounding is g held to the controls: the sources they allow, numbered anew, and the citations of those (a
// citation left with no source is dropped, so its claim is unsupported when the markers are placed).
func (c Controls) grounding(g *backend.Grounding, f *Filtered) *backend.Grounding {
	number, kept := c.keep(g.Sources, f)
	out := &backend.Grounding{Sources: kept, Queries: g.Queries}
	for _, ct := range g.Citations {
		var sources []int
		for _, n := range ct.Sources {
			if to, ok := number[n]; ok {
				sources = append(sources, to)
			}
		}
		if len(sources) > 0 {
			slices.Sort(sources)
			out.Citations = append(out.Citations, backend.Citation{Text: ct.Text, Sources: sources})
		}
	}
	return out
}

// cited is text, which cites sources by their number, held to the controls: the sources they allow, numbered
// anew, and text's markers to match; a marker of a source removed is dropped.
func (c Controls) cited(text string, sources []backend.Source, f *Filtered) (string, []backend.Source) {
	number, kept := c.keep(sources, f)
	renumbered, _ := renumber(text, 0, len(sources), number)
	return renumbered, kept
}

// visited are the pages of urls the domain rules allow: a page of an excluded domain is not shown as read for the
// report (raw search lists them as its sources when the report numbers none).
func (c Controls) visited(urls []string) []string {
	if len(c.Include) == 0 && len(c.Exclude) == 0 {
		return urls
	}
	var f Filtered
	out := []string{}
	for _, u := range urls {
		if c.why(backend.Source{URL: u}, &f) == nil {
			out = append(out, u)
		}
	}
	return out
}

// within reports whether domain d is x or one of its subdomains.
func within(d, x string) bool { return d == x || strings.HasSuffix(d, "."+x) }

// groundingRedirect is the host of the Google Search grounding's source URLs, which redirect to the page: the
// page's domain is then the source's title.
const groundingRedirect = "vertexaisearch.cloud.google.com"

// sourceDomain is the domain a source comes from, as Domain keeps it; "" when it cannot be told.
func sourceDomain(s backend.Source) string {
	u, err := url.Parse(s.URL)
	if err != nil {
		return ""
	}
	host := u.Hostname()
	if host == groundingRedirect {
		host = cmp.Or(s.Domain, s.Title) // the title is the domain, unless Google named another
	}
	d, err := Domain(cmp.Or(host, "-"))
	if err != nil {
		return ""
	}
	return d
}
