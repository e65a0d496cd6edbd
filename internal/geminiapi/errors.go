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
	fail := func(code backend.Code, msg, hint string) *backend.Error {
		e := &backend.Error{Code: code, Message: msg, Hint: hint, ExitCode: -1, Cause: err}
		if err != nil {
			e.Detail = r.mask.Mask(detail(err))
		}
		return e
	}
	var ae genai.APIError // returned by value
	switch {
	case err == nil && s.truncated:
		return fail(backend.CodeAPI, fmt.Sprintf("The Gemini API's answer exceeded the output limit of %d bytes.", r.cfg.MaxOutput), backend.HintTooLong)
	case err == nil && strings.TrimSpace(s.text()) == "":
		return fail(backend.CodeEmpty, emptyMessage(s.finish), backend.HintEmpty)
	case err == nil:
		return nil
	case !errors.As(err, &ae) && network(err):
		return fail(backend.CodeAPI, "The Gemini API could not be reached: "+shorten(r.mask.Mask(err.Error())), hintNetwork)
	case !errors.As(err, &ae):
		return fail(backend.CodeAPI, "The Gemini API's answer could not be read: "+shorten(r.mask.Mask(err.Error())), hintAPI)
	case keyRejected(ae):
		return fail(backend.CodeAuth, "The Gemini API rejected the API key ("+statusLine(ae)+").", hintKeyRejected)
	case ae.Code == http.StatusForbidden:
		return fail(backend.CodeAuth, "The Gemini API denied access with this key ("+statusLine(ae)+").", hintDenied)
	case ae.Code == http.StatusTooManyRequests && daily(ae):
		e := fail(backend.CodeQuota, quotaMessage(backend.MessageDailyQuota, ae), hintDaily)
		e.Daily = true
		return e
	case ae.Code == http.StatusTooManyRequests:
		return fail(backend.CodeQuota, quotaMessage(backend.MessagePerMinuteQuota, ae), hintRateLimit)
	case ae.Code == http.StatusNotFound:
		return fail(backend.CodeAPI, "The Gemini API does not know this model (404).", backend.HintModel)
	case ae.Code >= 500:
		return fail(backend.CodeAPI, fmt.Sprintf("The Gemini API failed with a server error (%s) after retries.", statusLine(ae)), backend.HintServer)
	default:
		return fail(backend.CodeAPI, fmt.Sprintf("The Gemini API refused the request (%s).", statusLine(ae)), hintAPI)
	}
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
