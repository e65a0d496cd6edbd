// Package research is the engine behind the MCP tools: it turns a research request into prompts, runs them on a
// backend (the Gemini CLI agent or the Gemini API), extracts the JSON report, and shapes the result. It knows nothing
// of MCP, HTTP or the tray.
package research

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/prompts"
)

// Settings is the part of the configuration the engine needs.
type Settings struct {
	Model           string            // "" lets the backend choose
	CorrectionModel string            // model for JSON corrections; "" lets the backend choose
	FallbackModel   string            // model to retry with after a quota error; "" disables the fallback
	Prompts         map[string]string // replacements of the embedded templates, by name (prompts.Names)
	// The time limits of whole calls (deadline.go); 0: the backend's own limit for each run.
	SearchTimeout       time.Duration // search (GEMINI_SEARCH_TIMEOUT)
	DeepSearchTimeout   time.Duration // deep_search (GEMINI_DEEP_SEARCH_TIMEOUT)
	AskTimeout          time.Duration // ask and structured (GEMINI_ASK_TIMEOUT)
	JSONMaxRetries      int           // correction runs allowed when an answer holds no valid JSON report
	MaxIterations       int           // search/read budget given to the agent; also caps MaxRounds
	MaxRounds           int           // deep_search rounds: one research round plus verification rounds
	ProgressLogInterval time.Duration // how often a running request is logged
	Queue               *Queue        // shared limit on concurrent research runs; nil: no limit
	QueueTimeout        time.Duration // longest wait for a queue slot; 0: no limit
	Joins               *Joins        // shared by identical requests running at once; nil: no joining
	Cache               *Cache        // finished reports of identical requests; nil: no cache
	Backend             string        // GEMINI_BACKEND, part of a request's identity for the cache
	// Google's Deep Research agent, deep_search's engine google; nil: not set up (no API key).
	Agent            backend.Agent
	AgentTimeout     time.Duration // the longest the agent's run is followed (GEMINI_DEEP_RESEARCH_TIMEOUT); 0: no limit
	DeepSearchEngine string        // the engine of a deep_search that names none (GEMINI_DEEP_RESEARCH_ENGINE); "": EngineRounds
	AgentPlan        string        // whether the agent plans first (GEMINI_DEEP_RESEARCH_PLAN): PlanAuto (""), PlanConfirm or PlanOff
	// Used, when set, is told what each call spent over all its runs, failed ones too, once per backend and model:
	// the usage meter.
	Used func(Spent)
	// Admit, when set, says whether a call of tool may make a run now, given what it spent so far (the usage
	// meter's limits): a *Failure refuses it. It is asked before each run of the backend or the agent; a call the
	// cache answers, or that joins an identical one running, is not asked about.
	Admit func(tool string, spent backend.Usage) error
}

// slowAfter is when progress logs turn from INFO to WARN.
const slowAfter = 120 * time.Second

// Engine runs research requests.
type Engine struct {
	runner    backend.Runner
	settings  Settings
	templates struct{ research, verify, correction, ask, structured, structuredFix, followUp string }
	log       *slog.Logger
	now       func() time.Time
}

// New returns an engine. logger may be nil.
func New(runner backend.Runner, s Settings, logger *slog.Logger) (*Engine, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	e := &Engine{runner: runner, settings: s, log: logger, now: time.Now}
	for name, dst := range map[string]*string{
		prompts.Research: &e.templates.research, prompts.Verify: &e.templates.verify, prompts.Correction: &e.templates.correction,
		prompts.Ask: &e.templates.ask, prompts.Structured: &e.templates.structured, prompts.StructuredFix: &e.templates.structuredFix,
		prompts.FollowUp: &e.templates.followUp,
	} {
		t, err := prompts.Template(name, s.Prompts)
		if err != nil {
			return nil, err
		}
		*dst = t
	}
	return e, nil
}

// SearchRequest is one call of the search tool.
type SearchRequest struct {
	Query    string
	Model    string   // overrides Settings.Model for this call
	Limit    int      // the most sources the report may cite; 0: backend.MaxSources
	Steering          // what its sources may be
	Fresh    bool     // research again even when the cache holds a report
	Progress Progress // optional
}

// Progress receives short, human-readable stage updates while a request runs: "researching",
// "searching: rust 2024 edition", "reading: https://…". It is called from the engine's goroutines.
type Progress func(stage string)

