package tray

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/assets"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/appstate"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/checklist"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/clients"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
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
	const runningLine = "Running on http://127.0.0.1:3000/mcp · Gemini CLI"
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
		{"idle", running, activity.Snapshot{}, view{Icon: assets.Idle, Status: runningLine,
			Stop: true, Restart: true, RunsTitle: "Running searches (0)", ErrorsTitle: "Last errors (0)"}},
		{"researching", running, activity.Snapshot{Running: []activity.Run{run}}, view{Icon: assets.Researching,
			Status: runningLine, Stop: true, Restart: true, RunsTitle: "Running searches (1)",
			Runs:        []string{`search · "what changed in the…" · 01:23 · searchi…`},
			RunTips:     []string{"Research id 0a1b2c3d4e5f6071: open the research library, where it can be cancelled"},
			ErrorsTitle: "Last errors (0)"}},
		{"failing", running, activity.Snapshot{Failures: []activity.Failure{fail}}, view{Icon: assets.Failing,
			Status: runningLine, Stop: true, Restart: true, RunsTitle: "Running searches (0)",
			ErrorsTitle: "Last errors (1)", Errors: []string{`10:00 deep_search QUOTA_ERROR: daily quota used u…`}}},
		{"a warning is no failure", running, activity.Snapshot{Warnings: []activity.Failure{warning}}, view{Icon: assets.Idle,
			Status: runningLine, Stop: true, Restart: true, RunsTitle: "Running searches (0)",
			ErrorsTitle: "Last errors (0) and warnings (1)", Errors: []string{`10:00 search warning: Researched without Firecraw…`}}},
		// The failures come first, however new the warnings: a warning about every call is no reason to look away.
		{"failures, then warnings", running, activity.Snapshot{Failures: []activity.Failure{fail},
			Warnings: []activity.Failure{repeated}}, view{Icon: assets.Failing,
			Status: runningLine, Stop: true, Restart: true, RunsTitle: "Running searches (0)",
			ErrorsTitle: "Last errors (1) and warnings (1)", Errors: []string{
				`10:00 deep_search QUOTA_ERROR: daily quota used u…`,
				`10:00 search warning (12 calls): Researched witho…`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := render(appstate.State{Server: tt.st, Activity: tt.snap}, now)
			got.Tooltip = ""
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestRenderSetup: only a broken check makes the server down (the error icon, "down" in the tooltip); a hint is a
// note. The status line names the backend that serves the next search, or says none can.
func TestRenderSetup(t *testing.T) {
	t.Parallel()
	running := httpserver.Status{State: httpserver.Running, Addr: "127.0.0.1:3000"}
	cliNote := checklist.Check{Name: "Gemini CLI", Hint: true, Detail: "not found (neither gemini nor npx is on PATH), " +
		"so auto uses the Gemini API\nfix: " + gemini.HintNotFound}
	cliBroken := checklist.Check{Name: "Gemini CLI", Detail: "not found (neither gemini nor npx is on PATH)\nfix: install it"}
	auth := checklist.Check{Name: "Auth", Detail: "no credentials found\nfix: sign in"}
	onAPI := backend.State{Mode: backend.Auto, Active: backend.API, Reason: "the Gemini CLI is not installed"}
	onCLI := backend.State{Mode: backend.Auto, Active: backend.CLI}
	tests := []struct {
		name    string
		backend backend.State
		setup   []checklist.Check
		icon    string
		status  string
		title   string
		lines   []string
		anchors []string
		tooltip string // in the tooltip
	}{
		{name: "auto on the API, no CLI: a note", backend: onAPI, setup: []checklist.Check{cliNote},
			icon: assets.Idle, status: "Running on http://127.0.0.1:3000/mcp · Gemini API", title: "Setup: 1 note",
			lines: []string{"! Gemini CLI: not found (neither gemini nor npx i…"}, anchors: []string{"check-gemini-cli"},
			tooltip: "Gemini API (auto: the Gemini CLI is not installed)"},
		{name: "auto, nothing can serve", backend: onCLI, setup: []checklist.Check{cliBroken, auth},
			icon: assets.Error, status: "Running on http://127.0.0.1:3000/mcp · no backend",
			title: "Setup: 2 problems", lines: []string{"✗ Gemini CLI: not found (neither gemini nor npx i…",
				"✗ Auth: no credentials found"}, anchors: []string{"check-gemini-cli", "check-auth"},
			tooltip: "no backend can serve: the Gemini CLI cannot start (see Setup) · down: the setup has 2 problems"},
		{name: "problems first, then notes", backend: onCLI, setup: []checklist.Check{cliNote, auth},
			icon: assets.Error, status: "Running on http://127.0.0.1:3000/mcp · Gemini CLI", title: "Setup: 1 problem",
			lines:   []string{"✗ Auth: no credentials found", "! Gemini CLI: not found (neither gemini nor npx i…"},
			anchors: []string{"check-auth", "check-gemini-cli"}, tooltip: "down: the setup has 1 problem"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v := render(appstate.State{Server: running, Backend: tt.backend, Setup: tt.setup}, time.Now())
			if v.Icon != tt.icon || v.Status != tt.status || v.SetupTitle != tt.title || !slices.Equal(v.Setup, tt.lines) ||
				!slices.Equal(v.SetupAnchors, tt.anchors) || !strings.Contains(v.Tooltip, tt.tooltip) {
				t.Errorf("got icon %q, status %q, %q %q %q, tooltip %q\nwant icon %q, status %q, %q %q %q, tooltip with %q",
					v.Icon, v.Status, v.SetupTitle, v.Setup, v.SetupAnchors, v.Tooltip,
					tt.icon, tt.status, tt.title, tt.lines, tt.anchors, tt.tooltip)
			}
			if tt.icon != assets.Error && strings.Contains(v.Tooltip, "down") {
				t.Errorf("tooltip %q says down", v.Tooltip)
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
	v := render(appstate.State{Server: httpserver.Status{State: httpserver.Running}, Activity: snap}, now)
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
	v := render(appstate.State{Server: httpserver.Status{State: httpserver.Running}, Activity: r.Snapshot()}, time.Now())
	if n := len(v.Errors); n != activity.MaxFailures+activity.MaxWarnings {
		t.Errorf("%d lines, want %d: the menu's slots", n, activity.MaxFailures+activity.MaxWarnings)
	}
	first := v.Errors[activity.MaxFailures]
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
	v := render(appstate.State{Server: httpserver.Status{State: httpserver.Running}, Recent: recent}, now)
	if len(v.Recent) != MaxRecent || len(v.RecentIDs) != MaxRecent {
		t.Fatalf("%d lines and %d ids, want %d", len(v.Recent), len(v.RecentIDs), MaxRecent)
	}
	for i, want := range map[int]string{
		0:             `"what changed in the Rust…" · 10:00 · 1m23s`,
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
	if v := render(appstate.State{}, now); v.Recent != nil {
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
		{unreadable, clientLine{Title: "Cursor · cannot read ~/.cursor/mcp.json: line 3:…",
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
	if got, want := usageLine(meter, 0), "Today: 23 searches, 41k tokens · Month: 112 Google"; got != want {
		t.Errorf("usage line %q, want %q", got, want)
	}
	if got := usageLine(&record.UsageMeter{Today: []record.UsageTotal{{Calls: 1, TotalTokens: 38}},
		Month: []record.UsageTotal{{Calls: 1, TotalTokens: 38}}}, 5000); got != "Today: 1 search, 38 tokens · Month: 0/5000 Google" {
		t.Errorf("one search, with the monthly limit: %q", got)
	}
	if got := count(999_600); got != "1.0M" {
		t.Errorf("count(999600) = %q", got)
	}
}

// TestLabelsFit: every label the menu can show fits a menu of readable width, however long the query, the error,
// the topic, the setup's detail or a client's state: the details are on the pages.
func TestLabelsFit(t *testing.T) {
	t.Parallel()
	now := time.Now()
	long := strings.Repeat("a very long word ", 20)
	st := appstate.State{
		Server:  httpserver.Status{State: httpserver.Running, Addr: "127.0.0.1:65535"},
		Backend: backend.State{Mode: backend.Auto, Active: backend.CLI, Warm: 16},
		Setup: []checklist.Check{{Name: "Gemini CLI", Detail: long + "\nfix: " + long}, {Name: "Auth", Hint: true, Detail: long},
			{Name: "settings.json", Detail: long}, {Name: "Config", Detail: long}, {Name: "Firecrawl", Detail: long}},
		Activity: activity.Snapshot{
			Running:  []activity.Run{{Tool: "deep_search", Query: long, Stage: long, Started: now.Add(-time.Hour)}},
			Failures: []activity.Failure{{Time: now, Tool: "deep_search", Query: long, Code: "FIRECRAWL_UNAVAILABLE", Message: long, Details: long}},
			Warnings: []activity.Failure{{Time: now, Tool: "deep_search", Query: long, Code: "FIRECRAWL_UNAVAILABLE", Message: long, Warning: true, Count: 1000}},
		},
		Recent: []record.Summary{{ID: "x", Topic: long, Started: now.AddDate(0, 0, -3), Duration: 100 * time.Hour, Partial: true}},
	}
	v := render(st, now)
	labels := slices.Concat([]string{v.Status, v.SetupTitle, v.RunsTitle, v.ErrorsTitle, versionLabel("v0.0.0-20261128002637-e3dfc3e1a2b3+dirty"),
		usageLine(&record.UsageMeter{Today: []record.UsageTotal{{Calls: 123456, TotalTokens: 987_654_321}},
			Month: []record.UsageTotal{{Calls: 1, Searches: 1234567}}}, 9999999),
		clientView("Claude Desktop", clients.Status{State: clients.Unreadable, Err: &clients.FileError{Path: long, Err: errors.New(long)}}).Title,
		labelStart, labelStop, labelRestart, labelClear, labelSettings, labelWelcome, labelSetup, labelStatusPage,
		labelConfigFolder, labelLogFile, labelAutostart, labelQuit, labelNoRuns, labelNoErrors, labelRecent, labelNoRecent,
		labelAllResearch, labelClients, labelConnect, labelUpdate, labelDisconnect, labelCopyConfig},
		v.Setup, v.Runs, v.Errors, v.Recent)
	for _, l := range labels {
		if n := len([]rune(l)); n > maxLabel || l == "" {
			t.Errorf("label %q has %d characters, want 1 to %d", l, n, maxLabel)
		}
	}
	if len(v.Setup) != maxSetupLines {
		t.Errorf("setup lines %q, want %d", v.Setup, maxSetupLines)
	}
}
