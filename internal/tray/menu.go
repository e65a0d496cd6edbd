// Package tray is the system tray icon and its menu. It holds no research logic: it shows the app's state
// (server status, running searches, recent errors, recent research) and turns clicks into the app's Actions and
// desktop actions (open the settings page, the research library or a report, connect MCP clients, start at login).
package tray

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"time"

	"fyne.io/systray"

	"github.com/gemini-search-mcp/gemini-search-mcp/assets"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/appstate"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/clients"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/desktop"
)

// App is what the menu reads: one snapshot of the app's state, a signal of its next change, and the MCP clients'
// entries for the server as it is configured now.
type App interface {
	State() appstate.State
	Changed() <-chan struct{} // closed at the next change of State
	Clients() []clients.Client
}

// Pages are the links to the app's pages, with this launch's token.
type Pages interface {
	PageURL(page string) (string, error) // "/settings", "/status", "/history", "/setup" or "/welcome"
	ReportURL(id string) (string, error) // the page of a report of the history
}

// Actions are what the menu's items do in the app.
type Actions interface {
	StartServer() error
	StopServer()
	RestartServer() error
	CheckSetup() error             // look the CLI and the credentials up again (Check setup, Restart)
	ClearErrors()                  // forget the last errors and warnings
	Report(what string, err error) // show a failed menu action among the last errors
}

// Options configures the menu.
type Options struct {
	App       App
	Actions   Actions
	Pages     Pages
	Autostart desktop.Autostart // nil hides "Start at login"
	ConfigDir string
	LogFile   string
	Open      func(target string) error // opens a URL, folder or file
	Copy      func(text string) error   // puts text on the clipboard
	Quit      func()                    // asked to quit; the caller stops everything and ends Run
	// Notify shows the outcome of a click where the user looks once the menu has closed: a desktop notification.
	// It returns once the desktop has shown it, or why it could not (no notification server), within seconds.
	// nil: the log only, and the confirmation of Stop server, Restart and Quit in the item's label.
	Notify  func(desktop.Notification) error
	Version string // shown above Quit
	Logger  *slog.Logger
	Now     func() time.Time
}

// confirmTime is how long Stop server, Restart or Quit, clicked while searches run, waits for the click that
// confirms it.
const confirmTime = 10 * time.Second

// Menu owns the tray menu: its items, what they show, and the goroutines that serve their clicks.
type Menu struct {
	o     Options
	app   App
	act   Actions
	pages Pages

	mu        sync.Mutex
	shown     view                              // what the items show now
	asked     map[*systray.MenuItem]time.Time   // until when a click of the item confirms its action
	relabeled map[*systray.MenuItem]*time.Timer // the items whose label asks for the confirming click, until then

	status, usage, setup, runs, errs, clear  *systray.MenuItem
	setupSlots, runSlots, errSlots, recSlots []*systray.MenuItem
	noRuns, noErrs, noRecent                 *systray.MenuItem
	start, stop, restart                     *systray.MenuItem
	autostart                                *systray.MenuItem
	clientItems                              []clientItems
}

// clientItems are the items of one MCP client in the Clients submenu.
type clientItems struct{ title, connect, disconnect *systray.MenuItem }

func newMenu(o Options) *Menu {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Menu{o: o, app: o.App, act: o.Actions, pages: o.Pages, asked: map[*systray.MenuItem]time.Time{},
		relabeled: map[*systray.MenuItem]*time.Timer{}}
}

