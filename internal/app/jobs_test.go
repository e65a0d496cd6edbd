package app

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
)

// structuredOf calls tool with args and returns its structured content.
func structuredOf(t *testing.T, c *client.Client, tool string, args map[string]any) map[string]any {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = tool, args
	res, err := c.CallTool(context.Background(), req)
	if err != nil || len(res.Content) != 1 {
		t.Fatalf("%s %v: %+v, %v", tool, args, res, err)
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(res.Content[0].(mcp.TextContent).Text), &body); err != nil {
		t.Fatal(err)
	}
	return body
}

// TestResearchAnswersAfterARestart: the report of research that outlasted its call is in the library, and
// research_result returns it from a server started again on the same data dir, which never ran it.
func TestResearchAnswersAfterARestart(t *testing.T) {
	t.Setenv(geminitest.EnvDelay, "300ms")
	fake := geminitest.New(t, geminitest.ScenarioSlow)
	cache, data := t.TempDir(), t.TempDir()
	env := func() map[string]string {
		return map[string]string{"GEMINI_CLI_PATH": fake.Path, "GEMINI_BACKEND": "cli"}
	}

	first := newAppIn(t, env(), cache, data)
	c := connectTo(t, first)
	running := structuredOf(t, c, "search", map[string]any{"query": "kept across a restart", "wait_seconds": 0})
	id, _ := running["research_id"].(string)
	if running["status"] != "running" || id == "" {
		t.Fatalf("search = %v, want status running with a research_id", running)
	}
	report := structuredOf(t, c, "research_result", map[string]any{"research_id": id, "wait_seconds": 600})
	if report["success"] != true || report["report"] == "" {
		t.Fatalf("research_result = %v, want the report", report)
	}
	first.Shutdown()

	again := structuredOf(t, connectTo(t, newAppIn(t, env(), cache, data)), "research_result", map[string]any{"research_id": id})
	if again["success"] != true || again["report"] != report["report"] {
		t.Errorf("research_result after a restart = %v, want the report %q", again, report["report"])
	}
	if !reflect.DeepEqual(again["metadata"], report["metadata"]) {
		t.Errorf("metadata after a restart = %v, want it as researched: %v", again["metadata"], report["metadata"])
	}
}

// TestLibraryForClients: list_research finds a report by a word of its text, and resources/read of its URI returns
// it, Markdown with its sources.
func TestLibraryForClients(t *testing.T) {
	fake := geminitest.New(t, geminitest.ScenarioOK)
	_, c, _ := startWithHistory(t, fake, nil)
	report := structuredOf(t, c, "search", map[string]any{"query": "a report to find again"})
	if report["success"] != true {
		t.Fatalf("search = %v", report)
	}
	listed := structuredOf(t, c, "list_research", map[string]any{"query": "find again"})
	reports, _ := listed["reports"].([]any)
	if len(reports) != 1 {
		t.Fatalf("list_research = %v, want the one report", listed)
	}
	found, _ := reports[0].(map[string]any)
	uri, _ := found["uri"].(string)
	if found["topic"] != "a report to find again" || !strings.HasPrefix(uri, "research://reports/") {
		t.Errorf("list_research found %v", found)
	}
	if none := structuredOf(t, c, "list_research", map[string]any{"query": "zebras"}); len(none["reports"].([]any)) != 0 {
		t.Errorf("list_research of a word no report holds = %v, want none", none)
	}

	req := mcp.ReadResourceRequest{}
	req.Params.URI = uri
	res, err := c.ReadResource(context.Background(), req)
	if err != nil || len(res.Contents) != 1 {
		t.Fatalf("resources/read %s: %+v, %v", uri, res, err)
	}
	text, _ := res.Contents[0].(mcp.TextResourceContents)
	if body, _ := report["report"].(string); text.MIMEType != "text/markdown" || !strings.Contains(text.Text, body) {
		t.Errorf("resources/read = %+v, want the report's Markdown", text)
	}
	resources, err := c.ListResourcesByPage(context.Background(), mcp.ListResourcesRequest{})
	if err != nil || len(resources.Resources) != 1 || resources.Resources[0].URI != uri {
		t.Fatalf("resources/list = %+v, %v; want the report", resources, err)
	}
	if size := resources.Resources[0].Size; size != nil && *size != int64(len(text.Text)) {
		t.Errorf("resources/list says the report holds %d bytes, resources/read returns %d", *size, len(text.Text))
	}
}

