package main

import (
	"strings"
	"sync"
	"testing"

	"github.com/godbus/dbus/v5"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

// notificationDaemon is a notification server of the test's own on its private bus: it keeps what it is asked to
// show.
type notificationDaemon struct {
	mu    sync.Mutex
	shown []string
}

func (d *notificationDaemon) Notify(app string, replaces uint32, icon, summary, body string, actions []string,
	hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.shown = append(d.shown, app+" | "+summary+" | "+body)
	return uint32(len(d.shown)), nil
}

func (d *notificationDaemon) GetCapabilities() ([]string, *dbus.Error) { return []string{"body"}, nil }

func (d *notificationDaemon) GetServerInformation() (string, string, string, string, *dbus.Error) {
	return "test", "gemini-search-mcp", "1", "1.2", nil
}

func (d *notificationDaemon) list() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.shown...)
}

// startNotificationDaemon serves org.freedesktop.Notifications on the private bus until the test ends.
func startNotificationDaemon(t *testing.T) *notificationDaemon {
	t.Helper()
	conn, err := dbus.Connect(bus.Address)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	d := &notificationDaemon{}
	if err := conn.Export(d, "/org/freedesktop/Notifications", "org.freedesktop.Notifications"); err != nil {
		t.Fatal(err)
	}
	if reply, err := conn.RequestName("org.freedesktop.Notifications", dbus.NameFlagDoNotQueue); err != nil ||
		reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own org.freedesktop.Notifications: %v (%v)", reply, err)
	}
	return d
}

// A search that ran longer than GEMINI_NOTIFY_AFTER and failed reaches the desktop's notification server, saying
// what, about what and why; with GEMINI_NOTIFY=false nothing does. (Not parallel: it owns the bus's notification
// name.)
func TestNotificationOfAnEndedSearch(t *testing.T) {
	needBus(t)
	d := startNotificationDaemon(t)
	for _, notify := range []string{"false", "true"} {
		fake := geminitest.NewLocal(t, geminitest.ScenarioQuota)
		p := startTray(t, trayOptions{fake: fake, signedIn: true, env: append(fake.Env(), "GEMINI_NOTIFY_AFTER=0",
			"GEMINI_NOTIFY="+notify, "GEMINI_FALLBACK_MODEL=none")})
		base, _ := p.waitRunning(t)
		<-searchAsync(t, base, "will run out "+notify)
	}
	testkit.WaitFor(t, "the notification", func() bool { return len(d.list()) > 0 })
	shown := d.list()
	if len(shown) != 1 || !strings.HasPrefix(shown[0], "Gemini Search MCP | Research failed | ") ||
		!strings.Contains(shown[0], `search "will run out true"`) || !strings.Contains(shown[0], "QUOTA_ERROR: ") {
		t.Errorf("notifications %q, want the one failed search with GEMINI_NOTIFY=true", shown)
	}
}
