package app

import (
	"cmp"
	"fmt"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
)

// keepUsage keeps what a call spent in the research library's usage meter (research.Settings.Used).
func (a *App) keepUsage(spent research.Spent) {
	u := spent.Usage
	err := a.library.PutUsage(record.Usage{At: time.Now(), Tool: spent.Tool, Backend: spent.Backend, Model: spent.Model,
		InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, ThoughtTokens: u.ThoughtTokens,
		TotalTokens: u.TotalTokens, Searches: u.Searches, Requests: u.Requests})
	if err != nil {
		a.log.Warn("the usage of a call was not kept", "err", err)
	}
}

// admit refuses a run of a research call once the usage meter, with what the call spent so far, reaches
// GEMINI_DAILY_REQUEST_LIMIT or GEMINI_MONTHLY_GROUNDED_LIMIT (research.Settings.Admit): QUOTA_ERROR naming the
// variable, before the provider refuses or bills. A meter it cannot read admits the run (logged by usage).
func (a *App) admit(_ string, spent backend.Usage) error {
	cfg := a.Config()
	if cfg.DailyRequestLimit == 0 && cfg.MonthlyGroundedLimit == 0 {
		return nil
	}
	meter := a.usage(time.Now())
	if meter == nil {
		return nil
	}
	requests, searches := spent.Requests, spent.Searches
	for _, t := range meter.Today {
		requests += cmp.Or(t.Requests, t.Calls) // a call whose requests are not told is one
	}
	for _, t := range meter.Month {
		searches += t.Searches
	}
	switch {
	case cfg.DailyRequestLimit > 0 && requests >= cfg.DailyRequestLimit:
		return &research.Failure{Code: backend.CodeQuota, Message: fmt.Sprintf("The daily request limit of %d "+
			"(GEMINI_DAILY_REQUEST_LIMIT) is reached: the research made %d requests today.", cfg.DailyRequestLimit, requests),
			Details: "Wait until tomorrow, or raise or unset GEMINI_DAILY_REQUEST_LIMIT in the settings."}
	case cfg.MonthlyGroundedLimit > 0 && searches >= cfg.MonthlyGroundedLimit:
		return &research.Failure{Code: backend.CodeQuota, Message: fmt.Sprintf("The monthly limit of %d Google "+
			"searches (GEMINI_MONTHLY_GROUNDED_LIMIT) is reached: the research ran %d this month.",
			cfg.MonthlyGroundedLimit, searches),
			Details: "Wait until next month, or raise or unset GEMINI_MONTHLY_GROUNDED_LIMIT in the settings."}
	}
	return nil
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
