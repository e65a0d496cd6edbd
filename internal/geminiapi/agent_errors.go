package geminiapi

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"google.golang.org/genai"
	"google.golang.org/genai/interactions/models/apierrors"
	"google.golang.org/genai/interactions/models/components"
	m "google.golang.org/genai/interactions/models/interactions"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

// Hints of the agent's own failures.
const (
	hintAgentDenied = "Google's Deep Research agent is a paid preview: use a key of a project with billing enabled " +
		"(aistudio.google.com), or deep_search with engine rounds."
	hintAgentUnknown = "This key's project does not offer the agent named: check GEMINI_DEEP_RESEARCH_AGENT and " +
		"GEMINI_DEEP_RESEARCH_MAX_AGENT (or unset them for the defaults), or use engine rounds."
	hintRunGone = "Google keeps a run for a limited time: start the research again."
)

// The requests of a run, for what a failure means.
type agentOp int

const (
	opCreate   agentOp = iota // creating a run: a 404 is an agent the key cannot use
	opContinue                // creating a run that continues another: a 404 is also that run no longer kept
	opRun                     // reading or cancelling a run: a 404 is a run Google no longer keeps
)

// creating reports whether op creates a run, which a request that fails after reaching the API may have done.
func (op agentOp) creating() bool { return op == opCreate || op == opContinue }

// retried makes the request call of op, retrying a server error or a per-minute rate limit as the API backend does,
// and a broken connection; the error it returns is classified (*backend.Error), or the context's. A request that
// creates a run is retried only where it surely created none: a rate limit, a 503 (unavailable); any other server
// error or a broken connection may come after the run was created, and a second one would cost again.
func retried[R any](ctx context.Context, a *Agent, op agentOp, call func() (R, error)) (R, error) {
	var serverRetries, rateLimited int
	for {
		res, err := call()
		if err == nil || ctx.Err() != nil {
			return res, cmp.Or(ctx.Err(), err)
		}
		ae, isAPI := apiErrorOf(err)
		if isAPI {
			err = ae
		}
		e := a.classify(op, err)
		var wait time.Duration
		switch {
		case e.Code == backend.CodeQuota && !e.Daily && rateLimited < rateLimitRetries:
			rateLimited++
			wait = min(cmp.Or(retryDelay(err), defaultMaxRetryDelay/4), defaultMaxRetryDelay)
		case serverRetries < len(a.cfg.Backoff) && op.retryable(err):
			wait = a.cfg.Backoff[serverRetries]
			serverRetries++
		}
		if wait == 0 {
			return res, e
		}
		a.cfg.Logger.Warn("a request to Google's Deep Research agent failed; retrying", "code", e.Code,
			"status", apiStatus(err), "wait", wait)
		if !sleep(ctx, wait) {
			return res, ctx.Err()
		}
	}
}

// retryable reports whether the request of op that failed with err (an apiErrorOf's, when the API answered) may
// be made again: see retried.
func (op agentOp) retryable(err error) bool {
	var ae genai.APIError
	switch {
	case errors.As(err, &ae) && op.creating():
		return ae.Code == http.StatusServiceUnavailable
	case errors.As(err, &ae):
		return ae.Code >= 500
	}
	return !op.creating() && network(err)
}

// classify says what the failed request of op means to a user.
func (a *Agent) classify(op agentOp, err error) *backend.Error {
	return classifyAPI(a.mask, err, "The Gemini API's answer about a Deep Research run", func(ae genai.APIError) *backend.Error {
		switch {
		case ae.Code == http.StatusForbidden:
			return a.failure(backend.CodeAuth, "The Gemini API denied this key Google's Deep Research agent ("+
				statusLine(ae)+").", hintAgentDenied, ae)
		case ae.Code == http.StatusNotFound && op == opCreate:
			return a.failure(backend.CodeAPI, "The Gemini API does not offer this Deep Research agent to this key (404).",
				hintAgentUnknown, ae)
		case ae.Code == http.StatusNotFound && op == opContinue:
			return a.failure(backend.CodeAPI, "The run this one continues is no longer kept by Google, or its agent is "+
				"not offered to this key (404).", hintRunGone+" "+hintAgentUnknown, ae)
		case ae.Code == http.StatusNotFound:
			return a.failure(backend.CodeAPI, "The Deep Research run is no longer kept by Google (404).", hintRunGone, ae)
		}
		return nil
	})
}

// apiErrorOf is err, an error answer of the Interactions API as its SDK returns it, as the genai.APIError the rest of
// this package reads. Google's error bodies (a numeric code) fail the SDK's own error type, which wants a string code:
// they come as a ResponseValidationError with the body.
func apiErrorOf(err error) (genai.APIError, bool) {
	var (
		valid *apierrors.ResponseValidationError
		other *apierrors.APIError
		cc    *apierrors.CreateInteractionClientError
		cs    *apierrors.CreateInteractionServerError
		gc    *apierrors.GetInteractionByIDClientError
		gs    *apierrors.GetInteractionByIDServerError
		xc    *apierrors.CancelInteractionByIDClientError
		xs    *apierrors.CancelInteractionByIDServerError
	)
	switch {
	case errors.As(err, &valid):
		return fromBody(valid.StatusCode, valid.Body), true
	case errors.As(err, &other):
		return fromBody(other.StatusCode, other.Body), true
	case errors.As(err, &cc):
		return fromOp(cc.HTTPMeta, cc.Error_), true
	case errors.As(err, &cs):
		return fromOp(cs.HTTPMeta, cs.Error_), true
	case errors.As(err, &gc):
		return fromOp(gc.HTTPMeta, gc.Error_), true
	case errors.As(err, &gs):
		return fromOp(gs.HTTPMeta, gs.Error_), true
	case errors.As(err, &xc):
		return fromOp(xc.HTTPMeta, xc.Error_), true
	case errors.As(err, &xs):
		return fromOp(xs.HTTPMeta, xs.Error_), true
	}
	return genai.APIError{}, false
}

// fromBody reads an error answer of status with body, Google's error shape, as far as it is one.
func fromBody(status int, body string) genai.APIError {
	var v struct {
		Error struct {
			Message string           `json:"message"`
			Status  string           `json:"status"`
			Details []map[string]any `json:"details"`
		} `json:"error"`
	}
	_ = json.Unmarshal([]byte(body), &v) // a body of another shape leaves the status alone
	return genai.APIError{Code: status, Message: v.Error.Message, Status: v.Error.Status, Details: v.Error.Details}
}

// fromOp reads an error answer the SDK decoded into its own type.
func fromOp(meta components.HTTPMetadata, e m.Error) genai.APIError {
	var status int
	if meta.Response != nil {
		status = meta.Response.StatusCode
	}
	return genai.APIError{Code: status, Message: deref(e.Message), Status: deref(e.Code)}
}
