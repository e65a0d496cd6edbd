package tools

import (
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
)

// maxDomains bounds include_domains and exclude_domains.
const maxDomains = 20

// Domains are the domain arguments of search and deep_search.
type Domains struct {
	Include []string `json:"include_domains,omitempty"`
	Exclude []string `json:"exclude_domains,omitempty"`
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

// domains are d in the form the engine keeps them, or an INVALID_ARGUMENT saying which is no domain.
func (d Domains) domains(tool string) (include, exclude []string, err error) {
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
