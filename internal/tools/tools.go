// Package tools is the catalogue of MCP tools the server offers: each tool's definition, its arguments and the shape
// of its result (the report body, its parts, the output file, the one error type and its codes). The transport
// (internal/mcpserver) serves them; the REST API (internal/restapi) calls them too.
package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
)

// Engine is the research engine the tools call. *research.Engine implements it.
type Engine interface {
	Search(ctx context.Context, req research.SearchRequest) (research.Report, error)
	DeepSearch(ctx context.Context, req research.DeepSearchRequest) (research.Report, error)
	Ask(ctx context.Context, req research.AskRequest) (research.Report, error)
	Structured(ctx context.Context, req research.StructuredRequest) (research.Report, error)
}

// maxQueryLen bounds a query's or topic's length in characters; maxPromptLen an ask's prompt.
const (
	maxQueryLen  = 10000
	maxPromptLen = 100000
)

// Options configure the MCP server.
type Options struct {
	Version       string
	Logger        *slog.Logger       // nil discards
	Activity      *activity.Registry // records running calls and failures; nil records nothing
	ResponseLimit func() int         // characters of a report returned in one piece; nil: 20,000
	Heartbeat     time.Duration      // progress heartbeat; 0: 15 s
	// OutputDir returns GEMINI_OUTPUT_DIR (absolute and clean, "" when unset), read per call: the folder inside which
	// a client other than stdio may have its report written (output_file). nil: "", no file over HTTP.
	OutputDir func() string
	// Workspace returns which folders a client other than stdio may hand to the agent (ask's workingDirectory):
	// GEMINI_WORKSPACE_ROOTS and the private folders; read per call. nil: none, no folder over HTTP.
	Workspace func() Workspace
	// Status is what ping answers; nil: the version alone.
	Status func() Status
	// Sweeper runs the sweep of the parts of long reports; nil: parts past their time go only as others are
	// stored.
	Sweeper Sweeper
}

// Sweeper runs, every minute or so, the sweeps of the stores that keep things for a while: each drops what is past
// its time at now and returns the bytes its store still holds.
type Sweeper interface {
	Add(sweep func(now time.Time) (held int))
}

// Status is the server's state as ping answers it and /healthz serves it: no research runs to find it.
type Status struct {
	Status          string `json:"status"` // "ok"
	Version         string `json:"version"`
	GeminiCLI       string `json:"gemini_cli"`           // how the CLI is started, or "missing"
	CLISignedIn     bool   `json:"gemini_cli_signed_in"` // the CLI has a sign-in of its own
	Backend         string `json:"backend"`              // cli or api: the one serving research now
	BackendMode     string `json:"backend_mode"`         // GEMINI_BACKEND
	BackendReason   string `json:"backend_reason"`       // why auto serves from the API; "" otherwise
	WarmWorkers     int    `json:"warm_workers"`
	RunningSearches int    `json:"running_searches"`
	QueuedSearches  int    `json:"queued_searches"`
}

// Instructions is what the server tells MCP clients about its tools.
const Instructions = "Web research through Gemini (the Gemini CLI agent, or the Gemini API) with Google Search " +
	"grounding and, on the CLI, Firecrawl scraping. " +
	"Use `search` for a question that needs current information (seconds to a minute or two); use `deep_search` " +
	"for a topic that deserves verified, thorough research (several minutes). Both return a Markdown report with " +
	"sources. `ask` sends a free request (explain, compare, review) to the same agent; `structured` returns its " +
	"answer as data in your JSON Schema. A report longer than the " +
	"response limit comes in parts: fetch the rest with `fetch_chunk`. `ping` " +
	"says at once which backend serves and whether it is set up."

// Tools is the catalogue of tools of one server.
type Tools struct {
	engine Engine
	opts   Options
	chunks *chunkStore
	all    []server.ServerTool
}

