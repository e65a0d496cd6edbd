// Package backend is the contract between the research engine and the backends that run its prompts: the Gemini
// CLI agent (internal/gemini) and the Gemini API (internal/geminiapi). Both take a Request and produce the same
// Result, Events and classified Errors, so every tool, round, correction, fallback and queue works on either.
package backend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// A Runner runs one prompt on a backend. Run returns an *Error for every failure it can classify (with
// CodeTimeout or CodeAPITimeout when its own time limit ran out, with what was produced in Partial), and an error
// wrapping ctx.Err() when ctx ended first.
type Runner interface {
	Run(ctx context.Context, req Request) (Result, error)
}

// RunnerFunc is a function that runs prompts.
type RunnerFunc func(ctx context.Context, req Request) (Result, error)

// Run calls f.
func (f RunnerFunc) Run(ctx context.Context, req Request) (Result, error) { return f(ctx, req) }

// Names of the backends: the values of GEMINI_BACKEND, and (CLI, API and GoogleAgent) what metadata.backend and
// the status views show.
const (
	CLI         = "cli"
	API         = "api"
	Auto        = "auto"         // GEMINI_BACKEND's choice per call: the CLI while it can serve, else the API
	GoogleAgent = "google-agent" // Google's Deep Research agent (Agent), which deep_search's engine google runs
)

// Request is one research prompt.
type Request struct {
	Prompt string
	Model  string // "" lets the backend choose
	Plain  bool   // the prompt needs no research tools (a JSON correction): the API offers none
	Fetch  bool   // the prompt reads pages and searches nothing (fetch): the API offers URL context alone
	// Schema, when set, is the JSON schema the answer must follow (the prompt asks for it in words too). A backend
	// that can hold its model to a schema does (the API, on the models of GEMINI_API_JSON_MODELS); the others, and
	// the API on any other model, rely on the prompt, and the engine corrects an answer that is not valid JSON.
	Schema  json.RawMessage
	OnEvent func(Event) // optional; called in order for each search or read, from another goroutine, never after Run returns
	// Dirs are folders the agent sees besides its workspace: their file tree, and @path references in the prompt
	// (the CLI's --include-directories). The API backend reads no files and ignores them.
	Dirs []string
	// Documents are texts the prompt refers to by name (@Name): a run of the request gets those it names
	// (NamedDocuments); a JSON correction, another request, gets none.
	Documents []Document
	// Timeout replaces the runner's own time limit for this run, and TimeoutVar names the variable that sets it, for
	// the advice when it runs out; 0: the runner's limit (GEMINI_SEARCH_TIMEOUT).
	Timeout    time.Duration
	TimeoutVar string
	// Deadline, when set, is when the run must end: the deadline of the call it is part of, which its other runs
	// share. Timeout is then the call's whole limit, the one a timeout reports.
	Deadline time.Time
	// After and Before, when set, bound when the sources were published: the prompt asks for them, and the API's
	// Google Search takes them as its time range.
	After, Before time.Time
}

// Bound is ctx limited by the run's time limit: its Deadline when set, else limit (0: none) from now.
func (r Request) Bound(ctx context.Context, limit time.Duration) (context.Context, context.CancelFunc) {
	if !r.Deadline.IsZero() {
		return context.WithDeadline(ctx, r.Deadline)
	}
	return WithTimeout(ctx, limit)
}

// Limit is the run's time limit, given the runner's own, and the variable that sets it.
func (r Request) Limit(runner time.Duration) (time.Duration, string) {
	if r.Timeout > 0 {
		return r.Timeout, r.TimeoutVar
	}
	return runner, "GEMINI_SEARCH_TIMEOUT"
}

