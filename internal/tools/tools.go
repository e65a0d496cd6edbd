// Package tools is the catalogue of MCP tools the server offers: one file per tool with its definition, its typed
// arguments and its typed result, and beside them what shapes a result (the report body, its parts, the output
// file) and the one error type with its codes. Each tool's MCP handler is decode → call → encode (handler.go); the
// transport (internal/mcpserver) serves them, and the REST API (internal/restapi) and the app call the typed calls.
package tools

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/jobs"
	kept "github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools/argcheck"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools/clientpath"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools/parts"
)

// Engine is the research engine the tools call. *research.Engine implements it.
type Engine interface {
	Search(ctx context.Context, req research.SearchRequest) (research.Report, error)
	DeepSearch(ctx context.Context, req research.DeepSearchRequest) (research.Report, error)
	Ask(ctx context.Context, req research.AskRequest) (research.Report, error)
	Structured(ctx context.Context, req research.StructuredRequest) (research.Report, error)
	FollowUp(ctx context.Context, req research.FollowUpRequest) (research.Report, error)
	Fetch(ctx context.Context, req research.FetchRequest) (research.Report, error)
}

// maxQueryLen bounds a query's or topic's length in characters; maxPromptLen an ask's prompt.
const (
	maxQueryLen  = 10000
	maxPromptLen = 100000
)

// defaultResponseChars applies when Options.ResponseLimit is not set.
const defaultResponseChars = 20000

// Options configure the tools.
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
	Workspace func() clientpath.Workspace
	// Status is what ping answers; nil: the version alone.
	Status func() Status
	// CallWait returns GEMINI_CALL_WAIT, read per call: how long a research call waits for its job before it
	// answers Running; nil: DefaultCallWait.
	CallWait func() time.Duration
	// Lifetime ends when the server shuts down, and every research job with it; nil: never.
	Lifetime context.Context
	// Library keeps research jobs beyond the process, so that research_result answers after a restart too; nil:
	// jobs are kept in memory only.
	Library Library
	// Sweeper runs the sweep of the parts of long reports; nil: parts past their time go only as others are
	// stored.
	Sweeper Sweeper
}

// Sweeper runs, every minute or so, the sweeps of the stores that keep things for a while: each drops what is past
// its time at now and returns the bytes its store still holds.
type Sweeper interface {
	Add(sweep func(now time.Time) (held int))
}

// Instructions is what the server tells MCP clients about its tools.
const Instructions = "Web research through Gemini (the Gemini CLI agent, or the Gemini API) with Google Search " +
	"grounding and, on the CLI, Firecrawl scraping. " +
	"Use `search` for a question that needs current information (seconds to a minute or two); use `deep_search` " +
	"for a topic that deserves verified, thorough research (1 to 5 minutes). Both return a Markdown report with " +
	"sources. `ask` sends a free request (explain, compare, review) to the same agent; `structured` returns its " +
	"answer as data in your JSON Schema. A report longer than the " +
	"response limit comes in parts: fetch the rest with `fetch_chunk`. Research that outlasts a call's wait " +
	"(wait_seconds, 45 s by default) goes on: the call answers status running with a research_id, and " +
	"`research_result` returns the answer (`research_cancel` stops it); never start the same research again. " +
	"`list_research` finds past reports by their words; each is the resource research://reports/{id}. " +
	"`follow_up` asks a further question about a finished report, building on its sources. `ping` " +
	"says at once which backend serves and whether it is set up."