// New returns the research tools over engine.
func New(engine Engine, o Options) *Tools {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.ResponseLimit == nil {
		o.ResponseLimit = func() int { return defaultResponseChars }
	}
	if o.OutputDir == nil {
		o.OutputDir = func() string { return "" }
	}
	if o.Workspace == nil {
		o.Workspace = func() Workspace { return Workspace{} }
	}
	if o.Status == nil {
		o.Status = func() Status { return Status{Status: "ok", Version: o.Version} }
	}
	t := &Tools{engine: engine, opts: o, chunks: newChunkStore()}
	if o.Sweeper != nil {
		o.Sweeper.Add(t.chunks.sweep)
	}
	for _, st := range []server.ServerTool{
		{Tool: searchTool(), Handler: t.search},
		{Tool: deepSearchTool(), Handler: t.deepSearch},
		{Tool: askTool(), Handler: t.ask},
		{Tool: structuredTool(), Handler: t.structured},
		{Tool: fetchChunkTool(), Handler: t.fetchChunk},
		{Tool: pingTool(), Handler: t.ping},
	} {
		handler := validated(st.Tool, st.Handler)
		if o.Activity != nil { // part of the handler, not a middleware of the server: the HTTP API calls it too
			handler = recordActivity(o.Activity)(handler)
		}
		t.all = append(t.all, server.ServerTool{Tool: st.Tool, Handler: handler})
	}
	return t
}

// ServerTools are the tools with their handlers, as an MCP server adds them.
func (t *Tools) ServerTools() []server.ServerTool { return t.all }

// Handler is the handler of the tool name; nil for none.
func (t *Tools) Handler(name string) server.ToolHandlerFunc {
	for _, st := range t.all {
		if st.Tool.Name == name {
			return st.Handler
		}
	}
	return nil
}

func searchTool() mcp.Tool {
	return mcp.NewTool("search",
		mcp.WithTitleAnnotation("Web research"),
		mcp.WithDescription("Researches a question on the web in a single round: a Gemini agent searches with Google Search, "+
			"reads pages (JavaScript-heavy ones through Firecrawl when configured), and returns a Markdown report with its sources. "+
			"Use it for quick answers that need current information."),
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
		mcp.WithRawOutputSchema(json.RawMessage(reportSchema)),
		researchAnnotations(),
	)
}

// maxLimit is the most sources a search may be asked for.
const maxLimit = 20

func deepSearchTool() mcp.Tool {
	return mcp.NewTool("deep_search",
		mcp.WithTitleAnnotation("Deep web research with verification"),
		mcp.WithDescription("Researches a topic thoroughly: a first round researches it, then verification rounds check the "+
			"draft's key claims against sources, look for newer or contradicting sources and for gaps, and correct the report. "+
			"Returns a Markdown report with sources and how many claims were verified and corrected. Takes several minutes; "+
			"supports MCP tasks and progress notifications."),
		mcp.WithString("topic", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(maxQueryLen),
			mcp.Description("The research question or topic. Be detailed: say what you need to know and why.")),
		mcp.WithString("depth", mcp.Enum(research.DepthConcise, research.DepthDetailed), mcp.DefaultString(research.DepthDetailed),
			mcp.Description("concise: a tight summary with the key sources. detailed: sections, evidence and a sources list.")),
		modelArgument(),
		outputFileArgument(),
		freshArgument(),
		mcp.WithRawOutputSchema(json.RawMessage(reportSchema)),
		mcp.WithTaskSupport(mcp.TaskSupportOptional),
		researchAnnotations(),
	)
}

func askTool() mcp.Tool {
	return mcp.NewTool("ask",
		mcp.WithTitleAnnotation("Ask Gemini"),
		mcp.WithDescription("Sends a free request to a Gemini agent that can search Google and read web pages, and returns "+
			"its answer in Markdown, with the sources it used. Use it for what is not a research report: explain, compare, "+
			"review, draft. The agent cannot run commands or change files. Takes seconds to minutes; supports MCP tasks."),
		mcp.WithString("prompt", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(maxPromptLen),
			mcp.Description("The request, with the context the agent needs. On the Gemini CLI backend, @path names a file "+
				"or folder under workingDirectory (relative to it, or absolute) whose contents the agent gets; any other "+
				"@ reaches the agent as plain text.")),
		modelArgument(),
		mcp.WithString("workingDirectory", mcp.MinLength(1), mcp.MaxLength(maxPathLen),
			mcp.Description("An absolute path to an existing folder the agent may look into: its file tree and the files "+
				"the prompt names with @path (Gemini CLI backend; the API backend reads no files). Over stdio: any folder. "+
				"Over HTTP: only a folder under the server's GEMINI_WORKSPACE_ROOTS, and never a hidden one or one "+
				"holding the server's settings; refused when GEMINI_WORKSPACE_ROOTS is not set. Default: none.")),
		freshArgument(),
		mcp.WithRawOutputSchema(json.RawMessage(reportSchema)),
		mcp.WithTaskSupport(mcp.TaskSupportOptional),
		readOnlyAnnotations(true),
	)
}