// Result is what a run produced.
type Result struct {
	Text       string      // the answer, trimmed
	Model      string      // the model that did the work, if known
	Queries    []string    // search queries run, deduplicated, in order
	URLs       []string    // URLs read or cited, deduplicated, in order
	ToolErrors []ToolError // tool calls that failed; the agent went on without them
	Truncated  bool        // answer text was dropped to stay within the output limit
	Streamed   bool        // the CLI wrote stream-json
	Duration   time.Duration
	Backend    string     // CLI or API
	Switched   string     // why auto ran this on a backend other than its first choice; "" when it did not
	Grounding  *Grounding // the API's grounding data; nil on the CLI
	// Unfinished says why the answer stopped before its end, when the backend knows it did: the Gemini API's finish
	// reason when it is not STOP (FinishMaxTokens, SAFETY, RECITATION, …), or NoFinishReason when its stream ended
	// without one. "" for an answer that ended whole. Such an answer is kept, but what is built on it is partial.
	Unfinished string
	// FirecrawlDown says why Firecrawl, configured for the CLI, did not start or failed (in the CLI's words when it
	// gave them): the agent researched without its tools. "" when it ran, or is not configured.
	FirecrawlDown string
	Usage         *Usage // what the run used, as its backend tells it; nil: not told
	// Unread are the pages the run could not read, each with why, as the backend tells it (URL context's
	// retrieval status: URL_RETRIEVAL_STATUS_PAYWALL, …); nil: none, or not told.
	Unread map[string]string
}

// Usage is what a run used, as the Gemini API counts it (and the Gemini CLI tells it).
type Usage struct {
	InputTokens   int `json:"input_tokens"`
	OutputTokens  int `json:"output_tokens"`
	ThoughtTokens int `json:"thought_tokens,omitempty"`
	TotalTokens   int `json:"total_tokens"`
	Searches      int `json:"searches,omitempty"` // Google searches run (grounding tool uses)
	Requests      int `json:"requests,omitempty"` // requests made to the Gemini API, retries included, when known
}

// Plus is u and o summed; nil when both are nil.
func (u *Usage) Plus(o *Usage) *Usage {
	if u == nil && o == nil {
		return nil
	}
	var sum Usage
	for _, x := range []*Usage{u, o} {
		if x != nil {
			sum.InputTokens += x.InputTokens
			sum.OutputTokens += x.OutputTokens
			sum.ThoughtTokens += x.ThoughtTokens
			sum.TotalTokens += x.TotalTokens
			sum.Searches += x.Searches
			sum.Requests += x.Requests
		}
	}
	return &sum
}

// Why an answer is Unfinished, besides the API's other finish reasons.
const (
	FinishMaxTokens = "MAX_TOKENS"                           // the model reached its limit of output tokens
	NoFinishReason  = "stream ended without a finish reason" // the API's stream ended before the model said it was done
)

// EventKind sorts the backend's steps for progress reports.
type EventKind string

const (
	EventSearch  EventKind = "search"  // a web search: google_web_search, *firecrawl_search, Google Search grounding
	EventFetch   EventKind = "fetch"   // a page read: web_fetch, *firecrawl_scrape, *firecrawl_map, URL context
	EventTool    EventKind = "tool"    // any other tool
	EventFailed  EventKind = "failed"  // a tool call that returned an error
	EventText    EventKind = "text"    // the answer grew: Text is what was added, as the model wrote it
	EventThought EventKind = "thought" // the agent says what it is thinking about: Text
)

// Event is one step of a run: a tool call of the CLI, or a search or URL read the API reports while it streams.
type Event struct {
	Kind  EventKind
	Tool  string // the tool's name, e.g. "google_web_search", "mcp_firecrawl_firecrawl_scrape"
	Query string // the search query, if any
	URL   string // the first URL the step names, if any
	Error string // EventFailed: the tool's error message
	Text  string // EventText: the text added to the answer; EventThought: the agent's words
}

// Masked is e with mask (a secret masker's) applied to every text it carries: events leave the server as progress
// messages, and as the stages the tray and /status show.
func (e Event) Masked(mask func(string) string) Event {
	e.Query, e.URL, e.Error, e.Text = mask(e.Query), mask(e.URL), mask(e.Error), mask(e.Text)
	return e
}

