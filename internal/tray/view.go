package tray

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/gemini-search-mcp/gemini-search-mcp/assets"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/checklist"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/clients"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/httpserver"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
)

// Menu labels that do not change.
const (
	labelStart        = "Start server"
	labelStop         = "Stop server"
	labelRestart      = "Restart"
	labelClear        = "Clear"
	labelSettings     = "Settings…"
	labelWelcome      = "Getting started…"
	labelSetup        = "Check setup…"
	labelStatusPage   = "Open status page"
	labelConfigFolder = "Open config folder"
	labelLogFile      = "Open log file"
	labelAutostart    = "Start at login"
	labelQuit         = "Quit"
	labelNoRuns       = "No searches running"
	labelNoErrors     = "No errors"
	labelRecent       = "Recent research"
	labelNoRecent     = "No research finished yet"
	labelAllResearch  = "All research…"
	labelClients      = "Clients"
	labelConnect      = "Connect"
	labelUpdate       = "Update to this server"
	labelDisconnect   = "Disconnect"
	labelCopyConfig   = "Copy config"
)

// maxRunLines is how many running searches the menu lists; more are summed up in one line.
const maxRunLines = 10

// MaxRecent is how many reports of the history the menu lists.
const MaxRecent = 10

// maxSetupProblems is how many setup problems the menu lists, each on two lines: what is wrong, then the fix.
const maxSetupProblems = 4

// view is everything the menu shows at one moment; render computes it, Menu applies it.
type view struct {
	Icon                 string // an assets state
	Status               string
	Usage                string // what the research used today and this month; "" hides the item
	Tooltip              string
	SetupTitle           string   // "Setup: 2 problems"; "" hides the item
	Setup                []string // each problem, then its fix, for at most maxSetupProblems
	Start, Stop, Restart bool     // enabled
	RunsTitle            string
	Runs                 []string // at most maxRunLines+1
	RunTips              []string // the tooltip of each line of Runs: its research id, where the host shows one
	ErrorsTitle          string
	Errors               []string // each failure, then each warning, each followed by its fix when it has one
	Recent               []string // the newest reports of the history, at most MaxRecent
	RecentIDs            []string // their ids, for the clicks
	Clients              []clientLine
}

// clientLine is one MCP client in the Clients submenu.
type clientLine struct {
	Title     string // "Cursor · connected"
	Connect   string // labelConnect, or labelUpdate when its entry points at an old address
	Connected bool   // it has an entry for this server: Disconnect can remove it
}

// clientView is the line of client name in status: its state, or why its file cannot be read.
func clientView(name string, status clients.Status) clientLine {
	state := status.State
	l := clientLine{Title: name + " · " + Shorten(status.String(), 120), Connect: labelConnect,
		Connected: state == clients.Connected || state == clients.Outdated}
	if state == clients.Outdated {
		l.Connect = labelUpdate
	}
	return l
}

// render computes the menu for a server status, the setup's problems, an activity snapshot and the newest reports
// of the history at now.
func render(st httpserver.Status, problems []checklist.Check, snap activity.Snapshot, recent []record.Summary, now time.Time) view {
	running := st.State == httpserver.Running
	v := view{
		Status:    st.Line(),
		Start:     !running,
		Stop:      running,
		Restart:   running,
		RunsTitle: fmt.Sprintf("Running searches (%d)", len(snap.Running)),
	}
	failures, warnings := len(snap.Failures), len(snap.Warnings)
	v.ErrorsTitle = fmt.Sprintf("Last errors (%d)", failures)
	if warnings > 0 {
		v.ErrorsTitle += fmt.Sprintf(" and warnings (%d)", warnings)
	}
	for i, run := range snap.Running {
		if i == maxRunLines {
			v.Runs = append(v.Runs, fmt.Sprintf("… and %d more", len(snap.Running)-maxRunLines))
			v.RunTips = append(v.RunTips, runTip(activity.Run{}))
			break
		}
		v.Runs = append(v.Runs, runLine(run, now))
		v.RunTips = append(v.RunTips, runTip(run))
	}
	for _, f := range slices.Concat(snap.Failures, snap.Warnings) {
		v.Errors = append(v.Errors, errorLines(f)...)
	}
	for _, r := range recent[:min(len(recent), MaxRecent)] {
		v.Recent = append(v.Recent, recentLine(r, now))
		v.RecentIDs = append(v.RecentIDs, r.ID)
	}
	if n := len(problems); n > 0 {
		v.SetupTitle = fmt.Sprintf("Setup: %d problem%s", n, map[bool]string{true: "s"}[n > 1])
		for _, p := range problems[:min(n, maxSetupProblems)] {
			v.Setup = append(v.Setup, problemLines(p)...)
		}
	}
	switch {
	case st.State == httpserver.Failed || len(problems) > 0:
		v.Icon = assets.Error
	case !running:
		v.Icon = assets.Stopped
	case len(snap.Running) > 0:
		v.Icon = assets.Researching
	case failures > 0: // serving: the failures are the past, not a server that is down; a warning is no failure
		v.Icon = assets.Failing
	default:
		v.Icon = assets.Idle
	}
	v.Tooltip = tooltip(v.Status, len(problems), len(snap.Running), failures, warnings)
	return v
}

