package mockgemini

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Reply is one scripted answer. The zero value is an empty 200 answer; build
// replies with the constructors below, then set the optional fields (Queries,
// URLs, Chunks, ChunkDelay, EarlyMetadata, Delay ...) on the value they return.
type Reply struct {
	Status int       // HTTP status; 0 means 200
	Error  *APIError // the body of an error reply (Status ≥ 400)
	Text   string    // the model's text
	// Parts, when set, replaces Text: the text comes in len(Parts) content
	// parts of a non-streamed answer, so supports can point at a partIndex
	// other than 0. A streamed answer sends their concatenation as one part
	// (see the package doc).
	Parts     []string
	Calls     []FunctionCall // function calls the model makes, after the text
	Grounding []Source       // sources of a grounded answer: groundingMetadata.groundingChunks, in order
	// Supports are the groundingSupports. Nil with Grounding set is
	// Grounded's shape: one support per text part covering all of it, backed
	// by every source. Non-nil (even empty) is sent as it is; build them with
	// GroundedAnswer or GroundedParts, which compute the offsets.
	Supports []Support
	Queries  []string      // groundingMetadata.webSearchQueries: the searches the model ran
	URLs     []URLMetadata // urlContextMetadata.urlMetadata: the pages URL context retrieved
	Finish   string        // the candidate's finishReason; "" means STOP
	// NoFinish ends the answer without a finishReason: a stream then stops after its text, with neither the
	// finish reason nor the usage and metadata of a last chunk, as a stream cut short does.
	NoFinish bool
	Empty    bool          // 200 with a candidate that has no parts
	Hang     bool          // never answer: hold the request until the client leaves or the server closes
	Delay    time.Duration // wait this long before answering

	// Agent is what the Deep Research agent does in the interaction a
	// create (KindAgent) starts; nil runs DefaultAgent. Other kinds ignore it.
	Agent *AgentScript

	// Streaming only (streamGenerateContent); a non-streamed answer ignores them.

	// Chunks is how many SSE chunks the text is cut into, at spaces (one per
	// word when it has fewer words). 0 is the default: up to 3 chunks, and
	// one for a text of fewer than 3 words.
	Chunks int
	// ChunkDelay is a slow stream: the wait before each text chunk after the
	// first, so a client's deadline can cut the answer after some text
	// arrived. The client leaving ends the stream; Server.Close sends the
	// rest at once.
	ChunkDelay time.Duration
	// EarlyMetadata also sends Queries (as groundingMetadata.webSearchQueries)
	// and URLs (as urlContextMetadata) with the first chunk, as the real API
	// does in some streams, so a client can show "searching: …" before the
	// answer ends. The last chunk still carries the whole metadata, Queries
	// and URLs included.
	EarlyMetadata bool
}

// Support is one grounding support: the segment [Start, End) of content
// part Part, in UTF-8 bytes as the real API counts, its text, and the
// sources backing it (indices into Reply.Grounding: groundingChunkIndices).
// Like the real API, the mock leaves a zero startIndex or partIndex and an
// empty groundingChunkIndices out of the JSON.
type Support struct {
	Part       int
	Start, End int
	Text       string
	Sources    []int
}

// Cite is a support for GroundedAnswer and GroundedParts: the segment text,
// which must occur within one part of the answer, and the indices of the
// sources that back it (none is allowed).
func Cite(segment string, sources ...int) Support {
	return Support{Text: segment, Sources: sources}
}

// URLMetadata is one page URL context retrieved.
type URLMetadata struct {
	URL    string // retrievedUrl
	Status string // urlRetrievalStatus; "" means URLRetrievalSuccess
}

// The urlRetrievalStatus values of the real API.
const (
	URLRetrievalSuccess = "URL_RETRIEVAL_STATUS_SUCCESS"
	URLRetrievalError   = "URL_RETRIEVAL_STATUS_ERROR"
	URLRetrievalPaywall = "URL_RETRIEVAL_STATUS_PAYWALL"
	URLRetrievalUnsafe  = "URL_RETRIEVAL_STATUS_UNSAFE"
)

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

// GroundedAnswer answers like Google Search grounding with supports for
// given segments of text: each Cite is placed at the first occurrence of its
// text at or after the end of the previous support's segment, else at its
// first occurrence, and gets its UTF-8 byte offsets. It panics if a segment
// is empty or not in text, or a source index is out of range (a bug in the
// test). Set Queries (webSearchQueries) and URLs on the result as needed.
func GroundedAnswer(text string, sources []Source, supports ...Support) Reply {
	r := GroundedParts([]string{text}, sources, supports...)
	r.Parts, r.Text = nil, text
	return r
}

