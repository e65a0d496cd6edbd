package research

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

// agentReport is the JSON object the prompts ask the agent for. Verification holds a verify round's findings.
type agentReport struct {
	Success      *bool   `json:"success"`
	Report       *string `json:"report"`
	Verification struct {
		ClaimsChecked   int      `json:"claims_checked"`
		ClaimsCorrected int      `json:"claims_corrected"`
		OpenGaps        []string `json:"open_gaps"`
	} `json:"verification"`
	Metadata struct {
		Sources           []agentSource `json:"sources"` // the report's [n], numbered in this order (a follow-up's: by Number)
		SourcesVisited    []string      `json:"sources_visited"`
		SearchQueriesUsed []string      `json:"search_queries_used"`
		Iterations        int           `json:"iterations"`
	} `json:"metadata"`
}

// agentSource is a source as the agent lists it; a follow-up's also gives the number the answer cites it by.
type agentSource struct {
	backend.Source
	Number int `json:"number"`
}

// maxCandidates bounds how many '{' positions extractReport tries, so a huge prose answer full of braces
// cannot make extraction quadratic.
const maxCandidates = 64

// extractReport finds the agent's report in its answer: first a fenced ```json block, then the first balanced
// JSON object anywhere in the text. A candidate counts only when it holds a boolean `success` and a string
// `report`.
//
// A fence is not matched with a regular expression up to the closing ```: the report itself often contains
// Markdown code fences inside its JSON string, so the object is decoded from the fence's start instead.
func extractReport(text string) (agentReport, bool) {
	var r agentReport
	found := findJSON(text, func(s string) bool {
		var ok bool
		r, ok = decodeReport(s)
		return ok
	})
	return r, found
}

// findJSON offers accept the text after each fenced ```json, then from each '{' on, until accept takes one.
func findJSON(text string, accept func(s string) bool) bool {
	for rest := text; ; {
		i := strings.Index(rest, "```json")
		if i < 0 {
			break
		}
		rest = rest[i+len("```json"):]
		if accept(rest) {
			return true
		}
	}
	tried := 0
	for i := 0; i < len(text) && tried < maxCandidates; i++ {
		if text[i] != '{' {
			continue
		}
		tried++
		if accept(text[i:]) {
			return true
		}
	}
	return false
}

// decodeReport decodes the first JSON value in s (leading white space allowed, trailing text ignored).
func decodeReport(s string) (agentReport, bool) {
	dec := json.NewDecoder(strings.NewReader(s))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil || !bytes.HasPrefix(raw, []byte("{")) {
		return agentReport{}, false
	}
	// success and report must be a boolean and a string. Any other field of the wrong type ("iterations": "4") is
	// skipped rather than a reason to throw a good report away: the decoder goes on with the rest.
	var core struct{ Success, Report json.RawMessage }
	var success bool
	var report string
	if json.Unmarshal(raw, &core) != nil || json.Unmarshal(core.Success, &success) != nil || json.Unmarshal(core.Report, &report) != nil {
		return agentReport{}, false
	}
	var r agentReport
	var typeErr *json.UnmarshalTypeError
	if err := json.Unmarshal(raw, &r); err != nil && !errors.As(err, &typeErr) {
		return agentReport{}, false
	}
	r.Success, r.Report = &success, &report
	return r, true
}