func (p Progress) report(stage string) {
	if p != nil {
		p(stage)
	}
}

// stageOf describes what the backend is doing from one of its events: a tool call of the CLI, a search or a read
// the API reports.
func stageOf(ev backend.Event) string {
	switch {
	case ev.Kind == backend.EventSearch && ev.Query != "":
		return "searching: " + shorten(ev.Query)
	case ev.Kind == backend.EventFetch && ev.URL != "":
		return "reading: " + ev.URL
	case ev.Kind == backend.EventFailed:
		return "tool failed, going on without it: " + ev.Tool
	case ev.Kind == backend.EventThought:
		return "thinking: " + shorten(ev.Text)
	}
	return "using " + ev.Tool
}

// Report is a research result, shaped as the tools return it.
type Report struct {
	Success      bool     `json:"success"`
	Report       string   `json:"report"`
	Summary      string   `json:"-"`                       // Report without the notices and footers around it, nor the sources list
	ParseWarning bool     `json:"parse_warning,omitempty"` // the agent's answer was not valid JSON: Report is its raw text
	Partial      bool     `json:"partial,omitempty"`       // cut off (timeout, an unfinished answer, a failed round): Report is what was produced
	Metadata     Metadata `json:"metadata"`
}

// Metadata describes how a report was produced.
type Metadata struct {
	DurationMS        int64          `json:"duration_ms"`
	Topic             string         `json:"topic"`
	Depth             string         `json:"depth,omitempty"`
	Model             string         `json:"model"`
	Backend           string         `json:"backend"`                  // backend.CLI or backend.API: what produced the report
	BackendReason     string         `json:"backend_reason,omitempty"` // why auto chose a backend other than the CLI
	FallbackFrom      string         `json:"fallback_from,omitempty"`
	Timestamp         string         `json:"timestamp"`
	SourcesVisited    []string       `json:"sources_visited"`
	SearchQueriesUsed []string       `json:"search_queries_used"`
	Iterations        int            `json:"iterations"`
	Rounds            int            `json:"rounds,omitempty"`
	ClaimsVerified    int            `json:"claims_verified,omitempty"`
	ClaimsCorrected   int            `json:"claims_corrected,omitempty"`
	JSONCorrections   int            `json:"json_corrections,omitempty"`
	OutputTruncated   bool           `json:"output_truncated,omitempty"`
	FinishReason      string         `json:"finish_reason,omitempty"`  // a partial report: why its answer stopped short (MAX_TOKENS, …)
	Firecrawl         string         `json:"firecrawl,omitempty"`      // "unavailable: <reason>" when it did not start
	Cached            bool           `json:"cached,omitempty"`         // answered from the cache (GEMINI_CACHE_TTL)
	CacheAgeMS        *int64         `json:"cache_age_ms,omitempty"`   // how old the cached report is
	FollowUpOf        string         `json:"follow_up_of,omitempty"`   // a follow-up: the id of the report it builds on
	Engine            string         `json:"engine,omitempty"`         // deep_search's engine, when it is not our rounds (EngineGoogle)
	Interaction       string         `json:"interaction_id,omitempty"` // EngineGoogle: the agent's run, which a follow-up continues
	Usage             *backend.Usage `json:"usage,omitempty"`          // what the research used, when its backend says
	Plan              string         `json:"plan,omitempty"`           // EngineGoogle: the research plan the agent followed, or proposes
	PlanID            string         `json:"plan_id,omitempty"`        // a plan that waits for confirmation: deep_search's plan_id runs it
	Filtered          *Filtered      `json:"filtered,omitempty"`       // the sources the call's controls removed, by why

	// From the API backend's grounding data, for the report that stands: its numbered sources, each cited segment,
	// and how many of the report's sentences carry a citation and how many do not.
	Sources           []backend.Source   `json:"sources,omitempty"`
	Citations         []backend.Citation `json:"citations,omitempty"`
	ClaimsSupported   *int               `json:"claims_supported,omitempty"`
	ClaimsUnsupported *int               `json:"claims_unsupported,omitempty"`
}

// Failure is a research request that produced no report, with a backend's code or the engine's own.
type Failure struct {
	Code    backend.Code
	Message string
	Details string
	Backend string // the backend that failed (backend.CLI or backend.API), when one ran
	Reason  string // why auto ran it on the API, when it did
}

func (f *Failure) Error() string { return string(f.Code) + ": " + f.Message }

