package geminiapi

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/credential"
)

// Hints, one per situation a user can act on.
const (
	hintKeyRejected = "The Gemini API rejected the key in force: check GEMINI_API_KEY (or GOOGLE_API_KEY) against " +
		"aistudio.google.com/apikey; a key copied with a missing character is the usual cause."
	hintDenied = "The key is valid but may not use this model or the Gemini API: enable the Generative Language API " +
		"for its project, or choose another model."
	hintDaily = "The daily quota for this model is used up: wait until it resets, set GEMINI_FALLBACK_MODEL to " +
		"another model, or use a key with billing enabled."
	hintRateLimit = "Too many requests per minute for this key: retry shortly, or lower GEMINI_MAX_CONCURRENT."
	hintAPI       = "Read the detail for the Gemini API's own message."
	hintNetwork   = "Check the network connection (and GOOGLE_GEMINI_BASE_URL when it is set), then try again."
)

// classify returns nil for a run that produced an answer, else the failure's code, message and hint; the caller
// adds Partial. err is the call's error, s what it streamed.
func (r *Runner) classify(err error, s *stream) *backend.Error {
	switch {
	case err == nil && s.truncated:
		return failure(r.mask, backend.CodeAPI, fmt.Sprintf("The Gemini API's answer exceeded the output limit of %d bytes.",
			r.cfg.MaxOutput), backend.HintTooLong, nil)
	case err == nil && strings.TrimSpace(s.text()) == "":
		return failure(r.mask, backend.CodeEmpty, emptyMessage(s.finish), backend.HintEmpty, nil)
	case err == nil:
		return nil
	}
	return classifyAPI(r.mask, err, "The Gemini API's answer", func(ae genai.APIError) *backend.Error {
		switch ae.Code {
		case http.StatusForbidden:
			return failure(r.mask, backend.CodeAuth, "The Gemini API denied access with this key ("+statusLine(ae)+").",
				hintDenied, ae)
		case http.StatusNotFound:
			return failure(r.mask, backend.CodeAPI, "The Gemini API does not know this model (404).", backend.HintModel, ae)
		}
		return nil
	})
}

// classifyAPI says what err, a failed request to the Gemini API, means to a user: own's failure, when it has one
// (what a 403 or a 404 means depends on the request), else the network, an answer that could not be read (answer
// names it), the key refused, a quota, a server error, any other refusal.
func classifyAPI(mask credential.Masker, err error, answer string, own func(genai.APIError) *backend.Error) *backend.Error {
	var ae genai.APIError // returned by value
	if !errors.As(err, &ae) {
		if network(err) {
			return failure(mask, backend.CodeAPI, "The Gemini API could not be reached: "+shorten(mask.Mask(err.Error())),
				hintNetwork, err)
		}
		return failure(mask, backend.CodeAPI, answer+" could not be read: "+shorten(mask.Mask(err.Error())), hintAPI, err)
	}
	if keyRejected(ae) {
		return failure(mask, backend.CodeAuth, "The Gemini API rejected the API key ("+statusLine(ae)+").", hintKeyRejected, err)
	}
	if e := own(ae); e != nil {
		e.Cause = err
		return e
	}
	switch {
	case ae.Code == http.StatusTooManyRequests && daily(ae):
		e := failure(mask, backend.CodeQuota, quotaMessage(backend.MessageDailyQuota, ae), hintDaily, err)
		e.Daily = true
		return e
	case ae.Code == http.StatusTooManyRequests:
		return failure(mask, backend.CodeQuota, quotaMessage(backend.MessagePerMinuteQuota, ae), hintRateLimit, err)
	case ae.Code >= 500:
		return failure(mask, backend.CodeAPI, fmt.Sprintf("The Gemini API failed with a server error (%s) after retries.",
			statusLine(ae)), backend.HintServer, err)
	}
	return failure(mask, backend.CodeAPI, fmt.Sprintf("The Gemini API refused the request (%s).", statusLine(ae)), hintAPI, err)
}

// failure is a classified failure of a request to the Gemini API, with what err (when set) said, secrets masked.
func failure(mask credential.Masker, code backend.Code, msg, hint string, err error) *backend.Error {
	e := &backend.Error{Code: code, Message: msg, Hint: hint, ExitCode: -1, Cause: err}
	if err != nil {
		e.Detail = mask.Mask(detail(err))
	}
	return e
}

// retryable reports whether err is worth trying again after a pause: a server error, or a broken connection.
func retryable(err error) bool {
	var ae genai.APIError
	if errors.As(err, &ae) {
		return ae.Code >= 500
	}
	return network(err)
}

