package mcpserver

// resultSchema describes structuredContent of search and deep_search for both outcomes: a report, or an error.
const resultSchema = `{
  "type": "object",
  "properties": {
    "success": {"type": "boolean", "description": "true when a report was produced"},
    "report": {"type": "string", "description": "the research report in Markdown (its first part when chunks is set)"},
    "parse_warning": {"type": "boolean", "description": "true when the agent's answer was not valid JSON and report holds its raw text"},
    "partial": {"type": "boolean", "description": "true when the research was cut short (timeout or a failed verification round) and report holds what was done"},
    "chunks": {
      "type": "object",
      "description": "set when the report was too long for one response: fetch parts 2..count with fetch_chunk",
      "properties": {"id": {"type": "string"}, "count": {"type": "integer"}},
      "required": ["id", "count"]
    },
    "metadata": {
      "type": "object",
      "properties": {
        "duration_ms": {"type": "integer"},
        "topic": {"type": "string"},
        "depth": {"type": "string"},
        "model": {"type": "string", "description": "the model actually used"},
        "fallback_from": {"type": "string", "description": "the model that ran out of quota, when the fallback model took over"},
        "timestamp": {"type": "string", "format": "date-time"},
        "sources_visited": {"type": "array", "items": {"type": "string"}},
        "search_queries_used": {"type": "array", "items": {"type": "string"}},
        "iterations": {"type": "integer"},
        "rounds": {"type": "integer"},
        "claims_verified": {"type": "integer"},
        "claims_corrected": {"type": "integer"},
        "json_corrections": {"type": "integer"},
        "output_truncated": {"type": "boolean"}
      }
    },
    "error": {
      "type": "object",
      "properties": {
        "code": {"type": "string"},
        "message": {"type": "string"},
        "details": {"type": "string"}
      },
      "required": ["code", "message"]
    }
  },
  "required": ["success"]
}`
