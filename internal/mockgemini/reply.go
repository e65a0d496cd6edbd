package mockgemini

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Reply is one scripted answer. The zero value is an empty 200 answer; build
// replies with the constructors below rather than by hand.
type Reply struct {
	Status    int            // HTTP status; 0 means 200
	Error     *APIError      // the body of an error reply (Status ≥ 400)
	Text      string         // the model's text
	Calls     []FunctionCall // function calls the model makes, after Text
	Grounding []Source       // sources of a grounded answer (groundingMetadata)
	Finish    string         // the candidate's finishReason; "" means STOP
	Empty     bool           // 200 with a candidate that has no parts
	Hang      bool           // never answer: hold the request until the client leaves or the server closes
	Delay     time.Duration  // wait this long before answering
}

// FunctionCall is a call of one of the tools the request offered.
type FunctionCall struct {
	Name string         `json:"name"`
	Args map[string]any `json:"args"`
}

// Source is one web source of a grounded answer.
type Source struct {
	URI   string `json:"uri"`
	Title string `json:"title"`
}

// APIError is a Google API error body: {"error": {...}}.
type APIError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Status  string `json:"status"`
	Details []any  `json:"details,omitempty"`
}

// Text answers with plain text.
func Text(s string) Reply { return Reply{Text: s} }

// JSON answers with v marshalled as the model's text; it panics if v cannot
// be marshalled (a bug in the test).
func JSON(v any) Reply {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("mockgemini.JSON: %v", err))
	}
	return Text(string(b))
}

// Call answers with a call of the function name.
func Call(name string, args map[string]any) Reply {
	return Reply{Calls: []FunctionCall{{Name: name, Args: args}}}
}

// Grounded answers like Google Search grounding: text plus the sources it
// rests on. The CLI's google_web_search tool turns it into "Web search
// results for …" with a numbered list of the sources.
func Grounded(text string, sources ...Source) Reply {
	return Reply{Text: text, Grounding: sources}
}

// Empty answers 200 with a candidate that holds nothing.
func Empty() Reply { return Reply{Empty: true} }

// Hang never answers.
func Hang() Reply { return Reply{Hang: true} }

// Error answers with an HTTP error status and a Google API error body.
func Error(code int, status, message string, details ...any) Reply {
	return Reply{Status: code, Error: &APIError{Code: code, Message: message, Status: status, Details: details}}
}

// Unauthenticated is the 401 of a rejected API key.
func Unauthenticated() Reply {
	return Error(401, "UNAUTHENTICATED", "API key not valid. Please pass a valid API key.",
		map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com"})
}

// PermissionDenied is a 403.
func PermissionDenied() Reply {
	return Error(403, "PERMISSION_DENIED", "Permission denied: the caller does not have permission.")
}

// Internal is a 500.
func Internal() Reply {
	return Error(500, "INTERNAL", "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting")
}

// QuotaPerMinute is the 429 of a per-minute rate limit, with RetryInfo
// asking to retry after retryDelay (a duration like "2s").
func QuotaPerMinute(retryDelay string) Reply {
	return Error(429, "RESOURCE_EXHAUSTED",
		"You exceeded your current quota, please check your plan and billing details. Please retry in "+retryDelay+".",
		quotaFailure("GenerateRequestsPerMinutePerProjectPerModel-FreeTier", "generate_content_free_tier_requests"),
		map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": retryDelay})
}

// QuotaDaily is the 429 of an exhausted daily quota: the CLI does not retry it.
func QuotaDaily() Reply {
	return Error(429, "RESOURCE_EXHAUSTED",
		"You exceeded your current quota, please check your plan and billing details.",
		quotaFailure("GenerateRequestsPerDayPerProjectPerModel-FreeTier", "generate_content_free_tier_requests"))
}

func quotaFailure(quotaID, metric string) map[string]any {
	return map[string]any{
		"@type": "type.googleapis.com/google.rpc.QuotaFailure",
		"violations": []any{map[string]any{
			"quotaMetric": "generativelanguage.googleapis.com/" + metric,
			"quotaId":     quotaID,
			"quotaDimensions": map[string]string{
				"location": "global", "model": "gemini-2.5-flash",
			},
			"quotaValue": "250",
		}},
	}
}

// Responder picks the reply to a request. It is called with the server's
// lock released, possibly from several goroutines at once.
type Responder func(r *Request) Reply

// Always answers every request with r.
func Always(r Reply) Responder { return func(*Request) Reply { return r } }

// Sequence answers the n-th request it sees with replies[n]; once they run
// out, the last one repeats.
func Sequence(replies ...Reply) Responder {
	if len(replies) == 0 {
		panic("mockgemini.Sequence: no replies")
	}
	next := make(chan int, 1)
	next <- 0
	return func(*Request) Reply {
		n := <-next
		next <- n + 1
		return replies[min(n, len(replies)-1)]
	}
}

// Turns scripts one conversation by how far it got: a request that carries
// n tool results (functionResponse turns) gets replies[n], the last one
// repeating. It keeps no state, so every new CLI run, e.g. a rerun of the
// same prompt, starts again at replies[0].
func Turns(replies ...Reply) Responder {
	if len(replies) == 0 {
		panic("mockgemini.Turns: no replies")
	}
	return func(r *Request) Reply { return replies[min(r.ToolTurns, len(replies)-1)] }
}

// Route sends the requests whose prompt contains Contains to Respond (see ByPrompt).
type Route struct {
	Contains string
	Respond  Responder
}

// ByPrompt picks a responder by the request's prompt text (Request.Prompt, the text of every user turn, so a
// conversation stays on its route after tool turns): the first route whose Contains the prompt holds, else
// fallback. One kind can so answer the different prompts of a test each with its own script, e.g. a research
// prompt, a verification prompt and a JSON correction prompt; for KindSearch the prompt is the search query.
func ByPrompt(fallback Responder, routes ...Route) Responder {
	return func(r *Request) Reply {
		for _, rt := range routes {
			if strings.Contains(r.Prompt, rt.Contains) {
				return rt.Respond(r)
			}
		}
		return fallback(r)
	}
}
