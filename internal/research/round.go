package research

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/prompts"
)

// answerShape is the JSON a round's answer must take: an example, which the correction prompt shows, and its
// JSON schema, which a backend that can hold its model to one gets with the request (backend.Request.Schema).
type answerShape struct {
	example string
	schema  json.RawMessage
}

// text reports whether the shape is freeText: the answer is the text itself, not JSON to extract.
func (s answerShape) text() bool { return s.example == "" }

// The shapes of the rounds whose answer is a JSON report.
var (
	researchShape = answerShape{example: `{
  "success": true,
  "report": "# Title\n\nThe report in Markdown, citing sources as [1]...",
  "metadata": {"sources": [{"url": "https://...", "title": "...", "snippet": "..."}],
    "sources_visited": ["https://..."], "search_queries_used": ["..."], "iterations": 3}
}`, schema: reportSchema(false, false)}
	verifyShape = answerShape{example: `{
  "success": true,
  "report": "# Title\n\nThe corrected report in Markdown, citing sources as [1]...",
  "verification": {"claims_checked": 5, "claims_corrected": 1, "corrections": ["..."], "new_findings": ["..."], "open_gaps": []},
  "metadata": {"sources": [{"url": "https://...", "title": "...", "snippet": "..."}],
    "sources_visited": ["https://..."], "search_queries_used": ["..."], "iterations": 3}
}`, schema: reportSchema(true, false)}
	followUpShape = answerShape{example: `{
  "success": true,
  "report": "The answer in Markdown, citing sources as [1]...",
  "metadata": {"sources": [{"number": 1, "url": "https://...", "title": "...", "snippet": "..."}],
    "sources_visited": ["https://..."], "search_queries_used": ["..."], "iterations": 3}
}`, schema: reportSchema(false, true)}
)

// freeText is the shape of a round whose answer is the text itself (ask, fetch), not JSON to extract.
var freeText = answerShape{}

// reportSchema is the JSON schema of agentReport, its properties in the order the example shows them (the model
// writes them in the schema's order: the report before the lists that describe it): with the verification a
// verify round adds, and with the number each source is cited by when numbered (a follow-up's).
func reportSchema(verification, numbered bool) json.RawMessage {
	str := fields{{"type", "string"}}
	list := fields{{"type", "array"}, {"items", str}}
	count := fields{{"type", "integer"}}
	source := fields{{"url", str}, {"title", str}, {"snippet", str}}
	if numbered {
		source = append(fields{{"number", count}}, source...)
	}
	props := fields{{"success", fields{{"type", "boolean"}}}, {"report", fields{{"type", "string"},
		{"description", "The report in Markdown."}}}}
	required := []string{"success", "report"}
	if verification {
		props = append(props, field{"verification", fields{{"type", "object"}, {"properties", fields{
			{"claims_checked", count}, {"claims_corrected", count}, {"corrections", list}, {"new_findings", list},
			{"open_gaps", list}}}}})
		required = append(required, "verification")
	}
	props = append(props, field{"metadata", fields{{"type", "object"}, {"properties", fields{
		{"sources", fields{{"type", "array"}, {"items", fields{{"type", "object"}, {"properties", source},
			{"required", []string{"url"}}}}}},
		{"sources_visited", list}, {"search_queries_used", list}, {"iterations", count}}}}})
	schema, err := json.Marshal(fields{{"type", "object"}, {"properties", props},
		{"required", append(required, "metadata")}})
	if err != nil {
		panic(err) // strings, lists and fields: cannot fail
	}
	return schema
}

// fields is a JSON object that keeps the order of its keys, as a map does not.
type fields []field

type field struct {
	name  string
	value any
}

func (f fields) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, x := range f {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, x.name)
		v, err := json.Marshal(x.value)
		if err != nil {
			return nil, err
		}
		b = append(append(b, ':'), v...)
	}
	return append(b, '}'), nil
}

// maxCorrectionInput bounds the invalid answer quoted in a correction prompt: the CLI reads at most 8 MiB of stdin,
// and a correction of a huge answer would not fit a model's context anyway.
const maxCorrectionInput = 1 << 20

// roundResult is the outcome of one research or verification round.
type roundResult struct {
	res          backend.Result // the research run: its text, sources and queries
	agent        agentReport    // the parsed answer, when parsed
	parsed       bool
	corrections  int    // correction runs made
	model        string // the model asked for after any fallback; "" lets the backend choose
	fallbackFrom string // the model that ran out of quota, when the fallback model took over
	timedOut     time.Duration
}

// cutOff says in words why an answer stopped before its end, from the reason the backend gave
// (backend.Result.Unfinished): "the answer was cut off because the model reached its output limit (MAX_TOKENS)".
func cutOff(answer, reason string) string {
	switch reason {
	case backend.FinishMaxTokens:
		return answer + " was cut off because the model reached its output limit (MAX_TOKENS)"
	case backend.NoFinishReason:
		return answer + " was cut off: the Gemini API's stream ended before the model had finished"
	}
	return answer + " was cut off because the model stopped early (finish reason " + reason + ")"
}

