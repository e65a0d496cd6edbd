package app

import (
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
)

// keepUsage keeps what a call of tool used, rep's usage, in the research library's usage meter (research.Settings.Used).
func (a *App) keepUsage(tool string, rep research.Report) {
	u, m := rep.Metadata.Usage, rep.Metadata
	err := a.library.PutUsage(record.Usage{At: time.Now(), Tool: tool, Backend: m.Backend, Model: m.Model,
		InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, ThoughtTokens: u.ThoughtTokens,
		TotalTokens: u.TotalTokens, Searches: u.Searches, Requests: u.Requests})
	if err != nil {
		a.log.Warn("the usage of a call was not kept", "err", err)
	}
}

// usage is what the research used today and this month, as of now (local time); nil without a library, or when it
// cannot be read (logged).
func (a *App) usage(now time.Time) *record.UsageMeter {
	if a.library == nil {
		return nil
	}
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location())
	today, err := a.library.UsageSince(day)
	if err != nil {
		a.log.Warn("cannot read the usage meter", "err", err)
		return nil
	}
	month, err := a.library.UsageSince(day.AddDate(0, 0, 1-day.Day()))
	if err != nil {
		a.log.Warn("cannot read the usage meter", "err", err)
		return nil
	}
	return &record.UsageMeter{Today: nonNil(today), Month: nonNil(month)}
}

// nonNil is totals, or an empty list: "none yet" reads as [] in JSON.
func nonNil(totals []record.UsageTotal) []record.UsageTotal {
	if totals == nil {
		return []record.UsageTotal{}
	}
	return totals
}