// researchIDOf calls search with args and returns the research id its answer names in _meta.
func researchIDOf(t *testing.T, c *client.Client, args map[string]any) string {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "search", args
	res, err := c.CallTool(context.Background(), req)
	if err != nil || res.IsError || res.Meta == nil {
		t.Fatalf("search %v: %+v, %v", args, res, err)
	}
	id, _ := res.Meta.AdditionalFields["researchId"].(string)
	return id
}

// TestCachedAnswersPointToTheirReport: research answered from the cache points, in the library, to the report kept
// when it was researched, so that research_result finds it after the answers in memory have gone.
func TestCachedAnswersPointToTheirReport(t *testing.T) {
	fake := geminitest.New(t, geminitest.ScenarioOK)
	a, c, _ := startWithHistory(t, fake, nil)
	researched := researchIDOf(t, c, map[string]any{"query": "asked twice"})
	cached := researchIDOf(t, c, map[string]any{"query": "asked twice"})
	first, err1 := a.Library().Job(researched)
	second, err2 := a.Library().Job(cached)
	if err1 != nil || err2 != nil || first.ReportID == "" || second.ReportID != first.ReportID {
		t.Errorf("jobs %+v (%v) and %+v (%v), want both done with the one report", first, err1, second, err2)
	}
	if len(kept(a)) != 1 {
		t.Errorf("the library keeps %q, want the report once", kept(a))
	}
}

// TestReportsAreResources: resources/list lists the kept reports, newest kept first, a page at a time, each with its
// URI, topic and MIME type; reports kept while a client goes through the pages neither repeat nor push out the
// older ones; the last page says there is none after it, and a cursor the server never gave lists nothing.
func TestReportsAreResources(t *testing.T) {
	fake := geminitest.New(t, geminitest.ScenarioOK)
	a, c, _ := startWithHistory(t, fake, nil)
	start := time.Now().Add(-time.Hour)
	keep := func(i int) {
		t.Helper()
		// Each report started before the one kept before it: the order they were kept in is not the one they
		// started in.
		if _, err := a.library.Add(record.Report{Summary: record.Summary{Tool: "search", Topic: fmt.Sprintf("topic %02d", i),
			Started: start.Add(-time.Duration(i) * time.Second)}, Markdown: fmt.Sprintf("# Report %02d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 60 {
		keep(i)
	}
	ctx := context.Background()
	var topics []string
	var cursor mcp.Cursor
	for page := 0; page == 0 || cursor != ""; page++ {
		req := mcp.ListResourcesRequest{}
		req.Params.Cursor = cursor
		res, err := c.ListResourcesByPage(ctx, req) // ListResources would go through every page at once
		if err != nil || page > 2 {
			t.Fatalf("resources/list page %d: %v, %v", page+1, res, err)
		}
		for _, r := range res.Resources {
			if !strings.HasPrefix(r.URI, "research://reports/") || r.MIMEType != "text/markdown" {
				t.Errorf("resource %+v, want a report's URI and text/markdown", r)
			}
			topics = append(topics, r.Name)
		}
		cursor = res.NextCursor
		if page == 0 { // research finishes while the client reads
			for i := 60; i < 65; i++ {
				keep(i)
			}
		}
	}
	var want []string
	for i := 59; i >= 0; i-- {
		want = append(want, fmt.Sprintf("topic %02d", i))
	}
	if !slices.Equal(topics, want) {
		t.Errorf("resources/list listed %q;\nwant the 60 reports kept before its first page, newest first: %q", topics, want)
	}

	req := mcp.ListResourcesRequest{}
	req.Params.Cursor = mcp.Cursor(base64.StdEncoding.EncodeToString([]byte("not ours")))
	if res, err := c.ListResourcesByPage(ctx, req); err != nil || len(res.Resources) != 0 || res.NextCursor != "" {
		t.Errorf("resources/list with a foreign cursor = %+v, %v; want nothing", res, err)
	}
}
