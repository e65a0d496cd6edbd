package app

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools"
)

// openLibrary makes the research library of cfg, with its retention: it opens on first use, and imports the
// report files of the history of earlier releases then, once. What goes wrong is logged, and the server serves
// on: without a library it keeps no reports.
func openLibrary(cfg config.Config, log *slog.Logger) *library.Library {
	lib, err := library.OpenOnUse(cfg.LibraryPath, library.Options{Logger: log, Retention: retention(cfg),
		HistoryDir: cfg.HistoryDir})
	if err != nil {
		log.Error("the research library cannot be used: finished reports are not kept", "err", err)
		return nil
	}
	if lib == nil {
		log.Warn("no data dir: finished reports are not kept")
	}
	return lib
}

// retention is what the library keeps under cfg.
func retention(cfg config.Config) library.Retention {
	return library.Retention{MaxReports: cfg.LibraryMaxReports, MaxAge: cfg.LibraryMaxAge, MaxBytes: cfg.LibraryMaxBytes}
}

// finished tells Options.Finished of a call that ended, unless the client cancelled it (or the server is shutting
// down) or the cache answered it.
func (e engineOf) finished(f Finished) {
	if e.a.finish == nil || errors.Is(f.Err, context.Canceled) || errors.Is(f.Err, context.DeadlineExceeded) ||
		f.Err == nil && f.Report.Metadata.Cached {
		return
	}
	e.a.finish(f)
}

// record keeps a report tool returned to a call made with ctx in the library: a complete or partial one, not a
// failure; the research job the call runs as points to it. One the cache answered was researched before: it is not
// kept again, and the job points to the report kept then, if the library still keeps it (a report deleted, or
// dropped by the retention, is gone on purpose: an answer from the cache must not bring it back). A report that
// cannot be kept is logged; the call still succeeds.
func (e engineOf) record(ctx context.Context, tool string, rep research.Report, err error) {
	if err != nil || !rep.Success {
		return
	}
	lib, kept := e.a.library, historyReport(tool, rep, time.Now())
	var id string
	if rep.Metadata.Cached {
		if id, err = lib.Find(kept.Identity()); errors.Is(err, record.ErrNotFound) {
			return
		}
	} else {
		id, err = lib.Add(kept)
	}
	if err != nil {
		e.a.log.Warn("the report was not kept in the research library", "path", lib.Path(), "err", err)
		return
	}
	if job := tools.ResearchID(ctx); job != "" {
		if _, err := lib.UpdateJob(job, func(j *record.Job) { j.ReportID = id }); err != nil {
			e.a.log.Warn("the research job was not linked to its report", "research_id", job, "err", err)
		}
	}
}

// historyReport is what the library keeps of rep, which tool returned at now: its start is the engine's timestamp
// (identical calls that joined one run share it), else now less its duration.
func historyReport(tool string, rep research.Report, now time.Time) record.Report {
	made := rep.Identity(tool)
	if made.Started.IsZero() {
		made.Started = now.Add(-made.Duration)
	}
	m := rep.Metadata
	m.Cached, m.CacheAgeMS = false, nil // how the report was made, not how this call got it
	metadata, _ := json.Marshal(m)      // plain values
	return record.Report{
		Summary: record.Summary{Tool: made.Tool, Topic: made.Topic, Depth: m.Depth, Model: m.Model,
			Backend: m.Backend, Started: made.Started, Duration: made.Duration, Partial: rep.Partial},
		Markdown: rep.Report,
		Sources:  sources(m),
		Metadata: metadata,
	}
}

// sources are the report's sources: the numbered ones of the API backend, with their titles, then every other
// page the research visited.
func sources(m research.Metadata) []record.Source {
	var out []record.Source
	for _, s := range m.Sources {
		out = append(out, record.Source{URL: s.URL, Title: s.Title})
	}
	for _, u := range m.SourcesVisited {
		if !slices.ContainsFunc(out, func(s record.Source) bool { return s.URL == u }) {
			out = append(out, record.Source{URL: u})
		}
	}
	return out
}
