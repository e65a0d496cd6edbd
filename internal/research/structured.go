package research

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/prompts"
)

// StructuredRequest is one call of the structured tool.
type StructuredRequest struct {
	Prompt   string
	Schema   string            // the caller's JSON Schema, as JSON
	Validate func(v any) error // checks a value (decoded with json.Number) against Schema, saying what is wrong
	Model    string            // overrides Settings.Model for this call
	Fresh    bool              // answer again even when the cache holds an answer
	Progress Progress          // optional
}

// maxValidationErrors bounds the validation errors quoted to the correction run and the caller.
const maxValidationErrors = 4000

// Structured answers a request with a JSON value the caller's schema accepts: one run of the agent (with the
// research tools), then, when its answer holds no such value, one correction run that quotes the validation
// errors. The Report's text is the value, as compact JSON. It shares search's queue, joining and cache.
func (e *Engine) Structured(ctx context.Context, req StructuredRequest) (Report, error) {
	model := e.model(req.Model)
	return e.joined(ctx, []string{"structured", req.Prompt, req.Schema, model}, req.Fresh, req.Progress,
		func(ctx context.Context, p Progress) (Report, error) {
			req.Progress = p
			return e.structured(ctx, req, model)
		})
}

func (e *Engine) structured(ctx context.Context, req StructuredRequest, model string) (Report, error) {
	ctx = withDeadline(ctx, e.settings.AskTimeout, "GEMINI_ASK_TIMEOUT")
	start := e.now()
	topic := shorten(req.Prompt)
	stop := e.logProgress(topic, start)
	defer stop()

	req.Progress.report("asking")
	// The caller's schema goes with the request too: a model that takes one answers in it at once.
	rr, err := e.round(ctx, backend.Request{Model: model, Schema: json.RawMessage(req.Schema), Prompt: prompts.Render(
		e.templates.structured, prompts.Values{Prompt: req.Prompt, Schema: req.Schema, Date: promptDate(start)})},
		freeText, req.Progress, nil)
	if err != nil {
		return Report{}, e.failure(ctx, topic, err)
	}
	value, problem := validValue(rr.res.Text, req.Validate)
	if problem != "" && !timeLeft(ctx) {
		return Report{}, &Failure{Code: backend.CodeSchemaMismatch, Backend: rr.res.Backend, Reason: rr.res.Switched,
			Message: "The answer does not fit the schema, and GEMINI_ASK_TIMEOUT ran out before it could be corrected.",
			Details: "What is wrong: " + problem + "\nRaise GEMINI_ASK_TIMEOUT, loosen the schema or say more in the prompt."}
	}
	var fixCut string // why the correction's answer stopped before its end, if it did
	if problem != "" {
		rr.corrections++
		e.log.Warn("the answer does not fit the caller's schema; running one correction", "problem", shorten(problem))
		req.Progress.report("correcting the answer to fit the schema")
		answer := rr.res.Text[:min(len(rr.res.Text), maxCorrectionInput)]
		fix := prompts.Render(e.templates.structuredFix, prompts.Values{Output: answer, Schema: req.Schema, Errors: problem})
		res, err := e.run(ctx, backend.Request{Prompt: fix, Model: e.correctionModel(rr), Plain: true,
			Schema: json.RawMessage(req.Schema)}, req.Progress)
		if err != nil {
			return Report{}, e.failure(ctx, topic, err)
		}
		if value, problem = validValue(res.Text, req.Validate); problem != "" {
			return Report{}, &Failure{Code: backend.CodeSchemaMismatch, Backend: res.Backend, Reason: res.Switched,
				Message: "The answer does not fit the schema, even after a correction.",
				Details: "What is wrong: " + problem + "\nLoosen the schema or say more in the prompt."}
		}
		fixCut = res.Unfinished
	}
	b := newBuilder(topic, "", start)
	b.freeText = true
	b.use(rr)
	if fixCut != "" && !b.partial {
		b.cutShort("[Partial response: " + cutOff("the correction's answer", fixCut) + ".]")
		b.meta.FinishReason = fixCut
	}
	rep := b.report(e.now())
	text, err := json.Marshal(value)
	if err != nil {
		return Report{}, err
	}
	rep.Report, rep.Summary = string(text), string(text)
	return rep, nil
}

// validValue finds the first JSON value in text that validate accepts, or says what is wrong with the first one
// found, or that there is none.
func validValue(text string, validate func(any) error) (value any, problem string) {
	found := findJSON(text, func(s string) bool {
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber() // as the validator reads JSON: numbers keep their precision
		var v any
		if dec.Decode(&v) != nil {
			return false
		}
		if err := validate(v); err != nil {
			if problem == "" {
				problem = err.Error()
			}
			return false
		}
		value = v
		return true
	})
	switch {
	case found:
		return value, ""
	case problem == "":
		return nil, "the answer holds no JSON object"
	case len(problem) > maxValidationErrors:
		return nil, strings.ToValidUTF8(problem[:maxValidationErrors], "") + "…"
	}
	return nil, problem
}
