package backend

import "net/http"

// Code names a kind of failure, stable for callers and clients. Every code a tool's error, the HTTP API or the
// activity's last errors show is declared here, with what it means over HTTP (HTTPStatus).
type Code string

// A backend's failed run.
const (
	CodeCLINotFound Code = "CLI_NOT_FOUND"
	CodeAuth        Code = "AUTH_ERROR"
	CodeQuota       Code = "QUOTA_ERROR"
	CodeTimeout     Code = "CLI_TIMEOUT" // a CLI run outlasted its time limit (its call's, or GEMINI_SEARCH_TIMEOUT)
	CodeAPITimeout  Code = "API_TIMEOUT" // the same for an API call
	CodeUntrusted   Code = "UNTRUSTED_WORKSPACE"
	CodeEmpty       Code = "EMPTY_RESPONSE"
	CodeCLI         Code = "CLI_ERROR"
	CodeAPI         Code = "API_ERROR" // the Gemini API failed in a way none of the codes above names
)

// The research engine's failures beyond a backend's.
const (
	CodeResearchFailed Code = "RESEARCH_FAILED" // the agent ran but reported that it could not research the topic
	CodeQueueTimeout   Code = "QUEUE_TIMEOUT"   // no research slot freed up within GEMINI_QUEUE_TIMEOUT
	CodeSchemaMismatch Code = "SCHEMA_MISMATCH" // a structured answer that does not fit the caller's schema
	CodeFetchFailed    Code = "FETCH_FAILED"    // fetch could not read the page: an error, a paywall, a page deemed unsafe
)

// The tools' own failures.
const (
	CodeInvalidArgument     Code = "INVALID_ARGUMENT"
	CodeCancelled           Code = "CANCELLED"
	CodeChunkNotFound       Code = "CHUNK_NOT_FOUND"
	CodeResultDropped       Code = "RESULT_DROPPED"       // tasks/result of a task whose result is no longer kept
	CodeInternal            Code = "INTERNAL_ERROR"       // a failure of the server itself, not of the research
	CodeResearchNotFound    Code = "RESEARCH_NOT_FOUND"   // research_result or research_cancel of an id not held
	CodeResearchInterrupted Code = "RESEARCH_INTERRUPTED" // the server that ran the research stopped before it ended
)

// The requests the HTTP side refuses before any tool runs.
const (
	CodeUnauthorized Code = "UNAUTHORIZED" // no valid MCP_AUTH_TOKEN
	CodeForbidden    Code = "FORBIDDEN"    // a foreign Origin or Host
	CodeUnavailable  Code = "UNAVAILABLE"  // every session busy
)

// What the activity's last errors show beside the calls' failures: a warning about an answer, and the app's own
// problems.
const (
	CodeFirecrawlUnavailable Code = "FIRECRAWL_UNAVAILABLE" // an answer researched without Firecrawl, which did not start
	CodeSettings             Code = "SETTINGS_ERROR"        // settings.json cannot be used as it is
	CodeConfig               Code = "CONFIG_ERROR"          // an edit of the .env file could not be applied
	CodeTray                 Code = "TRAY_ERROR"            // a menu action failed
)

// TimedOut reports whether c is a backend's own time limit running out.
func (c Code) TimedOut() bool { return c == CodeTimeout || c == CodeAPITimeout }

// HTTPStatus is the status of an HTTP answer to a call that failed with c. clientGone says the client itself went
// away, for a cancelled call. The HTTP side's refusals of a request (CodeUnauthorized, …) carry the status of
// their rule.
func (c Code) HTTPStatus(clientGone bool) int {
	switch c {
	case CodeInvalidArgument, CodeChunkNotFound, CodeResearchNotFound:
		return http.StatusBadRequest
	case CodeAuth:
		return http.StatusForbidden // the backend's credentials were refused; our own token gives 401
	case CodeQuota, CodeQueueTimeout:
		return http.StatusTooManyRequests
	case CodeTimeout, CodeAPITimeout:
		return http.StatusGatewayTimeout
	case CodeCancelled:
		if !clientGone { // not the client: the server is shutting down
			return http.StatusServiceUnavailable
		}
		return 499 // the client went away; nobody reads this
	case CodeInternal:
		return http.StatusInternalServerError
	}
	return http.StatusBadGateway // the backend failed
}
