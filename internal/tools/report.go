package tools

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools/clientpath"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools/parts"
)

// Report is the answer of search, deep_search and ask: the research report, its first part with a notice when it
// is longer than the response limit (Chunks says how to fetch the rest), and where the whole of it was written
// when the call asked for a file (OutputFile).
type Report struct {
	research.Report
	Chunks     *ChunkRef         `json:"chunks,omitempty"`
	OutputFile *OutputFileStatus `json:"output_file,omitempty"`
}

// ChunkRef says how to fetch the parts of a report sent in parts.
type ChunkRef struct {
	ID    string `json:"id"`
	Count int    `json:"count"`
}

// report shapes rep as a Report: its whole text written to out first when out names a file, then cut into parts
// when it is longer than the response limit.
func (t *Tools) report(rep research.Report, out clientpath.Output) *Report {
	r := &Report{Report: rep}
	if out.Path != "" {
		r.OutputFile = t.writeReport(out, rep.Report)
	}
	if limit := t.opts.ResponseLimit(); len(rep.Report) > limit { // bytes ≥ characters: a cheap first check
		if pieces := parts.Split(rep.Report, limit); len(pieces) > 1 {
			id := t.chunks.Put(rep.Report, pieces)
			r.Chunks = &ChunkRef{ID: id, Count: len(pieces)}
			r.Report.Report = pieces[0] + fmt.Sprintf("\n\n[Report continues: this is part 1 of %d. Call fetch_chunk with "+
				"id %q and index 2 to %d for the rest; the parts are kept for up to %d minutes.]", len(pieces), id,
				len(pieces), int(parts.TTL/time.Minute))
		}
	}
	return r
}

// CallToolResult is r with how it was made in _meta.
func (r *Report) CallToolResult() *mcp.CallToolResult {
	res := structured(*r)
	res.Meta = runOf(r.Metadata, r.Partial).meta()
	if r.Metadata.Cached {
		res.Meta.AdditionalFields["cached"] = true
	}
	return res
}

func (r *Report) firecrawl() string { return r.Metadata.Firecrawl }

func (r *Report) size() int { return len(r.Report.Report) }

// runMeta is how a research call ran, as the _meta of its result says it.
type runMeta struct {
	durationMS             int64
	model                  string
	partial                bool
	backend, backendReason string // which backend ran it, and why auto chose it; "" when unknown
}

// runOf is how a report with metadata md was made; partial says it was cut short.
func runOf(md research.Metadata, partial bool) runMeta {
	return runMeta{durationMS: md.DurationMS, model: md.Model, partial: partial, backend: md.Backend,
		backendReason: md.BackendReason}
}

func (m runMeta) meta() *mcp.Meta {
	fields := map[string]any{"durationMs": m.durationMS, "partial": m.partial}
	for name, value := range map[string]string{"model": m.model, "backend": m.backend, "backendReason": m.backendReason} {
		if value != "" {
			fields[name] = value
		}
	}
	return &mcp.Meta{AdditionalFields: fields}
}

// structured sends v both as structuredContent and as its JSON text, for clients that read only text.
func structured(v any) *mcp.CallToolResult {
	text, err := json.MarshalIndent(v, "", "  ")
	if err != nil { // only plain structs and strings are passed here
		panic(fmt.Sprintf("marshal tool result: %v", err))
	}
	return mcp.NewToolResultStructured(v, string(text))
}