// build adds every item, starts one goroutine per clickable item and shows the first view. It must not block:
// systray serves the menu only once onReady has returned.
func (m *Menu) build(ctx context.Context) {
	m.mu.Lock()
	defer m.mu.Unlock()
	systray.SetTooltip("Gemini Search MCP")
	if runtime.GOOS != "darwin" { // on macOS the title is text next to the icon
		systray.SetTitle("Gemini Search MCP")
	}

	m.status = systray.AddMenuItem("…", "Where the MCP server is listening")
	m.status.Disable()
	m.usage = systray.AddMenuItem("", "What the research used, as the backends told it (ping and /healthz give the details)")
	m.usage.Disable()
	m.usage.Hide()
	m.setup = systray.AddMenuItem("Setup", "What keeps the server from researching; click one for its fix")
	m.setup.Hide()
	for i := range maxSetupLines {
		slot := m.setup.AddSubMenuItem("", "Check the setup again and open its fix on the setup page")
		slot.Hide()
		m.setupSlots = append(m.setupSlots, slot)
		m.on(ctx, slot, func() { m.openSetup(i) })
	}
	m.runs = systray.AddMenuItem("Running searches (0)", "The searches in progress; click one for the research library, "+
		"which lists their research ids")
	m.noRuns = m.runs.AddSubMenuItem(labelNoRuns, "")
	m.noRuns.Disable()
	for range maxRunLines + 1 {
		slot := m.runs.AddSubMenuItem("", "Open the research library")
		slot.Hide()
		m.runSlots = append(m.runSlots, slot)
		m.on(ctx, slot, func() { m.openAt(historyLink, "running") })
	}
	m.errs = systray.AddMenuItem("Last errors (0)", "The most recent failures, then warnings; click one for its fix")
	m.noErrs = m.errs.AddSubMenuItem(labelNoErrors, "")
	m.noErrs.Disable()
	for range activity.MaxFailures + activity.MaxWarnings {
		slot := m.errs.AddSubMenuItem("", "Open the last errors on the status page, with their queries and fixes")
		slot.Hide()
		m.errSlots = append(m.errSlots, slot)
		m.on(ctx, slot, func() { m.openAt(statusLink, "errors") })
	}
	m.errs.AddSeparator()
	m.clear = m.errs.AddSubMenuItem(labelClear, "Forget the recorded errors and warnings")
	m.on(ctx, m.clear, func() { m.act.ClearErrors() })
	recent := systray.AddMenuItem(labelRecent, "The last finished searches; click one to read its report")
	m.noRecent = recent.AddSubMenuItem(labelNoRecent, "")
	m.noRecent.Disable()
	for i := range MaxRecent {
		slot := recent.AddSubMenuItem("", "Open the report in the browser")
		slot.Hide()
		m.recSlots = append(m.recSlots, slot)
		m.on(ctx, slot, func() { m.openReport(i) })
	}
	recent.AddSeparator()
	all := recent.AddSubMenuItem(historyLink.label, historyLink.tooltip)
	m.on(ctx, all, func() { m.open(historyLink) })
	systray.AddSeparator()

	m.start = systray.AddMenuItem(labelStart, "Start the MCP server")
	m.on(ctx, m.start, func() { m.report("start the server", m.act.StartServer()) })
	m.stop = systray.AddMenuItem(labelStop, "Stop the MCP server; running searches are cancelled")
	m.onConfirmed(ctx, m.stop, labelStop, "stop", m.act.StopServer)
	m.restart = systray.AddMenuItem(labelRestart, "Restart the MCP server; running searches are cancelled")
	m.onConfirmed(ctx, m.restart, labelRestart, "restart", func() { m.report("restart the server", m.act.RestartServer()) })
	systray.AddSeparator()

	clientsItem := systray.AddMenuItem(labelClients, "This server in the MCP clients on this computer")
	for i, c := range m.app.Clients() {
		sub := clientsItem.AddSubMenuItem(c.Name, c.Path)
		connect := sub.AddSubMenuItem(labelConnect, "Add this server to "+c.Path+" (the old file is backed up)")
		disconnect := sub.AddSubMenuItem(labelDisconnect, "Remove this server from "+c.Path+" (the old file is backed up)")
		copyItem := sub.AddSubMenuItem(labelCopyConfig, "Copy the "+c.Name+" configuration for this server")
		m.clientItems = append(m.clientItems, clientItems{sub, connect, disconnect})
		m.on(ctx, connect, func() { m.changeClient(i, true) })
		m.on(ctx, disconnect, func() { m.changeClient(i, false) })
		m.on(ctx, copyItem, func() { m.copyConfig(i) })
	}
	systray.AddSeparator()

	for _, link := range pageLinks {
		item := systray.AddMenuItem(link.label, link.tooltip)
		m.on(ctx, item, func() { m.open(link) })
	}
	folder := systray.AddMenuItem(labelConfigFolder, m.o.ConfigDir)
	m.on(ctx, folder, func() { m.report("open the config folder", m.o.Open(m.o.ConfigDir)) })
	logFile := systray.AddMenuItem(labelLogFile, m.o.LogFile)
	if m.o.LogFile == "" {
		logFile.Disable()
	}
	m.on(ctx, logFile, func() { m.report("open the log file", m.o.Open(m.o.LogFile)) })
	if m.o.Autostart != nil {
		on, err := m.o.Autostart.Enabled()
		m.report("read the start at login setting", err)
		m.autostart = systray.AddMenuItemCheckbox(labelAutostart, "Start the tray when you log in", on)
		m.on(ctx, m.autostart, m.toggleAutostart)
	}
	systray.AddSeparator()
	systray.AddMenuItem(escapeLabel(versionLabel(m.o.Version)), "The version of this app").Disable()
	quit := systray.AddMenuItem(labelQuit, "Stop the server and quit")
	m.onConfirmed(ctx, quit, labelQuit, "quit", m.o.Quit)

	m.applyLocked(m.render())
}