// Masked is r with mask (a secret masker's) applied to every text it carries: the answer, the queries and URLs,
// the tools' errors, why Firecrawl was down, and the grounding's queries, sources and cited segments (masked as
// the answer is, so that a segment still matches its place in it).
func (r Result) Masked(mask func(string) string) Result {
	r.Text, r.FirecrawlDown = mask(r.Text), mask(r.FirecrawlDown)
	r.Queries = MaskAll(mask, r.Queries)
	r.URLs = MaskAll(mask, r.URLs)
	r.ToolErrors = slices.Clone(r.ToolErrors)
	for i := range r.ToolErrors {
		r.ToolErrors[i].Message = mask(r.ToolErrors[i].Message)
	}
	if g := r.Grounding; g != nil {
		masked := Grounding{Queries: MaskAll(mask, g.Queries), Sources: slices.Clone(g.Sources),
			Citations: slices.Clone(g.Citations)}
		for i, s := range masked.Sources {
			masked.Sources[i] = Source{URL: mask(s.URL), Title: mask(s.Title), Snippet: mask(s.Snippet)}
		}
		for i := range masked.Citations {
			masked.Citations[i].Text = mask(masked.Citations[i].Text)
		}
		r.Grounding = &masked
	}
	return r
}

// MaskAll is texts with mask applied to each, in a new slice.
func MaskAll(mask func(string) string, texts []string) []string {
	out := make([]string, len(texts))
	for i, s := range texts {
		out[i] = mask(s)
	}
	return out
}

// ToolError is a tool call that failed during a run; the agent was told and went on without it.
type ToolError struct {
	Tool    string
	Message string
}

// Error is a failed run, classified.
type Error struct {
	Code     Code
	Message  string // one clear sentence for a user or a model
	Hint     string // what to do about it
	ExitCode int    // the CLI's exit code; -1 when not applicable
	Detail   string // what the backend said: noise filtered, secrets masked, ≤ ~2 KB
	Partial  Result // whatever was produced before the failure
	Daily    bool   // CodeQuota: the daily quota ran out (a per-minute limit passes; this does not, today)

	Cause error // for Unwrap: gemini.ErrCLINotFound, context.DeadlineExceeded, an API error
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Unwrap returns the cause, if any: errors.Is(err, context.DeadlineExceeded) holds for a timeout.
func (e *Error) Unwrap() error { return e.Cause }

// ErrorCode returns the Code of an *Error in err's chain, or "" if there is none.
func ErrorCode(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// Grounding is what the Gemini API reports its answer rests on, checked against the answer's text.
type Grounding struct {
	Sources   []Source   // deduplicated by URL and numbered from 1 as the markers are; at most MaxSources
	Queries   []string   // the Google searches the model ran; at most MaxQueries
	Citations []Citation // each segment of the answer that the sources support, in the answer's order
}

// Caps on what a report lists: more would bloat the answer without helping a reader.
const (
	MaxSources = 12
	MaxQueries = 8
)

// Source is one web page an answer rests on.
type Source struct {
	URL     string `json:"url"`
	Title   string `json:"title,omitempty"`
	Snippet string `json:"snippet,omitempty"` // what the source says: the first segment it supports, or the agent's words
	// Domain is the page's domain when the URL does not say it (Google Search grounding's redirects); "" otherwise.
	Domain string `json:"-"`
}

// Citation is one segment of the answer and the sources that support it: the report shows a [n] marker after it
// for each source.
type Citation struct {
	Text    string `json:"text"`
	Sources []int  `json:"sources"` // 1-based numbers into Grounding.Sources
}

// Marker is the text put after the segment in the report: [1][3].
func (c Citation) Marker() string {
	var b strings.Builder
	for _, n := range c.Sources {
		fmt.Fprintf(&b, "[%d]", n)
	}
	return b.String()
}

// State is which backend serves research and why, for the status views.
type State struct {
	Mode   string // GEMINI_BACKEND
	Active string // CLI or API
	Reason string // why auto uses the API; "" otherwise
	Warm   int    // CLI processes waiting for a prompt
}

// String is the state in a few words: "Gemini API (auto: the Gemini CLI is not installed)", "Gemini CLI (auto),
// 1 warm". The reason loses its details in brackets (the CLI's own message): results and the log have them.
func (st State) String() string {
	name := "Gemini CLI"
	if st.Active == API {
		name = "Gemini API"
	}
	switch {
	case st.Reason != "":
		reason, _, _ := strings.Cut(st.Reason, " (")
		name += " (auto: " + reason + ")"
	case st.Mode == Auto:
		name += " (auto)"
	}
	if st.Warm > 0 {
		name += fmt.Sprintf(", %d warm", st.Warm)
	}
	return name
}