// network reports whether err is the connection failing (refused, reset, cut short, timed out), not an answer.
func network(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNREFUSED)
}

// shorten keeps an error's text readable: the SDK quotes whole answers it could not decode.
func shorten(s string) string {
	const max = 300
	if len(s) <= max {
		return s
	}
	return strings.ToValidUTF8(s[:max], "") + "…"
}

// KeyRejected reports whether err is the Gemini API turning the key itself down (400 API_KEY_INVALID, 401).
func KeyRejected(err error) bool {
	var ae genai.APIError // returned by value
	return errors.As(err, &ae) && keyRejected(ae)
}

// Denied reports whether err is the Gemini API refusing a valid key this model or API (403).
func Denied(err error) bool {
	var ae genai.APIError
	return errors.As(err, &ae) && ae.Code == http.StatusForbidden
}

// keyRejected: 401, or the 400 the API answers a malformed or unknown key with.
func keyRejected(ae genai.APIError) bool {
	return ae.Code == http.StatusUnauthorized ||
		(ae.Code == http.StatusBadRequest && (detailReason(ae) == "API_KEY_INVALID" || strings.Contains(ae.Message, "API key not valid")))
}

// daily reports whether a 429 is a per-day quota: its QuotaFailure names a quota id with PerDay.
func daily(ae genai.APIError) bool {
	for _, d := range ae.Details {
		violations, _ := d["violations"].([]any)
		for _, v := range violations {
			if m, ok := v.(map[string]any); ok {
				if id, _ := m["quotaId"].(string); strings.Contains(id, "PerDay") {
					return true
				}
			}
		}
	}
	return strings.Contains(strings.ToLower(ae.Message), "per day")
}

// quotaMessage is msg, a quota error's, naming the quota that ran out when the API says which (its QuotaFailure):
// Google's quotas move, and the pool's name (free tier, per model, per day) says what to change.
func quotaMessage(msg string, ae genai.APIError) string {
	for _, d := range ae.Details {
		violations, _ := d["violations"].([]any)
		for _, v := range violations {
			m, _ := v.(map[string]any)
			id, _ := m["quotaId"].(string)
			if id == "" {
				continue
			}
			var about []string
			if limit, _ := m["quotaValue"].(string); limit != "" {
				about = append(about, "limit "+limit)
			}
			if dims, ok := m["quotaDimensions"].(map[string]any); ok {
				if model, _ := dims["model"].(string); model != "" {
					about = append(about, model)
				}
			}
			if len(about) > 0 {
				id += " (" + strings.Join(about, ", ") + ")"
			}
			return msg + " The quota that ran out: " + id + "."
		}
	}
	return msg
}

// retryDelay is the wait a 429's RetryInfo asks for ("17s"), or 0.
func retryDelay(err error) time.Duration {
	var ae genai.APIError
	if !errors.As(err, &ae) {
		return 0
	}
	for _, d := range ae.Details {
		if s, ok := d["retryDelay"].(string); ok {
			if delay, err := time.ParseDuration(s); err == nil && delay > 0 {
				return delay
			}
		}
	}
	return 0
}

func detailReason(ae genai.APIError) string {
	for _, d := range ae.Details {
		if reason, ok := d["reason"].(string); ok {
			return reason
		}
	}
	return ""
}

// apiStatus is err's HTTP status for logs, or "-".
func apiStatus(err error) string {
	var ae genai.APIError
	if errors.As(err, &ae) {
		return statusLine(ae)
	}
	return "-"
}

func statusLine(ae genai.APIError) string {
	if ae.Status != "" && !strings.HasPrefix(ae.Status, fmt.Sprint(ae.Code)) {
		return fmt.Sprintf("%d %s", ae.Code, ae.Status)
	}
	return fmt.Sprint(ae.Code)
}

// detail is what the API said, for Error.Detail: its message and the reason, never the SDK's dump of details.
func detail(err error) string {
	var ae genai.APIError
	if !errors.As(err, &ae) {
		return shorten(err.Error())
	}
	d := ae.Message
	if reason := detailReason(ae); reason != "" {
		d += " (" + reason + ")"
	}
	const maxDetail = 2048
	if len(d) > maxDetail {
		d = strings.ToValidUTF8(d[:maxDetail], "") + "…"
	}
	return d
}

func emptyMessage(finish genai.FinishReason) string {
	if finish != "" && finish != genai.FinishReasonStop {
		return fmt.Sprintf("The model returned an empty answer (finish reason %s).", finish)
	}
	return "The model returned an empty answer."
}