// render computes the menu's view from the app's state now.
func (m *Menu) render() view {
	st := m.app.State()
	v := render(st, m.o.Now())
	v.Usage = usageLine(st.Usage, st.Config.MonthlyGroundedLimit)
	for _, c := range m.app.Clients() {
		v.Clients = append(v.Clients, clientView(c.Name, c.Status()))
	}
	return v
}

// on serves item's clicks for as long as ctx lives: one goroutine always receiving, since systray drops a click
// nobody is waiting for; the work runs on its own goroutine so the next click is never missed.
func (m *Menu) on(ctx context.Context, item *systray.MenuItem, do func()) {
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case _, ok := <-item.ClickedCh:
				if !ok {
					return
				}
				go do()
			}
		}
	}()
}

// onConfirmed serves item's clicks like on, but while searches run a click only asks for a second one: a
// notification says what that would cancel ("2 searches will be cancelled") and waits confirmTime for it. Tray menus
// have no dialog that works on every platform, and a menu closes on the click, so the question is asked where the
// user looks. Where no notification can be shown (no notification server), the item's label asks instead, for as
// long as the second click confirms, and the user sees it on opening the menu again. Only build calls it.
func (m *Menu) onConfirmed(ctx context.Context, item *systray.MenuItem, label, verb string, do func()) {
	m.on(ctx, item, func() {
		running := len(m.app.State().Activity.Running)
		now := m.o.Now()
		until := now.Add(confirmTime)
		m.mu.Lock()
		confirmed := now.Before(m.asked[item])
		delete(m.asked, item)
		if !confirmed && running > 0 {
			m.asked[item] = until
		}
		m.mu.Unlock()
		if confirmed || running == 0 {
			m.restoreLabel(item, label)
			do()
			return
		}
		searches := "1 search"
		if running > 1 {
			searches = fmt.Sprintf("%d searches", running)
		}
		err := m.notify(desktop.Notification{Title: label + ": " + searches + " will be cancelled",
			Body: fmt.Sprintf("Click %s again within %d seconds to %s anyway.", label, int(confirmTime/time.Second), verb)})
		if err != nil {
			m.askInLabel(item, label, "Click again to "+verb+" (cancels "+searches+")", until)
		}
	})
}