// Search runs the single-round research agent. It returns a *Failure when the agent could not produce a report,
// or the context's error when the caller went away.
// An identical request already running is joined rather than started again.
func (e *Engine) Search(ctx context.Context, req SearchRequest) (Report, error) {
	model := e.model(req.Model)
	req.Limit = cmp.Or(req.Limit, backend.MaxSources)
	controls := Controls{Limit: req.Limit, Steering: req.Steering}
	return e.joined(ctx, []string{"search", normalize(req.Query), model, controls.key()}, req.Fresh, req.Progress,
		func(ctx context.Context, p Progress) (Report, error) {
			req.Progress = p
			return e.search(ctx, req, model, controls)
		})
}

func (e *Engine) search(ctx context.Context, req SearchRequest, model string, controls Controls) (Report, error) {
	ctx = withDeadline(ctx, e.settings.SearchTimeout, "GEMINI_SEARCH_TIMEOUT")
	start := e.now()
	stop := e.logProgress(req.Query, start)
	defer stop()

	req.Progress.report("researching")
	rr, err := e.round(ctx, controls.request(backend.Request{Prompt: e.researchPrompt(req.Query+controls.instructions(),
		"concise", model, start, req.Limit), Model: model}), researchShape, req.Progress, nil)
	if err != nil {
		return Report{}, e.failure(ctx, req.Query, err)
	}
	if rr.parsed && !*rr.agent.Success {
		return Report{}, agentGaveUp(rr.agent)
	}
	b := newBuilder(req.Query, "", start)
	b.controls = controls
	b.use(rr)
	return b.report(e.now()), nil
}

// AskRequest is one call of the ask tool.
type AskRequest struct {
	Prompt   string
	Model    string   // overrides Settings.Model for this call
	Dir      string   // a folder the agent sees: its file tree and @path references (CLI backend); "" none
	Fresh    bool     // answer again even when the cache holds an answer
	Progress Progress // optional
	// OnText, when set, gets the answer as the agent writes it. Such a request runs on its own: it joins no other
	// and is answered from no cache, since those would have no text to stream.
	OnText func(string)
}

// Ask answers a free request with the research agent's tools (search and read the web; no commands, no file
// writes), as search does, but the answer is the agent's own text rather than a JSON report. It shares search's
// queue, joining, cache and quota fallback.
func (e *Engine) Ask(ctx context.Context, req AskRequest) (Report, error) {
	model := e.model(req.Model)
	if req.OnText != nil {
		return e.ask(ctx, req, model)
	}
	return e.joined(ctx, []string{"ask", req.Prompt, model, req.Dir}, req.Fresh, req.Progress,
		func(ctx context.Context, p Progress) (Report, error) {
			req.Progress = p
			return e.ask(ctx, req, model)
		})
}

func (e *Engine) ask(ctx context.Context, req AskRequest, model string) (Report, error) {
	ctx = withDeadline(ctx, e.settings.AskTimeout, "GEMINI_ASK_TIMEOUT")
	start := e.now()
	topic := shorten(req.Prompt)
	stop := e.logProgress(topic, start)
	defer stop()

	req.Progress.report("asking")
	run := backend.Request{Model: model, Prompt: prompts.Render(e.templates.ask, prompts.Values{Prompt: req.Prompt,
		Date: promptDate(start), Model: cmp.Or(model, "auto")})}
	if req.Dir != "" {
		run.Dirs = []string{req.Dir}
	}
	rr, err := e.round(ctx, run, freeText, req.Progress, req.OnText)
	if err != nil {
		return Report{}, e.failure(ctx, topic, err)
	}
	b := newBuilder(topic, "", start)
	b.freeText = true
	b.use(rr)
	return b.report(e.now()), nil
}

// model is the model of a call: the one it names, else the configured one. An alias stays one: each backend
// resolves it its own way (internal/runners).
func (e *Engine) model(requested string) string {
	return cmp.Or(requested, e.settings.Model)
}

// promptDate is the date a prompt gives the agent: the UTC one, the same wherever the server runs.
func promptDate(t time.Time) string { return t.UTC().Format("2006-01-02") }

func (e *Engine) researchPrompt(topic, depth, model string, now time.Time, maxSources int) string {
	return prompts.Render(e.templates.research, prompts.Values{
		Topic:         topic,
		Depth:         depth,
		Model:         cmp.Or(model, "auto"),
		Date:          promptDate(now),
		MaxIterations: e.settings.MaxIterations,
		MaxSources:    maxSources,
	})
}