// Tools is the catalogue of tools of one server.
type Tools struct {
	engine  Engine
	opts    Options
	chunks  *parts.Store
	jobs    *jobs.Registry[Result]
	all     []server.ServerTool
	checks  map[string]*argcheck.Arguments                                    // by tool name
	starts  map[string]func(context.Context, json.RawMessage) (string, error) // the research tools', by name: Start
	resumes map[string]func(context.Context, kept.Job) error                  // the research tools', by name: Resume
	// stageKeepers stop writing the stages of the running jobs to the library (keepStages), by job id.
	stageKeepers sync.Map
	takingOn     sync.Mutex // one TakeOn at a time: a second asking for the same job finds it taken on
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
		o.Workspace = func() clientpath.Workspace { return clientpath.Workspace{} }
	}
	if o.Status == nil {
		o.Status = func() Status { return Status{Status: "ok", Version: o.Version} }
	}
	if o.CallWait == nil {
		o.CallWait = func() time.Duration { return DefaultCallWait }
	}
	if o.Lifetime == nil {
		o.Lifetime = context.Background()
	}
	if o.Library == nil {
		o.Library = noLibrary{}
	}
	t := &Tools{engine: engine, opts: o, chunks: parts.NewStore(), checks: map[string]*argcheck.Arguments{},
		starts:  map[string]func(context.Context, json.RawMessage) (string, error){},
		resumes: map[string]func(context.Context, kept.Job) error{}}
	t.jobs = jobs.New(o.Lifetime, jobs.Options[Result]{Size: resultBytes, MaxRunning: maxRunningJobs, Ended: t.keepEnd})
	if o.Sweeper != nil {
		o.Sweeper.Add(t.chunks.Sweep)
		o.Sweeper.Add(t.jobs.Sweep)
	}
	t.all = []server.ServerTool{
		researchHandler(t, longResults(searchTool()), t.Search, func(a SearchArgs) string { return a.Query },
			func(a SearchArgs) *int { return a.WaitSeconds }),
		researchHandler(t, longResults(deepSearchTool()), asResult(t.DeepSearch), func(a DeepSearchArgs) string { return a.Topic },
			func(a DeepSearchArgs) *int { return a.WaitSeconds }),
		researchHandler(t, longResults(askTool()), asResult(t.Ask), func(a AskArgs) string { return a.Prompt },
			func(a AskArgs) *int { return a.WaitSeconds }),
		researchHandler(t, longResults(structuredTool()), asResult(t.Structured), func(a StructuredArgs) string { return a.Prompt },
			func(a StructuredArgs) *int { return a.WaitSeconds }),
		researchHandler(t, longResults(followUpTool()), asResult(t.FollowUp), func(a FollowUpArgs) string { return a.Question },
			func(a FollowUpArgs) *int { return a.WaitSeconds }),
		researchHandler(t, longResults(fetchTool()), asResult(t.Fetch), func(a FetchArgs) string { return a.URL },
			func(a FetchArgs) *int { return a.WaitSeconds }),
		handler(t, longResults(researchResultTool()), t.ResearchResult),
		handler(t, researchCancelTool(), t.ResearchCancel),
		handler(t, listResearchTool(), t.ListResearch),
		handler(t, longResults(fetchChunkTool()), t.FetchChunk),
		handler(t, pingTool(), t.Ping),
	}
	return t
}

// asResult is call with its answer as a Result.
func asResult[A any, R Result](call func(context.Context, A) (R, error)) func(context.Context, A) (Result, error) {
	return func(ctx context.Context, a A) (Result, error) {
		res, err := call(ctx, a)
		if err != nil {
			return nil, err
		}
		return res, nil
	}
}

// maxResultChars is what a tool whose result can be long declares in _meta["anthropic/maxResultSizeChars"]: Claude
// Code saves a result above about 25,000 tokens to a file and shows the model a 2 KB preview, unless the tool
// allows more (up to about 500,000 characters). A report is at most GEMINI_MAX_RESPONSE_CHARS long, with its
// sources and metadata around it.
const maxResultChars = 500_000

// longResults marks tool as one whose results can be long.
func longResults(tool mcp.Tool) mcp.Tool {
	tool.Meta = &mcp.Meta{AdditionalFields: map[string]any{"anthropic/maxResultSizeChars": maxResultChars}}
	return tool
}

// ServerTools are the tools with their handlers, as an MCP server adds them.
func (t *Tools) ServerTools() []server.ServerTool { return t.all }

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

func waitArgument() mcp.ToolOption {
	return mcp.WithInteger("wait_seconds", mcp.Min(0), mcp.Max(maxWaitSeconds),
		mcp.Description("How long this call waits for the research, in seconds (0 to 600): stay under how long your "+
			"client waits for a call. Research that takes longer goes on: the call then answers status running with a "+
			"research_id, and research_result waits for it again. Cancelling the call cancels the research. Default: "+
			"the server's GEMINI_CALL_WAIT, 45 s, which suits clients that give up on a call after 60 s."))
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