// askInLabel shows question as item's label until the time a click confirms ends, then label again.
func (m *Menu) askInLabel(item *systray.MenuItem, label, question string, until time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if old := m.relabeled[item]; old != nil {
		old.Stop()
	}
	setLabel(item, question)
	var restore *time.Timer
	restore = time.AfterFunc(until.Sub(m.o.Now()), func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.relabeled[item] == restore { // not a question asked since
			delete(m.relabeled, item)
			setLabel(item, label)
		}
	})
	m.relabeled[item] = restore
}

// restoreLabel shows label on item again if its label asks for a confirming click.
func (m *Menu) restoreLabel(item *systray.MenuItem, label string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if restore := m.relabeled[item]; restore != nil {
		restore.Stop()
		delete(m.relabeled, item)
		setLabel(item, label)
	}
}

// loop redraws the menu on every change, and every second while searches run (their elapsed times move).
func (m *Menu) loop(ctx context.Context) {
	reassert := time.After(reassertAfter)
	for ctx.Err() == nil {
		changed := m.app.Changed()
		v := m.render()
		m.mu.Lock()
		m.applyLocked(v)
		m.mu.Unlock()
		var tick <-chan time.Time
		if len(v.Runs) > 0 {
			tick = time.After(time.Second)
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		case <-tick:
		case <-reassert:
			m.mu.Lock()
			m.shown.Icon, m.shown.Tooltip = "", "" // applied again on the next pass
			m.mu.Unlock()
		}
	}
}

// setIcon shows the icon of a state.
func (m *Menu) setIcon(state string) {
	format := "png"
	if runtime.GOOS == "windows" {
		format = "ico"
	}
	if icon, err := assets.Icon(state, format); err == nil {
		systray.SetIcon(icon)
	}
}

// reassertAfter is when the loop sets the icon and tooltip again, past systray's D-Bus registration (see Run).
const reassertAfter = 2 * time.Second

// applyLocked updates the items whose look differs from v; systray signals each change over D-Bus, so
// unchanged items are left alone. Each change is published on its own, so a tray host can read the menu between
// two of them: a summary goes after what it sums up, so that once it shows a state, the items that go with it show
// it too. "Last errors (1)" comes after its error line, and the status line last, after Start, Stop and Restart.
func (m *Menu) applyLocked(v view) {
	old := m.shown
	first := old.Status == ""
	if first || v.Icon != old.Icon {
		m.setIcon(v.Icon)
	}
	if first || v.Tooltip != old.Tooltip {
		systray.SetTooltip(v.Tooltip)
	}
	setEnabled(m.start, first, old.Start, v.Start)
	setEnabled(m.stop, first, old.Stop, v.Stop)
	setEnabled(m.restart, first, old.Restart, v.Restart)
	setEnabled(m.clear, first, len(old.Errors) > 0, len(v.Errors) > 0)
	setVisible(m.noRuns, first, len(old.Runs) == 0, len(v.Runs) == 0)
	setVisible(m.noErrs, first, len(old.Errors) == 0, len(v.Errors) == 0)
	setVisible(m.noRecent, first, len(old.Recent) == 0, len(v.Recent) == 0)
	applySlots(m.runSlots, old.Runs, v.Runs)
	applyTips(m.runSlots, old.RunTips, v.RunTips)
	applySlots(m.errSlots, old.Errors, v.Errors)
	applySlots(m.recSlots, old.Recent, v.Recent)
	applySlots(m.setupSlots, old.Setup, v.Setup)
	setTitle(m.setup, first, old.SetupTitle, v.SetupTitle)
	setVisible(m.setup, first, old.SetupTitle != "", v.SetupTitle != "")
	for i, items := range m.clientItems {
		var was clientLine
		if i < len(old.Clients) {
			was = old.Clients[i]
		}
		if i < len(v.Clients) {
			now := v.Clients[i]
			setTitle(items.title, first, was.Title, now.Title)
			setTitle(items.connect, first, was.Connect, now.Connect)
			setEnabled(items.disconnect, first, was.Connected, now.Connected)
		}
	}
	setTitle(m.runs, first, old.RunsTitle, v.RunsTitle)
	setTitle(m.errs, first, old.ErrorsTitle, v.ErrorsTitle)
	setTitle(m.usage, first, old.Usage, v.Usage)
	setVisible(m.usage, first, old.Usage != "", v.Usage != "")
	setTitle(m.status, first, old.Status, v.Status)
	m.shown = v
}

