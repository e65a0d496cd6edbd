package main

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/godbus/dbus/v5"

	"github.com/gemini-search-mcp/gemini-search-mcp/assets"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

var errorsLinkRE = regexp.MustCompile(`^(http://127\.0\.0\.1:\d+)/status\?token=[0-9a-f]+#errors$`)

// notice is one notification as the notification server was asked to show it.
type notice struct {
	id                 uint32
	app, icon, summary string
	body               string
	actions            []string
	urgency            byte
	timeout            int32
}

// notificationDaemon is a notification server of the test's own on its private bus: it keeps what it is asked to
// show, and can say that the user clicked a notification.
type notificationDaemon struct {
	conn  *dbus.Conn
	mu    sync.Mutex
	shown []notice
}

func (d *notificationDaemon) Notify(app string, replaces uint32, icon, summary, body string, actions []string,
	hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := notice{id: uint32(len(d.shown) + 1), app: app, icon: icon, summary: summary, body: body, actions: actions,
		timeout: timeout}
	_ = hints["urgency"].Store(&n.urgency)
	d.shown = append(d.shown, n)
	return n.id, nil
}

func (d *notificationDaemon) GetCapabilities() ([]string, *dbus.Error) {
	return []string{"body", "actions"}, nil
}

func (d *notificationDaemon) GetServerInformation() (string, string, string, string, *dbus.Error) {
	return "test", "gemini-search-mcp", "1", "1.2", nil
}

func (d *notificationDaemon) list() []notice {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.shown)
}

// click says that the user invoked action of notification id: "default" for a click on the notification, "open"
// for its button.
func (d *notificationDaemon) click(t *testing.T, id uint32, action string) {
	t.Helper()
	if err := d.conn.Emit("/org/freedesktop/Notifications", "org.freedesktop.Notifications.ActionInvoked",
		id, action); err != nil {
		t.Fatal(err)
	}
}

// startNotificationDaemon serves org.freedesktop.Notifications on the private bus until the test ends.
func startNotificationDaemon(t *testing.T) *notificationDaemon {
	t.Helper()
	conn, err := dbus.Connect(bus.Address)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	d := &notificationDaemon{conn: conn}
	if err := conn.Export(d, "/org/freedesktop/Notifications", "org.freedesktop.Notifications"); err != nil {
		t.Fatal(err)
	}
	if reply, err := conn.RequestName("org.freedesktop.Notifications", dbus.NameFlagDoNotQueue); err != nil ||
		reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own org.freedesktop.Notifications: %v (%v)", reply, err)
	}
	return d
}

// checkIcon fails t unless icon names the tray's icon, written into the cache dir for the notification server.
func (p *trayProc) checkIcon(t *testing.T, icon string) {
	t.Helper()
	path := filepath.Join(p.cache, "gemini-search-mcp", "notification-icon.png")
	if want := (&url.URL{Scheme: "file", Path: path}).String(); icon != want {
		t.Errorf("app_icon %q, want %q", icon, want)
	}
	want, _ := assets.Icon(assets.Idle, "png")
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
		t.Errorf("the icon file: %v, or it is not the tray's icon", err)
	}
}

// waitOpened waits for the fake xdg-open to have been asked for one page, and returns it.
func waitOpened(t *testing.T, opened string) string {
	t.Helper()
	var link string
	testkit.WaitFor(t, "xdg-open to be asked for a page", func() bool {
		data, _ := os.ReadFile(opened)
		link = strings.TrimSpace(string(data))
		return link != ""
	})
	return link
}

// A search that ran longer than GEMINI_NOTIFY_AFTER and failed reaches the desktop's notification server, saying
// what, about what and why, with the tray's icon; it stays until dismissed, and a click opens the last errors. With
// GEMINI_NOTIFY=false nothing does. (Not parallel: it owns the bus's notification name.)
func TestNotificationOfAFailedSearch(t *testing.T) {
	needBus(t)
	d := startNotificationDaemon(t)
	openerEnv, opened := fakeOpener(t)
	var p *trayProc
	var base string
	for _, notify := range []string{"false", "true"} {
		fake := geminitest.NewLocal(t, geminitest.ScenarioQuota)
		p = startTray(t, trayOptions{fake: fake, signedIn: true, env: append(append(fake.Env(), openerEnv...),
			"GEMINI_NOTIFY_AFTER=0", "GEMINI_NOTIFY="+notify, "GEMINI_FALLBACK_MODEL=none")})
		base, _ = p.waitRunning(t)
		<-searchAsync(t, base, "will run out "+notify)
	}
	testkit.WaitFor(t, "the notification", func() bool { return len(d.list()) > 0 })
	shown := d.list()
	if len(shown) != 1 {
		t.Fatalf("notifications %+v, want the one failed search with GEMINI_NOTIFY=true", shown)
	}
	n := shown[0]
	if n.app != "Gemini Search MCP" || n.summary != "Research failed" ||
		!strings.Contains(n.body, `search "will run out true"`) || !strings.Contains(n.body, "QUOTA_ERROR: ") {
		t.Errorf("notification %+v, want the failed search with its code", n)
	}
	if n.timeout != 0 || n.urgency != 2 {
		t.Errorf("expire_timeout %d, urgency %d: want 0 and 2 (critical), a failure stays until dismissed",
			n.timeout, n.urgency)
	}
	if want := []string{"default", "Show the error", "open", "Show the error"}; !slices.Equal(n.actions, want) {
		t.Errorf("actions %q, want %q", n.actions, want)
	}
	p.checkIcon(t, n.icon)

	d.click(t, n.id, "default")
	link := waitOpened(t, opened)
	if m := errorsLinkRE.FindStringSubmatch(link); m == nil || m[1] != base {
		t.Errorf("the click opened %q, want %s/status?token=…#errors", link, base)
	}
}

// A finished search's notification goes after the server's usual time, and its button opens the report's page.
// (Not parallel: it owns the bus's notification name.)
func TestNotificationOpensTheReport(t *testing.T) {
	needBus(t)
	d := startNotificationDaemon(t)
	openerEnv, opened := fakeOpener(t)
	fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
	p := startTray(t, trayOptions{fake: fake, dotenv: "GEMINI_BACKEND=cli\n",
		env: append(append(fake.Env(), openerEnv...), "GEMINI_NOTIFY_AFTER=0")})
	base, _ := p.waitRunning(t)
	if res := <-searchAsync(t, base, "tray history query"); res == nil || res.IsError {
		t.Fatalf("search failed: %+v", res)
	}
	testkit.WaitFor(t, "the notification", func() bool { return len(d.list()) > 0 })
	n := d.list()[0]
	if n.summary != "Research finished" || !strings.Contains(n.body, `search "tray history query"`) {
		t.Errorf("notification %+v, want the finished search", n)
	}
	if n.timeout != -1 || n.urgency != 1 {
		t.Errorf("expire_timeout %d, urgency %d: want -1 (the server's) and 1 (normal)", n.timeout, n.urgency)
	}
	if want := []string{"default", "Open report", "open", "Open report"}; !slices.Equal(n.actions, want) {
		t.Errorf("actions %q, want %q", n.actions, want)
	}
	p.checkIcon(t, n.icon)

	d.click(t, n.id, "open")
	link := waitOpened(t, opened)
	if m := reportLinkRE.FindStringSubmatch(link); m == nil || m[1] != base {
		t.Errorf("the click opened %q, want %s/report?id=…&token=…", link, base)
	}
}