func fetchChunkTool() mcp.Tool {
	return mcp.NewTool("fetch_chunk",
		mcp.WithTitleAnnotation("Fetch the rest of a long report"),
		mcp.WithDescription("Returns one part of a report that was too long to send at once. The report's first part says "+
			"its id and how many parts there are; parts are kept for "+chunksKept+"."),
		mcp.WithString("id", mcp.Required(), mcp.Pattern(`^[0-9a-f]{16}$`), mcp.Description("The report id given with its first part.")),
		mcp.WithInteger("index", mcp.Required(), mcp.Min(1), mcp.Description("The part to fetch, from 2 to the number of parts.")),
		mcp.WithRawOutputSchema(json.RawMessage(chunkSchema)),
		readOnlyAnnotations(false),
	)
}

func pingTool() mcp.Tool {
	return mcp.NewTool("ping",
		mcp.WithTitleAnnotation("Server status"),
		mcp.WithDescription("Answers at once, without research: the server's version, the backend serving research (the "+
			"Gemini CLI or the Gemini API, and why), whether the CLI is installed and signed in, warm CLI processes, and "+
			"searches running and queued. Use it to check the server before a long search."),
		mcp.WithRawOutputSchema(json.RawMessage(statusSchema)),
		readOnlyAnnotations(false),
	)
}

func modelArgument() mcp.ToolOption {
	return mcp.WithString("model", mcp.Pattern(backend.ModelPattern), mcp.MaxLength(backend.MaxModelLen),
		mcp.Description("Gemini model for this call, e.g. gemini-2.5-pro, or an alias: pro, flash, flash-lite. Default: the "+
			"server's GEMINI_MODEL, else the backend's choice."))
}

func freshArgument() mcp.ToolOption {
	return mcp.WithBoolean("fresh", mcp.DefaultBool(false),
		mcp.Description("Research again even when the server holds a recent report for the same request "+
			"(GEMINI_CACHE_TTL, 15 minutes by default); such a report comes back at once with metadata.cached."))
}

// readOnlyAnnotations: a tool that changes nothing (so idempotent), reaching beyond the server (the web) or not.
func readOnlyAnnotations(openWorld bool) mcp.ToolOption {
	return annotations(true, openWorld)
}

// researchAnnotations: not read-only, since output_file writes a file (over stdio, anywhere), and a client that
// approves read-only tools on its own must not let a model write files unasked; not destructive, since it writes
// only the file the call names.
func researchAnnotations() mcp.ToolOption { return annotations(false, true) }

// annotations are a tool's hints: never destructive, always idempotent.
func annotations(readOnly, openWorld bool) mcp.ToolOption {
	return func(t *mcp.Tool) {
		for _, o := range []mcp.ToolOption{
			mcp.WithReadOnlyHintAnnotation(readOnly),
			mcp.WithDestructiveHintAnnotation(false),
			mcp.WithIdempotentHintAnnotation(true),
			mcp.WithOpenWorldHintAnnotation(openWorld),
		} {
			o(t)
		}
	}
}

func (t *Tools) search(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	query := strings.TrimSpace(req.GetString("query", ""))
	model := req.GetString("model", "")
	fresh := req.GetBool("fresh", false)
	limit := req.GetInt("limit", 0)
	if query == "" {
		return blankArgument("search", "query"), nil
	}
	out, refused := t.outputFile(ctx, "search", req)
	if refused != nil {
		return refused, nil
	}
	shape := func(rep research.Report) *mcp.CallToolResult { return t.reportResult(rep, out) }
	if req.GetBool("raw", false) {
		shape = func(rep research.Report) *mcp.CallToolResult { return t.rawResult(rep, limit, out) }
	}
	return t.research(ctx, req, model, shape, func(ctx context.Context, p research.Progress) (research.Report, error) {
		return t.engine.Search(ctx, research.SearchRequest{Query: query, Model: model, Limit: limit, Fresh: fresh, Progress: p})
	}), nil
}