func setTitle(item *systray.MenuItem, force bool, old, now string) {
	if force || old != now {
		setLabel(item, now)
	}
}

// setLabel shows s on item, its underscores kept.
func setLabel(item *systray.MenuItem, s string) { item.SetTitle(escapeLabel(s)) }

func setEnabled(item *systray.MenuItem, force, old, now bool) {
	if !force && old == now {
		return
	}
	if now {
		item.Enable()
	} else {
		item.Disable()
	}
}

func setVisible(item *systray.MenuItem, force, old, now bool) {
	if !force && old == now {
		return
	}
	if now {
		item.Show()
	} else {
		item.Hide()
	}
}

func applySlots(slots []*systray.MenuItem, old, now []string) {
	for i, slot := range slots {
		wasShown, shown := i < len(old), i < len(now)
		if shown && (!wasShown || old[i] != now[i]) {
			setLabel(slot, now[i])
		}
		if shown != wasShown {
			if shown {
				slot.Show()
			} else {
				slot.Hide()
			}
		}
	}
}

// applyTips sets the tooltip of each slot shown whose tooltip changed.
func applyTips(slots []*systray.MenuItem, old, now []string) {
	for i, slot := range slots {
		if i < len(now) && (i >= len(old) || old[i] != now[i]) {
			slot.SetTooltip(now[i])
		}
	}
}

// errNoNotifications is notify's error when the menu was given no way to show notifications.
var errNoNotifications = errors.New("no desktop notifications")

// notify shows the outcome of a click in a desktop notification, and logs it: the menu closed on the click. It
// returns once the notification is shown, or why it is not.
func (m *Menu) notify(n desktop.Notification) error {
	m.o.Logger.Info(n.Title, "detail", n.Body)
	if m.o.Notify == nil {
		return errNoNotifications
	}
	return m.o.Notify(n)
}

// report shows a failed action among the last errors.
func (m *Menu) report(what string, err error) {
	if err == nil {
		return
	}
	m.o.Logger.Warn("menu action failed", "action", what, "err", err)
	m.act.Report(what, err)
}

// A pageLink is a menu item that opens one of the app's pages in the browser, with this launch's token.
type pageLink struct {
	label, tooltip string
	what           string // the action, as the last errors name it when it fails
	page           string // its path, which Pages.PageURL turns into a link
	checkFirst     bool   // look the setup up again first (Actions.CheckSetup)
}

// The pages' items, in the menu's order, and All research…, the last item of Recent research. The lines of the
// last errors open the status page too, and those of the running searches the research library.
var (
	settingsLink = pageLink{labelSettings, "Edit the Firecrawl keys and other settings in the browser",
		"open the settings page", "/settings", false}
	setupLink = pageLink{labelSetup, "Check the installation, the credentials and each backend in the browser",
		"open the setup check", "/setup", true}
	statusLink = pageLink{labelStatusPage, "Running searches and recent errors in the browser",
		"open the status page", "/status", false}
	welcomeLink = pageLink{labelWelcome, "The first steps: a backend, Firecrawl, a client, a test search",
		"open the getting started page", "/welcome", false}
	pageLinks   = []pageLink{welcomeLink, settingsLink, setupLink, statusLink}
	historyLink = pageLink{labelAllResearch, "Search, read, re-run and delete past research, and see what runs, in the browser",
		"open the research library", "/history", false}
)

