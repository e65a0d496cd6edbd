package app

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/history"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
)

// finished tells Options.Finished of a call that ended, unless the client cancelled it (or the server is shutting
// down) or the cache answered it.
func (e engineOf) finished(f Finished) {
	if e.a.finish == nil || errors.Is(f.Err, context.Canceled) || errors.Is(f.Err, context.DeadlineExceeded) ||
		f.Err == nil && f.Report.Metadata.Cached {
		return
	}
	e.a.finish(f)
}

// record keeps a report tool returned in the history: a complete or partial one, not a failure, and not one the
// cache answered (it was kept when it was researched). A report that cannot be kept is logged; the call still
// succeeds.
func (e engineOf) record(tool string, rep research.Report, err error) {
	if err != nil || !rep.Success || rep.Metadata.Cached {
		return
	}
	if _, err := e.a.history.Add(historyReport(tool, rep, time.Now())); err != nil {
		e.a.log.Warn("the report was not kept in the history", "dir", e.a.history.Dir(), "err", err)
	}
}

// historyReport is what the history keeps of rep, which tool returned at now: its start is the engine's timestamp
// (identical calls that joined one run share it), else now less its duration.
func historyReport(tool string, rep research.Report, now time.Time) history.Report {
	m := rep.Metadata
	took := time.Duration(m.DurationMS) * time.Millisecond
	started, err := time.Parse(time.RFC3339, m.Timestamp)
	if err != nil {
		started = now.Add(-took)
	}
	return history.Report{
		Summary: history.Summary{Tool: tool, Topic: m.Topic, Depth: m.Depth, Model: m.Model, Backend: m.Backend,
			Started: started, Duration: took, Partial: rep.Partial},
		Markdown: rep.Report,
		Sources:  sources(m),
	}
}

// sources are the report's sources: the numbered ones of the API backend, with their titles, then every other
// page the research visited.
func sources(m research.Metadata) []history.Source {
	var out []history.Source
	for _, s := range m.Sources {
		out = append(out, history.Source{URL: s.URL, Title: s.Title})
	}
	for _, u := range m.SourcesVisited {
		if !slices.ContainsFunc(out, func(s history.Source) bool { return s.URL == u }) {
			out = append(out, history.Source{URL: u})
		}
	}
	return out
}
