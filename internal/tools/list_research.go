package tools

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools/schemas"
)

// The research library for clients: list_research finds past reports by their words, and each report is the
// resource research://reports/{id}, Markdown with its sources.

// reportURI is the URI of the kept report id.
func reportURI(id string) string { return "research://reports/" + id }

// maxListed bounds list_research's limit.
const maxListed = 50

// ListResearchArgs are the arguments of list_research.
type ListResearchArgs struct {
	Query string `json:"query,omitempty"`
	Since string `json:"since,omitempty"` // a date (2026-11-01) or a time (RFC 3339)
	Limit int    `json:"limit,omitempty"` // 0: 10
}

func listResearchTool() mcp.Tool {
	return mcp.NewTool("list_research",
		mcp.WithTitleAnnotation("Search past research"),
		mcp.WithDescription("Searches the reports this server's research has produced (its research library) by the "+
			"words of their topics and text, newest among the best matches first, and returns for each its id, tool, "+
			"topic, date and one line of it: the words in context, else its opening. Read a whole report as the resource research://reports/{id}. Use it "+
			"before researching a topic again."),
		mcp.WithString("query", mcp.MaxLength(500),
			mcp.Description("Words the report's topic or text holds, every one of them. Default: every report.")),
		mcp.WithString("since", mcp.Pattern(`^\d{4}-\d{2}-\d{2}(T.+)?$`),
			mcp.Description("Only reports researched since this date (2026-11-01) or time (RFC 3339).")),
		mcp.WithInteger("limit", mcp.Min(1), mcp.Max(maxListed), mcp.Description("The most reports to return (1 to 50). Default: 10.")),
		mcp.WithRawOutputSchema(json.RawMessage(schemas.Library)),
		readOnlyAnnotations(false),
	)
}

// Listed is list_research's answer.
type Listed struct {
	Success bool           `json:"success"`
	Reports []ListedReport `json:"reports"`
}

// ListedReport is one report list_research found.
type ListedReport struct {
	ID      string `json:"id"`
	URI     string `json:"uri"` // the resource that holds the whole report
	Tool    string `json:"tool"`
	Topic   string `json:"topic"`
	Started string `json:"started"` // RFC 3339
	TookMS  int64  `json:"took_ms"`
	Partial bool   `json:"partial,omitempty"`
	Excerpt string `json:"excerpt,omitempty"` // one line: the query's words in their context, else the opening of the text
}

func (l *Listed) CallToolResult() *mcp.CallToolResult { return structured(*l) }
func (l *Listed) firecrawl() string                   { return "" }
func (l *Listed) size() int                           { return 0 }

// ListResearch searches the research library.
func (t *Tools) ListResearch(ctx context.Context, a ListResearchArgs) (*Listed, error) {
	if err := t.checkArguments("list_research", a); err != nil {
		return nil, err
	}
	var since time.Time
	if a.Since != "" {
		var err error
		if since, err = parseSince(a.Since); err != nil {
			return nil, &Error{Code: backend.CodeInvalidArgument, Message: "invalid arguments for list_research: " + err.Error()}
		}
	}
	found, err := t.opts.Library.Search(a.Query, since, cmp.Or(a.Limit, 10))
	if err != nil {
		return nil, &Error{Code: backend.CodeInternal, Message: "the research library cannot be read: " + err.Error()}
	}
	listed := &Listed{Success: true, Reports: []ListedReport{}}
	for _, s := range found {
		listed.Reports = append(listed.Reports, ListedReport{ID: s.ID, URI: reportURI(s.ID), Tool: s.Tool, Topic: s.Topic,
			Started: s.Started.UTC().Format(time.RFC3339), TookMS: s.Duration.Milliseconds(), Partial: s.Partial,
			Excerpt: s.Excerpt})
	}
	return listed, nil
}

// parseSince reads list_research's since: a date, midnight UTC, or an RFC 3339 time.
func parseSince(v string) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("since %q is neither a date (2026-11-01) nor an RFC 3339 time", v)
	}
	return t, nil
}

// ReportResource is the resource template of the kept reports, research://reports/{id}, with its handler.
func (t *Tools) ReportResource() server.ServerResourceTemplate {
	template := mcp.NewResourceTemplate("research://reports/{id}", "Research report",
		mcp.WithTemplateDescription("A report of the research library, in Markdown with its sources: list_research "+
			"finds them."),
		mcp.WithTemplateMIMEType("text/markdown"))
	return server.ServerResourceTemplate{Template: template, Handler: t.readReport}
}

// reportsPerPage is how many reports a page of resources/list holds.
const reportsPerPage = 50

// ListReports is the MCP server's hook after resources/list, which holds no resources of its own: it lists the
// kept reports as resources, newest first, reportsPerPage at a time, the cursor saying where the next page starts:
// after the last report listed, so that reports kept or deleted between two pages neither repeat one nor skip one.
// A cursor this server did not give lists nothing. (The cursor is base64, as mcp-go reads every cursor first.)
func (t *Tools) ListReports(_ context.Context, _ any, req *mcp.ListResourcesRequest, res *mcp.ListResourcesResult) {
	res.Resources, res.NextCursor = []mcp.Resource{}, ""
	after := ""
	if c := req.Params.Cursor; c != "" {
		raw, err := base64.StdEncoding.DecodeString(string(c))
		if err != nil || len(raw) == 0 {
			return
		}
		after = string(raw)
	}
	page, next, err := t.opts.Library.Page(after, reportsPerPage)
	if err != nil {
		t.opts.Logger.Warn("the research library cannot be listed as resources", "err", err)
	}
	for _, s := range page {
		res.Resources = append(res.Resources, mcp.NewResource(reportURI(s.ID), clip(s.Topic, 100),
			mcp.WithResourceTitle(fmt.Sprintf("%s: %s", s.Tool, clip(s.Topic, 100))),
			mcp.WithResourceDescription(cmp.Or(s.Excerpt, s.Topic)),
			mcp.WithMIMEType("text/markdown"), // no size: that of the document resources/read makes is not known here
			mcp.WithLastModified(s.Started.UTC().Format(time.RFC3339))))
	}
	if next != "" {
		res.NextCursor = mcp.Cursor(base64.StdEncoding.EncodeToString([]byte(next)))
	}
}

// clip is s on one line, at most n characters, cut at a word with an ellipsis.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n-1]
	if i := strings.LastIndexByte(string(r), ' '); i > n/2 {
		return string(r)[:i] + "…"
	}
	return string(r) + "…"
}

// readReport reads the resource research://reports/{id}.
func (t *Tools) readReport(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	id := strings.TrimPrefix(req.Params.URI, "research://reports/")
	rep, err := t.opts.Library.Get(id)
	if err != nil {
		return nil, fmt.Errorf("no report %s in the research library: %w", req.Params.URI, err)
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/markdown",
		Text: rep.Document()}}, nil
}