// tooltip says at a glance whether the server is down (not serving, or its setup broken: the error icon) or merely
// had recent failures (the failing icon, with its badge), or results that came with a warning.
func tooltip(status string, problems, running, failures, warnings int) string {
	tip := "Gemini Search MCP: " + status
	plural := func(n int) string { return map[bool]string{true: "s"}[n > 1] }
	switch {
	case problems > 0:
		tip += fmt.Sprintf(" · down: the setup has %d problem%s (see Setup)", problems, plural(problems))
	case failures > 0 && warnings > 0:
		tip += fmt.Sprintf(" · %d recent failure%s and %d warning%s (see Last errors)", failures, plural(failures),
			warnings, plural(warnings))
	case failures > 0:
		tip += fmt.Sprintf(" · %d recent failure%s (see Last errors)", failures, plural(failures))
	case warnings > 0:
		tip += fmt.Sprintf(" · %d recent warning%s (see Last errors)", warnings, plural(warnings))
	}
	if running > 0 {
		tip += fmt.Sprintf(" · %d researching", running)
	}
	return tip
}

// runLine is one running search: tool, short query, elapsed mm:ss and stage.
func runLine(r activity.Run, now time.Time) string {
	line := fmt.Sprintf("%s · %q · %s", r.Tool, Shorten(r.Query, 40), r.Elapsed(now))
	if r.Stage != "" {
		line += " · " + Shorten(r.Stage, 40)
	}
	return line
}

// runTip is the tooltip of a running search's line: its research id, which research_result and research_cancel
// take (the line itself stays short: the research library lists the ids too), and what a click does.
func runTip(r activity.Run) string {
	if r.Research == "" {
		return "Open the research library"
	}
	return "Research id " + r.Research + ": open the research library, where it can be cancelled"
}

// errorLines are one recent failure's lines: when, tool, query, code and what went wrong (for a warning, "warning",
// how many calls it was about when more than one, the newest's time, tool and query, and what the result lacks),
// then, on a line of its own so that neither pushes the other out of a menu of readable width, the fix.
func errorLines(f activity.Failure) []string {
	line := f.Time.Local().Format("15:04:05") + " " + f.Tool
	if f.Query != "" {
		line += fmt.Sprintf(" %q", Shorten(f.Query, 30))
	}
	what := string(f.Code)
	if f.Warning {
		what = "warning" + calls(f.Count)
	}
	lines := []string{line + " " + what + ": " + Shorten(f.Message, 80)}
	if fix := firstLine(f.Details); fix != "" {
		lines = append(lines, fixLine(fix))
	}
	return lines
}

// calls is how a warning about count calls says so when they are more than one: " (12 calls)".
func calls(count int) string {
	if count <= 1 {
		return ""
	}
	return fmt.Sprintf(" (%d calls)", count)
}

// fixLine is the line under a failure or a setup problem that says what to do about it.
func fixLine(fix string) string { return "    → " + Shorten(fix, 140) }

// problemLines are one setup problem's lines: what is wrong, then, on a line of its own so that a menu stays
// readable, the fix (doctor's "fix: " line).
func problemLines(c checklist.Check) []string {
	lines := []string{c.Name + ": " + Shorten(firstLine(c.Detail), 60)}
	for l := range strings.Lines(c.Detail) {
		if fix, ok := strings.CutPrefix(strings.TrimSpace(l), "fix: "); ok {
			lines = append(lines, fixLine(fix))
			break
		}
	}
	return lines
}

// firstLine is the first line of s with text on it: the hint of a tool's details, before the CLI's own lines.
func firstLine(s string) string {
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" {
			return line
		}
	}
	return ""
}

// usageLine is the usage meter in one line: "Today: 23 searches · 41k tokens · 112 Google searches this month", the
// month's searches out of GEMINI_MONTHLY_GROUNDED_LIMIT when it is set (monthly, 0: none) ("112/5000 Google
// searches"); "" before the month's first research. A search here is any research call.
func usageLine(meter *record.UsageMeter, monthly int) string {
	if meter == nil || len(meter.Month) == 0 {
		return ""
	}
	var calls, tokens, searches int
	for _, t := range meter.Today {
		calls, tokens = calls+t.Calls, tokens+t.TotalTokens
	}
	for _, t := range meter.Month {
		searches += t.Searches
	}
	month := fmt.Sprint(searches)
	if monthly > 0 {
		month += fmt.Sprintf("/%d", monthly)
	}
	return fmt.Sprintf("Today: %d search%s · %s tokens · %s Google searches this month", calls,
		map[bool]string{true: "es"}[calls != 1], count(tokens), month)
}

// count is n in a few characters: 980, 41k, 1.2M.
func count(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 999_500:
		return fmt.Sprintf("%dk", (n+500)/1000)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1e6)
}

// recentLine is one report of the history: short topic, when it started, how long it took, and whether it was cut
// short.
func recentLine(r record.Summary, now time.Time) string {
	line := fmt.Sprintf("%q · %s · %s", Shorten(r.Topic, 40), r.When(now), r.Took())
	if r.Partial {
		line += " · partial"
	}
	return line
}

// Shorten puts s on one line and cuts it to at most n characters, ending in "…" when cut.
func Shorten(s string, n int) string {
	s = strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n-1])) + "…"
}
