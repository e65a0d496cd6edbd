// Package schemas holds the output schemas the tools declare: the one description of their structured results.
// Each covers both outcomes, a result or an error (tools.ErrorBody). The tools' TestResultsMatchTheirOutputSchemas
// holds the results to them.
package schemas

// errorSchema describes tools.ErrorBody's error.
const errorSchema = `{
      "type": "object",
      "properties": {
        "code": {"type": "string"},
        "message": {"type": "string"},
        "details": {"type": "string"}
      },
      "required": ["code", "message"]
    }`

// Report describes the structured content of search, deep_search and ask: tools.Report or tools.RawReport, or an
// error.
const Report = `{
  "type": "object",
  "properties": {
    "success": {"type": "boolean", "description": "true when a report was produced"},
    "report": {"type": "string", "description": "the research report in Markdown (its first part when chunks is set); with status running: the last complete round's report, a draft, when there is one"},
    "summary": {"type": "string", "description": "raw search: the report's text, without its sources list"},
    "sources": {
      "type": "array",
      "description": "raw search: the sources, numbered from 1 as the summary's [n] are (at most limit)",
      "items": ` + sourceSchema + `
    },
    "parse_warning": {"type": "boolean", "description": "true when the agent's answer was not valid JSON and report holds its raw text"},
    "partial": {"type": "boolean", "description": "with status running: true when report holds a draft; else true when the research was cut short (by the time limit, an answer that stopped before its end, e.g. at MAX_TOKENS, or a failed verification round) and report holds what was done, after a notice saying why"},
    "chunks": {
      "type": "object",
      "description": "set when the report was too long for one response: fetch parts 2..count with fetch_chunk",
      "properties": {"id": {"type": "string"}, "count": {"type": "integer"}},
      "required": ["id", "count"]
    },
    "output_file": {
      "type": "object",
      "description": "set when the call asked for output_file: where the whole report was written, or why it was not (the report is here either way)",
      "properties": {
        "path": {"type": "string", "description": "the file's absolute path"},
        "written": {"type": "boolean", "description": "true when the file holds the whole report"},
        "error": {"type": "string", "description": "why the file could not be written"}
      },
      "required": ["path", "written"]
    },
    "metadata": {
      "type": "object",
      "properties": {
        "duration_ms": {"type": "integer"},
        "topic": {"type": "string"},
        "depth": {"type": "string"},
        "model": {"type": "string", "description": "the model actually used"},
        "backend": {"type": "string", "enum": ["cli", "api", "google-agent"], "description": "what produced the report: the Gemini CLI agent, the Gemini API, or Google's Deep Research agent (deep_search's engine google)"},
        "backend_reason": {"type": "string", "description": "why GEMINI_BACKEND=auto used the API rather than the CLI"},
        "fallback_from": {"type": "string", "description": "the model that ran out of quota, when the fallback model took over"},
        "timestamp": {"type": "string", "format": "date-time"},
        "sources_visited": {"type": "array", "items": {"type": "string"}},
        "search_queries_used": {"type": "array", "items": {"type": "string"}},
        "iterations": {"type": "integer"},
        "rounds": {"type": "integer"},
        "claims_verified": {"type": "integer"},
        "claims_corrected": {"type": "integer"},
        "json_corrections": {"type": "integer"},
        "output_truncated": {"type": "boolean"},
        "finish_reason": {"type": "string", "description": "why an answer stopped before its end, making the report partial: the Gemini API's finish reason (MAX_TOKENS, SAFETY, …) or \"stream ended without a finish reason\""},
        "firecrawl": {"type": "string", "description": "set when Firecrawl, configured, did not start: \"unavailable: \" and the reason; the research went on without it"},
        "sources": {
          "type": "array",
          "description": "the sources the report cites, numbered from 1 as its [n] markers are",
          "items": ` + sourceSchema + `
        },
        "citations": {
          "type": "array",
          "description": "each segment of the report that the sources support, with the numbers of its sources",
          "items": {
            "type": "object",
            "properties": {"text": {"type": "string"}, "sources": {"type": "array", "items": {"type": "integer", "minimum": 1}}},
            "required": ["text", "sources"]
          }
        },
        "cached": {"type": "boolean", "description": "true when the report comes from the cache: an identical request finished within GEMINI_CACHE_TTL"},
        "cache_age_ms": {"type": "integer", "description": "how old the cached report is"},
        "claims_supported": {"type": "integer", "description": "sentences of the report that carry a citation from the grounding data"},
        "claims_unsupported": {"type": "integer", "description": "sentences of the report that no source supports"},
        "filtered": {
          "type": "object",
          "description": "the sources the call's limit, include_domains and exclude_domains removed, by why",
          "properties": {"excluded": {"type": "integer"}, "not_included": {"type": "integer"}, "over_limit": {"type": "integer"}}
        },
        "usage": {
          "type": "object",
          "description": "what the research used, as the Gemini API counts it, when its backend says",
          "properties": {
            "input_tokens": {"type": "integer"}, "output_tokens": {"type": "integer"}, "thought_tokens": {"type": "integer"},
            "total_tokens": {"type": "integer"}, "searches": {"type": "integer", "description": "Google searches run"},
            "requests": {"type": "integer", "description": "requests made to the Gemini API, retries included, when known"}
          }
        }
      }
    },
    "status": {"type": "string", "enum": ["running"], "description": "set when the research outlasted the call's wait: it goes on, and research_result with research_id returns its answer"},
    "research_id": {"type": "string", "description": "with status running: the research to wait for with research_result"},
    "tool": {"type": "string", "description": "with status running: the tool that started the research"},
    "elapsed_ms": {"type": "integer", "description": "with status running: how long the research has run"},
    "stage": {"type": "string", "description": "with status running: what the research is doing now"},
    "next": {"type": "string", "description": "with status running: what to do next, in words"},
    "error": ` + errorSchema + `
  },
  "required": ["success"]
}`

