package library

import (
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
)

// TestUsage: the calls' usage is summed by backend and model over the time asked; a call older than the meter keeps
// is forgotten.
func TestUsage(t *testing.T) {
	t.Parallel()
	l := open(t, dbPath(t), keepAll, nil)
	day := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	for _, u := range []record.Usage{
		{At: day.Add(-500 * 24 * time.Hour), Tool: "search", Backend: "api", Model: "flash", TotalTokens: 1000},
		{At: day.Add(-48 * time.Hour), Tool: "search", Backend: "api", Model: "flash", InputTokens: 7, OutputTokens: 3, TotalTokens: 10, Searches: 1, Requests: 1},
		{At: day.Add(time.Hour), Tool: "search", Backend: "api", Model: "flash", InputTokens: 70, OutputTokens: 30, TotalTokens: 100, Searches: 2, Requests: 2},
		{At: day.Add(2 * time.Hour), Tool: "deep_search", Backend: "cli", Model: "pro", InputTokens: 200, OutputTokens: 100, TotalTokens: 300},
	} {
		if err := l.PutUsage(u); err != nil {
			t.Fatal(err)
		}
	}
	today, err := l.UsageSince(day)
	if err != nil {
		t.Fatal(err)
	}
	want := []record.UsageTotal{
		{Backend: "cli", Model: "pro", Calls: 1, InputTokens: 200, OutputTokens: 100, TotalTokens: 300},
		{Backend: "api", Model: "flash", Calls: 1, InputTokens: 70, OutputTokens: 30, TotalTokens: 100, Searches: 2, Requests: 2},
	}
	if len(today) != 2 || today[0] != want[0] || today[1] != want[1] {
		t.Errorf("today: %+v, want %+v", today, want)
	}
	all, _ := l.UsageSince(time.Time{})
	if len(all) != 2 || all[1].Calls != 2 || all[1].TotalTokens != 110 {
		t.Errorf("all kept: %+v, want the call of 500 days ago forgotten", all)
	}
}
