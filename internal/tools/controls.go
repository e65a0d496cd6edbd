package tools

import (
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"golang.org/x/text/language"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
)

// maxDomains bounds include_domains and exclude_domains.
const maxDomains = 20

// Controls are the arguments of search and deep_search that steer their sources: which domains, and how recent.
type Controls struct {
	Include  []string `json:"include_domains,omitempty"`
	Exclude  []string `json:"exclude_domains,omitempty"`
	Recency  string   `json:"recency,omitempty"`  // day, week, month or year
	After    string   `json:"after,omitempty"`    // YYYY-MM-DD
	Before   string   `json:"before,omitempty"`   // YYYY-MM-DD
	Language string   `json:"language,omitempty"` // BCP 47
	Country  string   `json:"country,omitempty"`  // ISO 3166-1 alpha-2
}

// recencies are how far back recency reaches.
var recencies = map[string]func(time.Time) time.Time{
	"day":   func(t time.Time) time.Time { return t.AddDate(0, 0, -1) },
	"week":  func(t time.Time) time.Time { return t.AddDate(0, 0, -7) },
	"month": func(t time.Time) time.Time { return t.AddDate(0, -1, 0) },
	"year":  func(t time.Time) time.Time { return t.AddDate(-1, 0, 0) },
}

// controlArguments are the arguments of Controls, which search and deep_search take.
func controlArguments() []mcp.ToolOption {
	return []mcp.ToolOption{includeDomainsArgument(), excludeDomainsArgument(), recencyArgument(), afterArgument(),
		beforeArgument(), languageArgument(), countryArgument()}
}

func includeDomainsArgument() mcp.ToolOption {
	return mcp.WithArray("include_domains", mcp.WithStringItems(mcp.MinLength(1), mcp.MaxLength(253)),
		mcp.MaxItems(maxDomains), mcp.Description("Only sources from these domains (and their subdomains), e.g. "+
			"[\"python.org\"]: the research searches them, and the report cites no other."))
}

func excludeDomainsArgument() mcp.ToolOption {
	return mcp.WithArray("exclude_domains", mcp.WithStringItems(mcp.MinLength(1), mcp.MaxLength(253)),
		mcp.MaxItems(maxDomains), mcp.Description("No sources from these domains (and their subdomains), e.g. "+
			"[\"pinterest.com\"]: the report cites none, and metadata.filtered counts what was removed."))
}

func recencyArgument() mcp.ToolOption {
	return mcp.WithString("recency", mcp.Enum("day", "week", "month", "year"),
		mcp.Description("Only sources published within the last day, week, month or year (Google Search's time range "+
			"on the Gemini API; asked of the agent on the CLI). Or give after and before."))
}

func afterArgument() mcp.ToolOption {
	return mcp.WithString("after", mcp.Pattern(datePattern),
		mcp.Description("Only sources published on this date (YYYY-MM-DD) or later."))
}

func beforeArgument() mcp.ToolOption {
	return mcp.WithString("before", mcp.Pattern(datePattern), mcp.Description("Only sources published before this date (YYYY-MM-DD)."))
}

func languageArgument() mcp.ToolOption {
	return mcp.WithString("language", mcp.MaxLength(35), mcp.Description("The report's language, and the language of "+
		"the sources it prefers, as a BCP 47 tag: de, fr, pt-BR."))
}

func countryArgument() mcp.ToolOption {
	return mcp.WithString("country", mcp.Pattern(`^[A-Za-z]{2}$`), mcp.Description("Where the sources (and the facts "+
		"as they apply) should come from, as an ISO 3166-1 code: DE, US, JP."))
}

// datePattern is what after and before look like.
const datePattern = `^[0-9]{4}-[0-9]{2}-[0-9]{2}$`

// period is the time range the controls ask for, from now: zero ends for none; an INVALID_ARGUMENT for a date that
// is none, a range that ends before it begins, or recency given with after or before.
func (c Controls) period(tool string, now time.Time) (after, before time.Time, err error) {
	bad := func(msg string) error {
		return &Error{Code: backend.CodeInvalidArgument, Message: "invalid arguments for " + tool + ": " + msg}
	}
	if c.Recency != "" {
		if c.After != "" || c.Before != "" {
			return after, before, bad("give recency, or after and before, not both")
		}
		return recencies[c.Recency](now), time.Time{}, nil
	}
	for _, d := range []struct {
		name, value string
		to          *time.Time
	}{{"after", c.After, &after}, {"before", c.Before, &before}} {
		if d.value == "" {
			continue
		}
		if *d.to, err = time.Parse(time.DateOnly, d.value); err != nil {
			return after, before, bad(fmt.Sprintf("%s: %q is not a date like 2026-01-31", d.name, d.value))
		}
	}
	switch {
	case !after.IsZero() && !before.IsZero() && !before.After(after):
		return after, before, bad("before must be after after")
	case after.After(now):
		return after, before, bad("after is in the future: no source is published yet")
	case !before.IsZero() && before.Before(time.Unix(0, 0)):
		return after, before, bad("before is before 1970")
	}
	return after, before, nil
}

// steering is the controls as a research request of tool takes them, or an INVALID_ARGUMENT saying which is wrong.
func (c Controls) steering(tool string) (s research.Steering, err error) {
	if s.Include, s.Exclude, err = c.domains(tool); err != nil {
		return s, err
	}
	if s.After, s.Before, err = c.period(tool, time.Now()); err != nil {
		return s, err
	}
	s.Language, s.Country, err = c.place(tool)
	return s, err
}

// place is the language and country asked for in their canonical form (de, pt-BR; DE), or an INVALID_ARGUMENT for
// one that is none.
func (c Controls) place(tool string) (lang, country string, err error) {
	if c.Language != "" {
		tag, perr := language.Parse(c.Language)
		if perr != nil {
			return "", "", &Error{Code: backend.CodeInvalidArgument, Message: fmt.Sprintf("invalid arguments for %s: "+
				"language: %q is not a BCP 47 language tag like de or pt-BR", tool, c.Language)}
		}
		lang = tag.String()
	}
	if c.Country != "" {
		region, perr := language.ParseRegion(c.Country)
		if perr != nil || !region.IsCountry() {
			return "", "", &Error{Code: backend.CodeInvalidArgument, Message: fmt.Sprintf("invalid arguments for %s: "+
				"country: %q is not an ISO 3166 country code like DE", tool, c.Country)}
		}
		country = region.String()
	}
	return lang, country, nil
}

// domains are d in the form the engine keeps them, or an INVALID_ARGUMENT saying which is no domain.
func (d Controls) domains(tool string) (include, exclude []string, err error) {
	for _, list := range []struct {
		name string
		in   []string
		out  *[]string
	}{{"include_domains", d.Include, &include}, {"exclude_domains", d.Exclude, &exclude}} {
		for _, v := range list.in {
			domain, err := research.Domain(v)
			if err != nil {
				return nil, nil, &Error{Code: backend.CodeInvalidArgument,
					Message: "invalid arguments for " + tool + ": " + list.name + ": " + err.Error()}
			}
			*list.out = append(*list.out, domain)
		}
	}
	return include, exclude, nil
}
