package tray

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/assets"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/clients"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/httpserver"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
)

func TestRender(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.Local)
	running := httpserver.Status{State: httpserver.Running, Addr: "127.0.0.1:3000"}
	run := activity.Run{Tool: "search", Query: "what changed in\nthe Rust 2024 edition and why does it matter", Stage: "searching: rust",
		Started: now.Add(-83 * time.Second), Research: "0a1b2c3d4e5f6071"}
	fail := activity.Failure{Time: now, Tool: "deep_search", Query: "rust 2024", Code: "QUOTA_ERROR",
		Message: "daily quota used up " + strings.Repeat("and then some ", 20),
		Details: "\nSet GEMINI_FALLBACK_MODEL or wait until tomorrow.\nstderr: quota exceeded for gemini-2.5-pro"}
	warning := activity.Failure{Time: now, Tool: "search", Query: "rust 2024", Code: "FIRECRAWL_UNAVAILABLE", Warning: true,
		Message: "Researched without Firecrawl, which was unavailable: MCP error -32001: Request timed out",
		Details: "Start the command of mcpServers.firecrawl by hand to see why.", Count: 1}
	repeated := warning
	repeated.Count = 12
	tests := []struct {
		name string
		st   httpserver.Status
		snap activity.Snapshot
		want view
	}{
		{"stopped", httpserver.Status{}, activity.Snapshot{}, view{Icon: assets.Stopped, Status: "Stopped", Start: true,
			RunsTitle: "Running searches (0)", ErrorsTitle: "Last errors (0)"}},
		{"port in use", httpserver.Status{State: httpserver.Failed, Addr: "127.0.0.1:3000",
			Err: &httpserver.ListenError{Reason: "port 3000 is already in use by another program", Err: syscall.EADDRINUSE}}, activity.Snapshot{},
			view{Icon: assets.Error, Status: "Not running: port 3000 is already in use by another program", Start: true,
				RunsTitle: "Running searches (0)", ErrorsTitle: "Last errors (0)"}},
		{"idle", running, activity.Snapshot{}, view{Icon: assets.Idle, Status: "Running on http://127.0.0.1:3000/mcp",
			Stop: true, Restart: true, RunsTitle: "Running searches (0)", ErrorsTitle: "Last errors (0)"}},
		{"researching", running, activity.Snapshot{Running: []activity.Run{run}}, view{Icon: assets.Researching,
			Status: "Running on http://127.0.0.1:3000/mcp", Stop: true, Restart: true, RunsTitle: "Running searches (1)",
			Runs:        []string{`search · "what changed in the Rust 2024 edition a…" · 01:23 · searching: rust`},
			RunTips:     []string{"Research id 0a1b2c3d4e5f6071: open the research library, where it can be cancelled"},
			ErrorsTitle: "Last errors (0)"}},
		{"failing", running, activity.Snapshot{Failures: []activity.Failure{fail}}, view{Icon: assets.Failing,
			Status: "Running on http://127.0.0.1:3000/mcp", Stop: true, Restart: true, RunsTitle: "Running searches (0)",
			ErrorsTitle: "Last errors (1)", Errors: []string{`10:00:00 deep_search "rust 2024" QUOTA_ERROR: daily quota ` +
				`used up and then some and then some and then some and then some and…`,
				`    → Set GEMINI_FALLBACK_MODEL or wait until tomorrow.`}}},
		{"a warning is no failure", running, activity.Snapshot{Warnings: []activity.Failure{warning}}, view{Icon: assets.Idle,
			Status: "Running on http://127.0.0.1:3000/mcp", Stop: true, Restart: true, RunsTitle: "Running searches (0)",
			ErrorsTitle: "Last errors (0) and warnings (1)", Errors: []string{`10:00:00 search "rust 2024" warning: ` +
				`Researched without Firecrawl, which was unavailable: MCP error -32001: Request…`,
				`    → Start the command of mcpServers.firecrawl by hand to see why.`}}},
		// The failures come first, however new the warnings: a warning about every call is no reason to look away.
		{"failures, then warnings", running, activity.Snapshot{Failures: []activity.Failure{fail},
			Warnings: []activity.Failure{repeated}}, view{Icon: assets.Failing,
			Status: "Running on http://127.0.0.1:3000/mcp", Stop: true, Restart: true, RunsTitle: "Running searches (0)",
			ErrorsTitle: "Last errors (1) and warnings (1)", Errors: []string{
				`10:00:00 deep_search "rust 2024" QUOTA_ERROR: daily quota ` +
					`used up and then some and then some and then some and then some and…`,
				`    → Set GEMINI_FALLBACK_MODEL or wait until tomorrow.`,
				`10:00:00 search "rust 2024" warning (12 calls): ` +
					`Researched without Firecrawl, which was unavailable: MCP error -32001: Request…`,
				`    → Start the command of mcpServers.firecrawl by hand to see why.`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := render(tt.st, nil, tt.snap, nil, now)
			got.Tooltip = ""
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// The tooltip tells failures from warnings: only failures make the failing icon.
func TestTooltipCountsFailuresAndWarnings(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		failures, warnings int
		want               string
	}{
		{0, 0, "Gemini Search MCP: up"},
		{2, 0, "Gemini Search MCP: up · 2 recent failures (see Last errors)"},
		{0, 1, "Gemini Search MCP: up · 1 recent warning (see Last errors)"},
		{1, 3, "Gemini Search MCP: up · 1 recent failure and 3 warnings (see Last errors)"},
	} {
		if got := tooltip("up", 0, 0, tt.failures, tt.warnings); got != tt.want {
			t.Errorf("%d failures, %d warnings: got %q, want %q", tt.failures, tt.warnings, got, tt.want)
		}
	}
}

func TestRenderManyRuns(t *testing.T) {
	t.Parallel()
	now := time.Now()
	var snap activity.Snapshot
	for range maxRunLines + 3 {
		snap.Running = append(snap.Running, activity.Run{Tool: "search", Query: "q", Started: now})
	}
	v := render(httpserver.Status{State: httpserver.Running}, nil, snap, nil, now)
	if len(v.Runs) != maxRunLines+1 || v.Runs[maxRunLines] != "… and 3 more" || v.RunsTitle != "Running searches (13)" {
		t.Errorf("got %d lines ending %q, title %q", len(v.Runs), v.Runs[len(v.Runs)-1], v.RunsTitle)
	}
	if len(v.RunTips) != len(v.Runs) || v.RunTips[maxRunLines] != "Open the research library" {
		t.Errorf("tooltips %q, want one for each line", v.RunTips)
	}
	if !strings.Contains(v.Tooltip, "13 researching") {
		t.Errorf("tooltip %q", v.Tooltip)
	}
}

// A registry full of failures and warnings, each with its fix, fills the menu's slots for them and no more: a
// warning that came with every call shows once, after every failure.
func TestRenderAllFailuresAndWarnings(t *testing.T) {
	t.Parallel()
	r := activity.New()
	for i := range activity.MaxFailures + activity.MaxWarnings {
		r.Record(activity.Failure{Tool: "search", Code: "CLI_ERROR", Message: fmt.Sprint("failure ", i), Details: "fix it"})
		for range 5 {
			r.Record(activity.Failure{Tool: "search", Code: "FIRECRAWL_UNAVAILABLE", Message: fmt.Sprint("warning ", i),
				Details: "start it", Warning: true})
		}
	}
	v := render(httpserver.Status{State: httpserver.Running}, nil, r.Snapshot(), nil, time.Now())
	if n := len(v.Errors); n != 2*(activity.MaxFailures+activity.MaxWarnings) {
		t.Errorf("%d lines, want %d: the menu's slots", n, 2*(activity.MaxFailures+activity.MaxWarnings))
	}
	first := v.Errors[2*activity.MaxFailures]
	if v.ErrorsTitle != fmt.Sprintf("Last errors (%d) and warnings (%d)", activity.MaxFailures, activity.MaxWarnings) ||
		!strings.Contains(first, fmt.Sprint("warning (5 calls): warning ", activity.MaxFailures+activity.MaxWarnings-1)) {
		t.Errorf("title %q, first warning %q", v.ErrorsTitle, first)
	}
}

func TestShorten(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"short": "short", "  a \n b ": "a b", "abcdefghijk": "abcdefghi…", "ééééééééééé": "ééééééééé…"} {
		if got := Shorten(in, 10); got != want {
			t.Errorf("Shorten(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRenderRecent: Recent research lists the newest reports with a short topic, when they started, how long they
// took and whether they were cut short, at most MaxRecent; each line keeps its report's id for the click.
func TestRenderRecent(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.Local)
	var recent []record.Summary
	for i := range MaxRecent + 2 {
		recent = append(recent, record.Summary{ID: fmt.Sprintf("id-%d", i), Tool: "search",
			Topic: fmt.Sprintf("topic %d", i), Started: now.Add(-time.Duration(i) * time.Hour), Duration: 83 * time.Second})
	}
	recent[0].Topic = "what changed in\nthe Rust 2024 edition and why does it matter"
	recent[1].Partial = true
	recent[MaxRecent-1].Started = now.AddDate(0, 0, -2)
	v := render(httpserver.Status{State: httpserver.Running}, nil, activity.Snapshot{}, recent, now)
	if len(v.Recent) != MaxRecent || len(v.RecentIDs) != MaxRecent {
		t.Fatalf("%d lines and %d ids, want %d", len(v.Recent), len(v.RecentIDs), MaxRecent)
	}
	for i, want := range map[int]string{
		0:             `"what changed in the Rust 2024 edition a…" · 10:00 · 1m23s`,
		1:             `"topic 1" · 09:00 · 1m23s · partial`,
		MaxRecent - 1: `"topic 9" · Fri 10:00 · 1m23s`,
	} {
		if v.Recent[i] != want {
			t.Errorf("line %d: %q, want %q", i, v.Recent[i], want)
		}
	}
	if v.RecentIDs[0] != "id-0" || v.RecentIDs[MaxRecent-1] != "id-9" {
		t.Errorf("ids %q", v.RecentIDs)
	}
	if v := render(httpserver.Status{}, nil, activity.Snapshot{}, nil, now); v.Recent != nil {
		t.Errorf("without history: %q", v.Recent)
	}
}

func TestClientView(t *testing.T) {
	t.Parallel()
	unreadable := clients.Status{State: clients.Unreadable, Err: &clients.FileError{Path: "~/.cursor/mcp.json",
		Err: errors.New("line 3: invalid character ']' at start of value")}}
	for _, tt := range []struct {
		status clients.Status
		want   clientLine
	}{
		{clients.Status{State: clients.NotConnected}, clientLine{Title: "Cursor · not connected", Connect: labelConnect}},
		{clients.Status{State: clients.Connected}, clientLine{Title: "Cursor · connected", Connect: labelConnect, Connected: true}},
		{clients.Status{State: clients.Outdated}, clientLine{Title: "Cursor · connected to an old address", Connect: labelUpdate, Connected: true}},
		{unreadable, clientLine{Title: "Cursor · cannot read ~/.cursor/mcp.json: line 3: invalid character ']' at start of value",
			Connect: labelConnect}},
	} {
		if got := clientView("Cursor", tt.status); got != tt.want {
			t.Errorf("%s: got %+v, want %+v", tt.status, got, tt.want)
		}
	}
}

// TestUsageLine: the usage meter in one short line, once the month has research; hidden before.
func TestUsageLine(t *testing.T) {
	if got := usageLine(nil, 0); got != "" {
		t.Errorf("no library: %q", got)
	}
	if got := usageLine(&record.UsageMeter{Today: []record.UsageTotal{}, Month: []record.UsageTotal{}}, 0); got != "" {
		t.Errorf("no research this month: %q", got)
	}
	meter := &record.UsageMeter{
		Today: []record.UsageTotal{{Calls: 20, TotalTokens: 40_600}, {Calls: 3, TotalTokens: 400}},
		Month: []record.UsageTotal{{Calls: 90, TotalTokens: 1_250_000, Searches: 100}, {Calls: 9, Searches: 12}},
	}
	if got, want := usageLine(meter, 0), "Today: 23 searches · 41k tokens · 112 Google searches this month"; got != want {
		t.Errorf("usage line %q, want %q", got, want)
	}
	if got := usageLine(&record.UsageMeter{Today: []record.UsageTotal{{Calls: 1, TotalTokens: 38}},
		Month: []record.UsageTotal{{Calls: 1, TotalTokens: 38}}}, 5000); got != "Today: 1 search · 38 tokens · 0/5000 Google searches this month" {
		t.Errorf("one search, with the monthly limit: %q", got)
	}
	if got := count(999_600); got != "1.0M" {
		t.Errorf("count(999600) = %q", got)
	}
}