func (t *Tools) deepSearch(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	topic := strings.TrimSpace(req.GetString("topic", ""))
	depth := req.GetString("depth", research.DepthDetailed)
	model := req.GetString("model", "")
	fresh := req.GetBool("fresh", false)
	if topic == "" {
		return blankArgument("deep_search", "topic"), nil
	}
	out, refused := t.outputFile(ctx, "deep_search", req)
	if refused != nil {
		return refused, nil
	}
	return t.research(ctx, req, model, t.reports(out), func(ctx context.Context, p research.Progress) (research.Report, error) {
		return t.engine.DeepSearch(ctx, research.DeepSearchRequest{Topic: topic, Depth: depth, Model: model,
			Fresh: fresh, Progress: p})
	}), nil
}

func (t *Tools) ask(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	prompt := req.GetString("prompt", "")
	model := req.GetString("model", "")
	dir := req.GetString("workingDirectory", "")
	fresh := req.GetBool("fresh", false)
	if strings.TrimSpace(prompt) == "" {
		return blankArgument("ask", "prompt"), nil
	}
	if dir != "" {
		var err error
		if dir, err = agentFolder(dir, overStdio(ctx), t.opts.Workspace()); err != nil {
			return ErrorResult(Error{Code: CodeInvalidArgument,
				Message: "invalid arguments for ask: workingDirectory " + err.Error()}), nil
		}
	}
	return t.research(ctx, req, model, t.reports(outputFile{}), func(ctx context.Context, p research.Progress) (research.Report, error) {
		return t.engine.Ask(ctx, research.AskRequest{Prompt: prompt, Model: model, Dir: dir, Fresh: fresh, Progress: p,
			OnText: textSink(ctx)})
	}), nil
}

// research runs one research call, as an MCP task when the client asked for one, with progress reporting, and
// gives its report the shape of the result (reports, or rawResult).
func (t *Tools) research(ctx context.Context, req mcp.CallToolRequest, model string,
	shape func(research.Report) *mcp.CallToolResult,
	run func(context.Context, research.Progress) (research.Report, error)) *mcp.CallToolResult {
	start := time.Now()
	if task := taskOf(ctx); task != nil {
		var release context.CancelFunc
		ctx, release = task.Detach(ctx)
		defer release()
	}
	p := startProgress(ctx, req, cmp.Or(t.opts.Heartbeat, defaultHeartbeat))
	defer p.stop()
	rep, err := run(ctx, p.report)
	if err != nil {
		return errorResult(ctx, start, model, err)
	}
	return shape(rep)
}

// reports shapes a result as a report, written to out too when it names a file.
func (t *Tools) reports(out outputFile) func(research.Report) *mcp.CallToolResult {
	return func(rep research.Report) *mcp.CallToolResult { return t.reportResult(rep, out) }
}

// rawBody is a raw search's structured content: the report's text and its sources, not a report.
type rawBody struct {
	Success    bool              `json:"success"`
	Summary    string            `json:"summary"`
	Sources    []backend.Source  `json:"sources"`
	Partial    bool              `json:"partial,omitempty"`
	OutputFile *outputFileStatus `json:"output_file,omitempty"`
	Metadata   research.Metadata `json:"metadata"`
}

// rawResult shapes rep as a raw search: its summary and at most limit of its sources (the numbered ones, else the
// URLs visited), with the whole report written to out when it names a file.
func (t *Tools) rawResult(rep research.Report, limit int, out outputFile) *mcp.CallToolResult {
	body := rawBody{Success: true, Summary: rep.Summary, Sources: rep.Metadata.Sources, Partial: rep.Partial,
		Metadata: rep.Metadata}
	if len(body.Sources) == 0 {
		for _, u := range rep.Metadata.SourcesVisited {
			body.Sources = append(body.Sources, backend.Source{URL: u})
		}
	}
	body.Sources = slices.Clip(body.Sources[:min(len(body.Sources), cmp.Or(limit, maxLimit))])
	if body.Sources == nil {
		body.Sources = []backend.Source{}
	}
	if out.path != "" {
		body.OutputFile = t.writeReport(out, rep.Report)
	}
	res := structured(body)
	res.Meta = meta(rep.Metadata.DurationMS, rep.Metadata.Model, rep.Partial)
	addBackend(res.Meta, rep.Metadata.Backend, rep.Metadata.BackendReason)
	return res
}

