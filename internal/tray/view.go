package tray

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/gemini-search-mcp/gemini-search-mcp/assets"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/appstate"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
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

// maxSetupLines is how many of the setup's problems and notes the menu lists, one line each.
const maxSetupLines = 4

// labelWidth is how many characters a line of the menu shows at most: a menu of readable width. The details and
// the fixes are on the pages a click opens. The status line and the usage line, whose words are not to be cut, may
// take up to maxLabel, the longest label the menu ever shows.
const (
	labelWidth = 50
	maxLabel   = 60
)

// view is everything the menu shows at one moment; render computes it, Menu applies it.
type view struct {
	Icon                 string // an assets state
	Status               string
	Usage                string // what the research used today and this month; "" hides the item
	Tooltip              string
	SetupTitle           string   // "Setup: 2 problems"; "" hides the item
	Setup                []string // each problem, then each note, for at most maxSetupLines
	SetupAnchors         []string // their sections on the setup page, for the clicks
	Start, Stop, Restart bool     // enabled
	RunsTitle            string
	Runs                 []string // at most maxRunLines+1
	RunTips              []string // the tooltip of each line of Runs: its research id, where the host shows one
	ErrorsTitle          string
	Errors               []string // each failure, then each warning; their fixes are on the status page
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
	l := clientLine{Title: fit(name + " · " + status.String()), Connect: labelConnect,
		Connected: state == clients.Connected || state == clients.Outdated}
	if state == clients.Outdated {
		l.Connect = labelUpdate
	}
	return l
}

// render computes the menu for the app's state st at now: the server, the setup's checks, the activity and the
// newest reports of the history. Only a broken check (checklist.Check.Broken) makes the server down: a hint is a
// note, listed without the error icon.
func render(st appstate.State, now time.Time) view {
	running := st.Server.State == httpserver.Running
	words := serving(st)
	v := view{
		Status:    Shorten(statusLine(st.Server, words.short), maxLabel),
		Start:     !running,
		Stop:      running,
		Restart:   running,
		RunsTitle: fmt.Sprintf("Running searches (%d)", len(st.Activity.Running)),
	}
	snap := st.Activity
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
		v.Errors = append(v.Errors, errorLine(f))
	}
	for _, r := range st.Recent[:min(len(st.Recent), MaxRecent)] {
		v.Recent = append(v.Recent, recentLine(r, now))
		v.RecentIDs = append(v.RecentIDs, r.ID)
	}
	broken, notes := splitChecks(st.Setup)
	v.SetupTitle = setupTitle(len(broken), len(notes))
	for _, c := range slices.Concat(broken, notes)[:min(len(broken)+len(notes), maxSetupLines)] {
		v.Setup = append(v.Setup, fit(c.Mark()+" "+c.Name+": "+firstLine(c.Detail)))
		v.SetupAnchors = append(v.SetupAnchors, c.Anchor())
	}
	down := st.Server.State == httpserver.Failed || len(broken) > 0
	switch {
	case down:
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
	v.Tooltip = tooltip(statusLine(st.Server, words.long), len(broken), len(snap.Running), failures, warnings)
	return v
}

// splitChecks sorts the setup's checks that did not pass into the broken ones and the hints.
func splitChecks(checks []checklist.Check) (broken, notes []checklist.Check) {
	for _, c := range checks {
		switch {
		case c.Broken():
			broken = append(broken, c)
		case !c.OK:
			notes = append(notes, c)
		}
	}
	return broken, notes
}

// setupTitle is the Setup item's label: the problems, else the notes; "" when there is neither.
func setupTitle(problems, notes int) string {
	plural := func(n int) string { return map[bool]string{true: "s"}[n > 1] }
	switch {
	case problems > 0:
		return fmt.Sprintf("Setup: %d problem%s", problems, plural(problems))
	case notes > 0:
		return fmt.Sprintf("Setup: %d note%s", notes, plural(notes))
	}
	return ""
}

// backendWords name the backend that serves the next search, in the menu's few words (short) and the tooltip's
// (long, with auto's reason).
type backendWords struct{ short, long string }

// serving names the backend that serves the next search, or says none can: the check of the backend in force is
// broken (checklist.CannotServe).
func serving(st appstate.State) backendWords {
	api := st.Backend.Active == backend.API
	name := map[bool]string{false: "Gemini CLI", true: "Gemini API"}[api]
	if checklist.CannotServe(st.Setup, api) {
		return backendWords{"no backend", "no backend can serve: the " + name + " cannot start (see Setup)"}
	}
	short := name
	if st.Backend.Warm > 0 {
		short += fmt.Sprintf(", %d warm", st.Backend.Warm)
	}
	return backendWords{short, st.Backend.String()}
}

// statusLine is the server's state, with words naming the backend while it runs.
func statusLine(st httpserver.Status, words string) string {
	if st.State == httpserver.Running {
		st.Backend = words
	}
	return st.Line()
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
	line := fmt.Sprintf("%s · %q · %s", r.Tool, Shorten(r.Query, 20), r.Elapsed(now))
	if r.Stage != "" {
		line += " · " + r.Stage
	}
	return fit(line)
}

// runTip is the tooltip of a running search's line: its research id, which research_result and research_cancel
// take (the line itself stays short: the research library lists the ids too), and what a click does.
func runTip(r activity.Run) string {
	if r.Research == "" {
		return "Open the research library"
	}
	return "Research id " + r.Research + ": open the research library, where it can be cancelled"
}

// errorLine is one recent failure: when, tool, code and what went wrong (for a warning, "warning" and how many
// calls it was about when more than one). Its query and fix are on the status page, which a click opens.
func errorLine(f activity.Failure) string {
	what := string(f.Code)
	if f.Warning {
		what = "warning" + calls(f.Count)
	}
	return fit(f.Time.Local().Format("15:04") + " " + f.Tool + " " + what + ": " + f.Message)
}

// calls is how a warning about count calls says so when they are more than one: " (12 calls)".
func calls(count int) string {
	if count <= 1 {
		return ""
	}
	return fmt.Sprintf(" (%d calls)", count)
}

// versionLabel is the item that names the app's version: a pseudo-version of a build in a git clone is long.
func versionLabel(version string) string { return Shorten("Gemini Search MCP "+version, maxLabel) }

// fit puts s on one line of the menu: at most labelWidth characters.
func fit(s string) string { return Shorten(s, labelWidth) }

// firstLine is the first line of s with text on it: the hint of a tool's details, before the CLI's own lines.
func firstLine(s string) string {
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" {
			return line
		}
	}
	return ""
}

// usageLine is the usage meter in one line: "Today: 23 searches, 41k tokens · Month: 112 Google", the month's
// Google searches out of GEMINI_MONTHLY_GROUNDED_LIMIT when it is set (monthly, 0: none) ("112/5000 Google");
// "" before the month's first research. A search here is any research call; /status has the details.
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
	return Shorten(fmt.Sprintf("Today: %d search%s, %s tokens · Month: %s Google", calls,
		map[bool]string{true: "es"}[calls != 1], count(tokens), month), maxLabel)
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
	topic := Shorten(r.Topic, 26)
	if r.Partial {
		topic = Shorten(r.Topic, 16)
	}
	line := fmt.Sprintf("%q · %s · %s", topic, r.When(now), r.Took())
	if r.Partial {
		line += " · partial"
	}
	return fit(line)
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