// sourceSchema describes backend.Source.
const sourceSchema = `{"type": "object", "properties": {"url": {"type": "string"}, "title": {"type": "string"}, "snippet": {"type": "string", "description": "what the source says"}}, "required": ["url"]}`

// Chunk describes the structured content of fetch_chunk: tools.Chunk, or an error.
const Chunk = `{
  "type": "object",
  "properties": {
    "success": {"type": "boolean", "description": "true when the part was found"},
    "id": {"type": "string", "description": "the report id"},
    "index": {"type": "integer", "description": "the part's number, from 2 to count"},
    "count": {"type": "integer", "description": "how many parts the report has"},
    "text": {"type": "string", "description": "the part's text, to append to the parts before it"},
    "error": ` + errorSchema + `
  },
  "required": ["success"]
}`

// Status describes tools.Status, what ping answers.
const Status = `{
  "type": "object",
  "properties": {
    "status": {"type": "string", "description": "ok"},
    "version": {"type": "string", "description": "the server's version"},
    "gemini_cli": {"type": "string", "description": "how the Gemini CLI is started, or missing"},
    "gemini_cli_signed_in": {"type": "boolean", "description": "true when the Gemini CLI has a sign-in of its own"},
    "backend": {"type": "string", "description": "the backend serving research now: cli or api"},
    "backend_mode": {"type": "string", "description": "GEMINI_BACKEND: cli, api or auto"},
    "backend_reason": {"type": "string", "description": "why auto serves research from the API; empty otherwise"},
    "warm_workers": {"type": "integer", "description": "Gemini CLI processes started ahead of a search"},
    "running_searches": {"type": "integer", "description": "research runs in progress"},
    "queued_searches": {"type": "integer", "description": "research runs waiting for a free slot"},
    "usage": {
      "type": "object",
      "description": "what the research used today and this month (local time), by backend and model, as the backends told it",
      "properties": {
        "today": {"type": "array", "items": ` + usageTotalSchema + `},
        "month": {"type": "array", "items": ` + usageTotalSchema + `}
      }
    }
  },
  "required": ["status", "version"]
}`

// usageTotalSchema describes record.UsageTotal: what the calls of one backend and model used.
const usageTotalSchema = `{"type": "object", "properties": {"backend": {"type": "string"}, "model": {"type": "string"},
  "calls": {"type": "integer"}, "input_tokens": {"type": "integer"}, "output_tokens": {"type": "integer"},
  "thought_tokens": {"type": "integer"}, "total_tokens": {"type": "integer"},
  "searches": {"type": "integer", "description": "Google searches run"},
  "requests": {"type": "integer", "description": "requests made to the Gemini API, when known"}}}`

// Cancel describes the structured content of research_cancel: tools.Cancelled, or an error.
const Cancel = `{
  "type": "object",
  "properties": {
    "success": {"type": "boolean", "description": "true when the research was found"},
    "research_id": {"type": "string"},
    "status": {"type": "string", "enum": ["cancelled", "done", "failed", "interrupted"], "description": "how the research ended: cancelled, or done or failed when it ended first, or interrupted by its server's stop"},
    "error": ` + errorSchema + `
  },
  "required": ["success"]
}`

// Library describes the structured content of list_research: tools.Listed, or an error.
const Library = `{
  "type": "object",
  "properties": {
    "success": {"type": "boolean"},
    "reports": {
      "type": "array",
      "description": "the reports found, the best matches first, then the newest",
      "items": {
        "type": "object",
        "properties": {
          "id": {"type": "string"},
          "uri": {"type": "string", "description": "the resource that holds the whole report, research://reports/{id}"},
          "tool": {"type": "string"},
          "topic": {"type": "string"},
          "started": {"type": "string", "format": "date-time"},
          "took_ms": {"type": "integer"},
          "partial": {"type": "boolean", "description": "true when the research was cut short"},
          "excerpt": {"type": "string", "description": "one line of the report: the query's words in their context, else the opening of its text"}
        },
        "required": ["id", "uri", "tool", "topic", "started"]
      }
    },
    "error": ` + errorSchema + `
  },
  "required": ["success"]
}`