func (t *Tools) fetchChunk(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	id := req.GetString("id", "")
	index := req.GetInt("index", 0)
	text, count, err := t.chunks.get(id, index)
	if err != nil {
		info := Error{Code: CodeInvalidArgument, Message: err.Error(),
			Details: "Ask for a part from 1 to the count the report gave."}
		if errors.Is(err, errChunkNotFound) { // expired, dropped, or never given: only a new search has the parts
			info.Code, info.Details = CodeChunkNotFound, "Run the search again to get a new id (a recent report may come "+
				"back from the cache), and fetch the parts soon after."
		}
		return ErrorResult(info), nil
	}
	return structured(chunkBody{Success: true, ID: id, Index: index, Count: count, Text: text}), nil
}

func (t *Tools) ping(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return structured(t.opts.Status()), nil
}

// reportBody is the structured content of a report; Chunks is set when the report comes in parts, OutputFile when
// the call asked for the report in a file.
type reportBody struct {
	research.Report
	Chunks     *chunkRef         `json:"chunks,omitempty"`
	OutputFile *outputFileStatus `json:"output_file,omitempty"`
}

type chunkRef struct {
	ID    string `json:"id"`
	Count int    `json:"count"`
}

type chunkBody struct {
	Success bool   `json:"success"`
	ID      string `json:"id"`
	Index   int    `json:"index"`
	Count   int    `json:"count"`
	Text    string `json:"text"`
}

// reportResult sends rep, in parts when it is longer than the response limit, after writing the whole of it to out
// when out names a file.
func (t *Tools) reportResult(rep research.Report, out outputFile) *mcp.CallToolResult {
	body := reportBody{Report: rep}
	if out.path != "" {
		body.OutputFile = t.writeReport(out, rep.Report)
	}
	if limit := t.opts.ResponseLimit(); len(rep.Report) > limit { // bytes ≥ characters: a cheap first check
		if parts := split(rep.Report, limit); len(parts) > 1 {
			id := t.chunks.put(rep.Report, parts)
			body.Chunks = &chunkRef{ID: id, Count: len(parts)}
			body.Report.Report = parts[0] + fmt.Sprintf("\n\n[Report continues: this is part 1 of %d. Call fetch_chunk with "+
				"id %q and index 2 to %d for the rest; the parts are kept for up to %d minutes.]", len(parts), id, len(parts),
				int(chunkTTL/time.Minute))
		}
	}
	res := structured(body)
	res.Meta = meta(rep.Metadata.DurationMS, rep.Metadata.Model, rep.Partial)
	addBackend(res.Meta, rep.Metadata.Backend, rep.Metadata.BackendReason)
	if rep.Metadata.Cached {
		res.Meta.AdditionalFields["cached"] = true
	}
	return res
}

func blankArgument(tool, arg string) *mcp.CallToolResult {
	return ErrorResult(Error{Code: CodeInvalidArgument,
		Message: fmt.Sprintf("invalid arguments for %s: %s must contain text, not only white space", tool, arg)})
}

// structured sends v both as structuredContent and as its JSON text, for clients that read only text.
func structured(v any) *mcp.CallToolResult {
	text, err := json.MarshalIndent(v, "", "  ")
	if err != nil { // only plain structs and strings are passed here
		panic(fmt.Sprintf("marshal tool result: %v", err))
	}
	return mcp.NewToolResultStructured(v, string(text))
}

// addBackend says in m which backend produced the result and why auto chose it, when known.
func addBackend(m *mcp.Meta, backend, reason string) {
	for name, value := range map[string]string{"backend": backend, "backendReason": reason} {
		if value != "" {
			m.AdditionalFields[name] = value
		}
	}
}

func meta(durationMS int64, model string, partial bool) *mcp.Meta {
	fields := map[string]any{"durationMs": durationMS, "partial": partial}
	if model != "" {
		fields["model"] = model
	}
	return &mcp.Meta{AdditionalFields: fields}
}

// textSinkKey marks a call whose answer is streamed as it is written.
type textSinkKey struct{}

// WithTextSink marks ctx as the context of a call whose answer is streamed to sink as it is written.
func WithTextSink(ctx context.Context, sink func(string)) context.Context {
	return context.WithValue(ctx, textSinkKey{}, sink)
}

// textSink is the call's stream of the answer, or nil.
func textSink(ctx context.Context) func(string) {
	sink, _ := ctx.Value(textSinkKey{}).(func(string))
	return sink
}