// round runs one prompt (req: its text, model, folders and time limit) through the agent: the run (with the
// fallback model when the quota runs out), then, if its answer is not valid JSON of the shape wanted, up to
// JSONMaxRetries correction runs that only restructure that answer, while the call has time left. A run that times
// out after producing some text, or whose answer stopped before its end (backend.Result.Unfinished), ends the round
// as partial instead of failing it. onText, when set, gets the answer as it is written.
func (e *Engine) round(ctx context.Context, req backend.Request, shape answerShape, progress Progress,
	onText func(string)) (roundResult, error) {
	rr := roundResult{model: req.Model}
	if !shape.text() {
		req.Schema = shape.schema
	}
	req.OnEvent = func(ev backend.Event) {
		switch {
		case ev.Kind != backend.EventText:
			progress.report(stageOf(ev))
		case onText != nil:
			onText(ev.Text)
		}
	}
	res, err := e.run(ctx, req, progress)
	if fallback := e.settings.FallbackModel; backend.ErrorCode(err) == backend.CodeQuota && fallback != "" &&
		fallback != req.Model && timeLeft(ctx) {
		rr.fallbackFrom, rr.model = cmp.Or(req.Model, "auto"), fallback
		e.log.Warn("quota exhausted; retrying with the fallback model", "model", rr.fallbackFrom, "fallback", fallback)
		progress.report(fmt.Sprintf("quota exhausted on %s: retrying with %s", rr.fallbackFrom, fallback))
		req.Model = fallback
		res, err = e.run(ctx, req, progress)
	}
	var ge *backend.Error
	if errors.As(err, &ge) && ge.Code.TimedOut() && ctx.Err() == nil && ge.Partial.Text != "" {
		rr.res, rr.timedOut = ge.Partial, max(ge.Partial.Duration.Round(time.Second), time.Second)
		if !shape.text() {
			rr.agent, rr.parsed = extractReport(rr.res.Text)
		}
		e.log.Warn("research timed out; keeping its partial answer", "timeout", rr.timedOut, "chars", len(rr.res.Text))
		return rr, nil
	}
	var refused *Failure // by the usage meter's limits (Settings.Admit), before the run
	switch {
	case errors.As(err, &refused):
		e.log.Info("a run was refused before it began", "code", refused.Code, "reason", refused.Message)
		return rr, err
	case err != nil:
		if ctx.Err() == nil {
			e.log.Error("main search failed", "code", cmp.Or(string(backend.ErrorCode(err)), "-"), "err", err)
		}
		return rr, err
	}
	rr.res = res
	if res.Unfinished != "" {
		e.log.Warn("research answer stopped before its end; keeping it as a partial answer", "finish_reason", res.Unfinished,
			"chars", len(res.Text))
	}
	if shape.text() {
		return rr, nil
	}
	// An unfinished answer is corrected no more than a timed-out one: a correction would pass off what is missing.
	if rr.agent, rr.parsed = extractReport(res.Text); rr.parsed || res.Unfinished != "" {
		return rr, nil
	}
	for rr.corrections < e.settings.JSONMaxRetries && !rr.parsed && timeLeft(ctx) {
		rr.corrections++
		e.log.Warn("main search answer is not valid JSON; running a JSON correction",
			"attempt", rr.corrections, "of", e.settings.JSONMaxRetries)
		progress.report(fmt.Sprintf("correcting the answer's JSON (%d/%d)", rr.corrections, e.settings.JSONMaxRetries))
		rr.agent, rr.parsed, err = e.correct(ctx, res.Text, shape, e.correctionModel(rr))
		switch {
		case ctx.Err() != nil:
			return rr, ctx.Err()
		case errors.As(err, &refused): // no correction was made, and none will be
			rr.corrections--
			e.log.Info("a JSON correction was refused before it began", "code", refused.Code, "reason", refused.Message)
			return rr, nil
		case err != nil:
			e.log.Warn("JSON correction failed", "attempt", rr.corrections, "err", err)
		case !rr.parsed:
			e.log.Warn("JSON correction failed: its answer is not valid JSON either", "attempt", rr.corrections)
		}
	}
	return rr, nil
}

// correctionModel is GEMINI_CORRECTION_MODEL, else, after a quota fallback, the fallback model (letting the
// backend choose could pick the model that ran out), else the backend's choice.
func (e *Engine) correctionModel(rr roundResult) string {
	if e.settings.CorrectionModel == "" && rr.fallbackFrom != "" {
		return rr.model
	}
	return e.settings.CorrectionModel
}

// correct runs the correction prompt on an answer that was not valid JSON. The answer goes into the prompt
// itself, so the correction needs no tool call.
func (e *Engine) correct(ctx context.Context, answer string, shape answerShape, model string) (agentReport, bool, error) {
	if len(answer) > maxCorrectionInput {
		answer = answer[:maxCorrectionInput]
	}
	prompt := prompts.Render(e.templates.correction, prompts.Values{Output: answer, Schema: shape.example})
	res, err := e.run(ctx, backend.Request{Prompt: prompt, Model: model, Plain: true, Schema: shape.schema}, nil)
	if err != nil {
		return agentReport{}, false, err
	}
	if res.Unfinished != "" {
		return agentReport{}, false, errors.New(cutOff("the correction's answer", res.Unfinished))
	}
	r, ok := extractReport(res.Text)
	return r, ok, nil
}