// open opens link's page in the browser; a failure shows among the last errors.
func (m *Menu) open(link pageLink) { m.openAt(link, "") }

// openAt opens link's page at its section anchor ("" for the top) in the browser; a failure shows among the last
// errors.
func (m *Menu) openAt(link pageLink, anchor string) {
	if link.checkFirst {
		m.report(link.what, m.act.CheckSetup())
	}
	u, err := m.pages.PageURL(link.page)
	if err == nil && anchor != "" {
		u += "#" + anchor
	}
	if err == nil {
		err = m.o.Open(u)
	}
	m.report(link.what, err)
}

// openSetup opens the setup page at the check that the i-th line of Setup shows.
func (m *Menu) openSetup(i int) {
	m.mu.Lock()
	var anchor string
	if i < len(m.shown.SetupAnchors) {
		anchor = m.shown.SetupAnchors[i]
	}
	m.mu.Unlock()
	m.openAt(setupLink, anchor)
}

// openReport opens the page of the report that the i-th line of Recent research shows.
func (m *Menu) openReport(i int) {
	m.mu.Lock()
	var id string
	if i < len(m.shown.RecentIDs) {
		id = m.shown.RecentIDs[i]
	}
	m.mu.Unlock()
	if id == "" {
		return
	}
	u, err := m.pages.ReportURL(id)
	if err == nil {
		err = m.o.Open(u)
	}
	m.report("open a report", err)
}

func (m *Menu) client(i int) (clients.Client, error) {
	all := m.app.Clients()
	if i >= len(all) {
		return clients.Client{}, errors.New("no such client")
	}
	return all[i], nil
}

func (m *Menu) copyConfig(i int) {
	c, err := m.client(i)
	if err != nil {
		m.report("copy a client config", err)
		return
	}
	snippet, err := c.Snippet()
	if err != nil {
		m.report("copy the "+c.Name+" config", err)
		return
	}
	if err := m.o.Copy(snippet); err != nil {
		// A clipboard that cannot be used is no failure of the server: a notification says so, the log why.
		m.o.Logger.Warn("could not copy the client config", "client", c.Name, "err", err)
		_ = m.notify(desktop.Notification{Title: "The " + c.Name + " configuration was not copied",
			Body: strings.TrimPrefix(err.Error(), "copy to the clipboard: ")})
		return
	}
	_ = m.notify(desktop.Notification{Title: "Copied the " + c.Name + " configuration", Body: "Paste it into " + c.Path + "."})
}

// changeClient connects (or disconnects) the i-th client and shows the outcome in a notification and in its state.
func (m *Menu) changeClient(i int, connect bool) {
	c, err := m.client(i)
	what := map[bool]string{true: "connect to ", false: "disconnect from "}[connect] + c.Name
	if err == nil {
		var backup string
		if connect {
			backup, err = c.Connect(m.o.Now())
		} else {
			backup, err = c.Disconnect(m.o.Now())
		}
		if err == nil {
			m.o.Logger.Info(what, "file", c.Path, "backup", backup)
			body := "Restart " + c.Name + " to load the change."
			if backup != "" {
				body += " The file as it was is kept in " + backup + "."
			}
			v := m.render()
			m.mu.Lock()
			m.applyLocked(v)
			m.mu.Unlock()
			_ = m.notify(desktop.Notification{Title: map[bool]string{true: "Connected ", false: "Disconnected "}[connect] + c.Name,
				Body: body})
			return
		}
	}
	m.report(what, err)
}

func (m *Menu) toggleAutostart() {
	m.mu.Lock()
	defer m.mu.Unlock()
	on := !m.autostart.Checked()
	if err := m.o.Autostart.SetEnabled(on); err != nil {
		go m.report("change start at login", err)
		return
	}
	if on {
		m.autostart.Check()
	} else {
		m.autostart.Uncheck()
	}
}