// GroundedParts is GroundedAnswer with the text in several content parts
// (non-streamed answers; a stream sends them as one part). A segment must
// lie within one part; its offsets count from the start of that part.
func GroundedParts(parts []string, sources []Source, supports ...Support) Reply {
	located := make([]Support, len(supports))
	part, at := 0, 0
	for i, s := range supports {
		if s.Text == "" {
			panic(fmt.Sprintf("mockgemini: support %d has an empty segment", i))
		}
		for _, idx := range s.Sources {
			if idx < 0 || idx >= len(sources) {
				panic(fmt.Sprintf("mockgemini: support %q cites source %d of %d", s.Text, idx, len(sources)))
			}
		}
		p, start, ok := find(parts, s.Text, part, at)
		if !ok {
			p, start, ok = find(parts, s.Text, 0, 0)
		}
		if !ok {
			panic(fmt.Sprintf("mockgemini: segment %q is not within one part of the answer", s.Text))
		}
		s.Part, s.Start, s.End = p, start, start+len(s.Text)
		s.Sources = slices.Clone(s.Sources)
		located[i] = s
		part, at = p, s.End
	}
	return Reply{Parts: slices.Clone(parts), Grounding: slices.Clone(sources), Supports: located}
}

// find returns the part and byte offset of the first occurrence of seg in
// parts at or after byte at of part part.
func find(parts []string, seg string, part, at int) (int, int, bool) {
	for p := part; p < len(parts); p++ {
		from := 0
		if p == part {
			from = at
		}
		if i := strings.Index(parts[p][from:], seg); i >= 0 {
			return p, from + i, true
		}
	}
	return 0, 0, false
}

// Fetched answers like URL context: text plus the pages it read, each
// retrieved successfully (urlContextMetadata). Set URLs by hand for other
// statuses.
func Fetched(text string, urls ...string) Reply {
	r := Reply{Text: text}
	for _, u := range urls {
		r.URLs = append(r.URLs, URLMetadata{URL: u, Status: URLRetrievalSuccess})
	}
	return r
}

// MaxTokens answers text cut off where the model reached its limit of output tokens: finishReason MAX_TOKENS.
func MaxTokens(text string) Reply { return Reply{Text: text, Finish: "MAX_TOKENS"} }

// CutOff answers text in a stream that then just ends (NoFinish): no chunk says the model finished.
func CutOff(text string) Reply { return Reply{Text: text, NoFinish: true} }

// Empty answers 200 with a candidate that holds nothing.
func Empty() Reply { return Reply{Empty: true} }

// Hang never answers.
func Hang() Reply { return Reply{Hang: true} }

// Error answers with an HTTP error status and a Google API error body.
func Error(code int, status, message string, details ...any) Reply {
	return Reply{Status: code, Error: &APIError{Code: code, Message: message, Status: status, Details: details}}
}

// Unauthenticated is a 401 with the reason API_KEY_INVALID. The real API
// answers a wrong key with InvalidKey's 400 instead.
func Unauthenticated() Reply {
	return Error(401, "UNAUTHENTICATED", "API key not valid. Please pass a valid API key.",
		map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com"})
}

// InvalidKey is the real API's answer to a wrong API key: 400
// INVALID_ARGUMENT with an ErrorInfo whose reason is API_KEY_INVALID.
func InvalidKey() Reply {
	const message = "API key not valid. Please pass a valid API key."
	return Error(400, "INVALID_ARGUMENT", message,
		map[string]any{
			"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com",
			"metadata": map[string]any{"service": "generativelanguage.googleapis.com"},
		},
		map[string]any{"@type": "type.googleapis.com/google.rpc.LocalizedMessage", "locale": "en-US", "message": message})
}

// PermissionDenied is a 403.
func PermissionDenied() Reply {
	return Error(403, "PERMISSION_DENIED", "Permission denied: the caller does not have permission.")
}

// Internal is a 500.
func Internal() Reply {
	return Error(500, "INTERNAL", "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting")
}

// Unavailable is a 503: the model is overloaded, retry later.
func Unavailable() Reply {
	return Error(503, "UNAVAILABLE", "The model is overloaded. Please try again later.")
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
