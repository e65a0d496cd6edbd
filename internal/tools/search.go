package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools/clientpath"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools/schemas"
)

// SearchArgs are the arguments of search.
type SearchArgs struct {
	Query string `json:"query"`
	Model string `json:"model,omitempty"`
	Limit *int   `json:"limit,omitempty"` // nil: maxLimit
	Raw   bool   `json:"raw,omitempty"`
	Controls
	OutputFile  string `json:"output_file,omitempty"`
	Fresh       bool   `json:"fresh,omitempty"`
	WaitSeconds *int   `json:"wait_seconds,omitempty"` // nil: GEMINI_CALL_WAIT
}

func searchTool() mcp.Tool {
	return mcp.NewTool("search", append(controlArguments(),
		mcp.WithTitleAnnotation("Web research"),
		mcp.WithDescription("Researches a question on the web in a single round: a Gemini agent searches with Google Search, "+
			"reads pages (JavaScript-heavy ones through Firecrawl when configured), and returns a Markdown report with its sources. "+
			"Use it for quick answers that need current information. Takes seconds to a minute or two; a call waits up to "+
			"wait_seconds (45 s by default), then answers status running with a research_id: call research_result with it "+
			"for the report."),
		mcp.WithString("query", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(maxQueryLen),
			mcp.Description("The question or topic to research. Be specific: include names, versions and time frames.")),
		modelArgument(),
		mcp.WithInteger("limit", mcp.Min(1), mcp.Max(maxLimit),
			mcp.Description("The most sources the report may cite (1 to 20). Default: 12.")),
		mcp.WithBoolean("raw", mcp.DefaultBool(false),
			mcp.Description("Return {summary, sources: [{url, title, snippet}]} instead of a report: for a caller that "+
				"wants the sources themselves.")),
		outputFileArgument(),
		freshArgument(),
		waitArgument(),
		mcp.WithRawOutputSchema(json.RawMessage(schemas.Report)),
		researchAnnotations(),
	)...)
}

// maxLimit is the most sources a search may be asked for.
const maxLimit = 20

// limit is the most sources the report may cite; 0 leaves it to the engine.
func (a SearchArgs) limit() int {
	if a.Limit == nil {
		return 0
	}
	return *a.Limit
}

// Search researches a question in one round. Its answer is a *Report, or with Raw a *RawReport.
func (t *Tools) Search(ctx context.Context, a SearchArgs) (Result, error) {
	return record(ctx, t, "search", a.Query, func(ctx context.Context) (Result, error) {
		if err := t.checkArguments("search", a); err != nil {
			return nil, err
		}
		query := strings.TrimSpace(a.Query)
		if query == "" {
			return nil, blankArgument("search", "query")
		}
		steering, err := a.steering("search")
		if err != nil {
			return nil, err
		}
		req := research.SearchRequest{Query: query, Model: a.Model, Limit: a.limit(), Fresh: a.Fresh, Steering: steering}
		out, err := t.outputFile(ctx, "search", a.OutputFile)
		if err != nil {
			return nil, err
		}
		rep, err := t.research(ctx, a.Model, func(ctx context.Context, p research.Progress) (research.Report, error) {
			req.Progress = p
			return t.engine.Search(ctx, req)
		})
		switch {
		case err != nil:
			return nil, err
		case a.Raw:
			return t.rawReport(rep, a.limit(), out), nil
		}
		return t.report(rep, out), nil
	})
}

// RawReport is a raw search's answer: the report's text and its sources, not a report.
type RawReport struct {
	Success    bool              `json:"success"`
	Summary    string            `json:"summary"`
	Sources    []backend.Source  `json:"sources"`
	Partial    bool              `json:"partial,omitempty"`
	OutputFile *OutputFileStatus `json:"output_file,omitempty"`
	Metadata   research.Metadata `json:"metadata"`
}

// rawReport shapes rep as a raw search: its summary and at most limit of its sources (the numbered ones, else the
// URLs visited), with the whole report written to out when it names a file.
func (t *Tools) rawReport(rep research.Report, limit int, out clientpath.Output) *RawReport {
	r := &RawReport{Success: true, Summary: rep.Summary, Sources: rep.Metadata.Sources, Partial: rep.Partial,
		Metadata: rep.Metadata}
	if len(r.Sources) == 0 {
		for _, u := range rep.Metadata.SourcesVisited {
			r.Sources = append(r.Sources, backend.Source{URL: u})
		}
	}
	r.Sources = slices.Clip(r.Sources[:min(len(r.Sources), cmp.Or(limit, maxLimit))])
	if r.Sources == nil {
		r.Sources = []backend.Source{}
	}
	if out.Path != "" {
		r.OutputFile = t.writeReport(out, rep.Report)
	}
	return r
}

// CallToolResult is r with how it was made in _meta.
func (r *RawReport) CallToolResult() *mcp.CallToolResult {
	res := structured(*r)
	res.Meta = runOf(r.Metadata, r.Partial).meta()
	return res
}

func (r *RawReport) firecrawl() string { return r.Metadata.Firecrawl }

func (r *RawReport) size() int { return len(r.Summary) }