func agentGaveUp(a agentReport) *Failure {
	return &Failure{Code: backend.CodeResearchFailed, Message: *a.Report,
		Details: "The agent could not research this topic. Rephrase it or make it more specific."}
}

// run runs the backend once, after waiting for a queue slot, within the call's deadline.
func (e *Engine) run(ctx context.Context, req backend.Request, progress Progress) (backend.Result, error) {
	if err := e.admit(ctx); err != nil {
		return backend.Result{}, err
	}
	if q := e.settings.Queue; q != nil {
		var waited atomic.Bool // set from the goroutines that move the queue
		wait, byDeadline := queueWait(ctx, e.settings.QueueTimeout)
		release, err := q.Acquire(ctx, wait, func(place int) {
			waited.Store(true)
			progress.report(fmt.Sprintf("queued: position %d", place))
		})
		if qt := (*QueueTimeoutError)(nil); errors.As(err, &qt) && byDeadline {
			d, _ := deadlineOf(ctx)
			qt.Limit, qt.Variable = d.limit, d.variable
		}
		if err != nil {
			return backend.Result{}, err
		}
		defer release()
		if waited.Load() { // the last stage shown was the queue position
			progress.report("starting the agent")
		}
	}
	res, err := e.runner.Run(ctx, bound(ctx, req))
	spendingOf(ctx).add(res, err)
	return res, err
}

// failure turns a runner error into a *Failure, or returns the context's error when the caller cancelled. The
// round that got the error has logged it.
func (e *Engine) failure(ctx context.Context, topic string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, context.Canceled) { // the server is shutting down
		return err
	}
	var (
		ge *backend.Error
		qt *QueueTimeoutError
		f  *Failure
	)
	switch {
	case errors.As(err, &f): // a run refused before it began (Settings.Admit)
		return f
	case errors.As(err, &qt):
		e.log.Warn("research request gave up waiting for a slot", "topic", shorten(topic), "waited", qt.Waited)
		return &Failure{Code: backend.CodeQueueTimeout, Message: "The server is busy: " + qt.Error() + ".",
			Details: "Try again shortly, or raise GEMINI_MAX_CONCURRENT or " + cmp.Or(qt.Variable, "GEMINI_QUEUE_TIMEOUT") + "."}
	case errors.As(err, &ge):
		details := ge.Hint
		if ge.Detail != "" {
			details = strings.TrimSpace(details + "\n" + ge.Detail)
		}
		return &Failure{Code: ge.Code, Message: ge.Message, Details: details, Backend: ge.Partial.Backend,
			Reason: ge.Partial.Switched}
	}
	return &Failure{Code: backend.CodeCLI, Message: err.Error()} // a CLI that could not be started, in practice
}

// logProgress logs a line every ProgressLogInterval while a request runs; the returned func stops it.
func (e *Engine) logProgress(topic string, start time.Time) func() {
	if e.settings.ProgressLogInterval <= 0 {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(e.settings.ProgressLogInterval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				elapsed := int(e.now().Sub(start).Round(time.Second).Seconds())
				if elapsed >= int(slowAfter.Seconds()) {
					e.log.Warn(fmt.Sprintf("Research taking longer than expected... (elapsed: %ds, topic: %q)", elapsed, shorten(topic)))
					continue
				}
				e.log.Info(fmt.Sprintf("Research in progress... (elapsed: %ds, topic: %q)", elapsed, shorten(topic)))
			}
		}
	}()
	return func() { close(done) }
}

// reportedModel names the model in metadata: the one we asked for, else the one the backend reported, else a
// placeholder (the CLI reports "auto" when it chose the model itself).
func reportedModel(requested, reported string) string {
	switch {
	case requested != "":
		return requested
	case reported != "" && reported != "auto":
		return reported
	}
	return "auto-detected"
}

// union returns the non-empty strings of the lists without duplicates, in order of first appearance; never nil,
// so the JSON shows [] rather than null.
func union(lists ...[]string) []string {
	out := []string{}
	for _, s := range slices.Concat(lists...) {
		if s = strings.TrimSpace(s); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// shorten keeps log lines and stages readable for long queries.
func shorten(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		return string(r[:77]) + "..."
	}
	return s
}
