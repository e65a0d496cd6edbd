//go:build !darwin && !windows

package desktop

import (
	"bytes"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tray/traytest"
)

// shown is one Notify call as the notification server received it.
type shown struct {
	id                       uint32
	app, icon, summary, body string
	actions                  []string
	urgency                  byte
	desktopEntry             string
	timeout                  int32
}

// fakeServer is an org.freedesktop.Notifications server on a private bus: it keeps what it is asked to show, and
// can say that the user acted on a notification or closed it.
type fakeServer struct {
	conn *dbus.Conn
	caps []string
	// hang, when set, is the title of a notification the server never answers (until the test ends)
	hang    string
	release chan struct{}
	mu      sync.Mutex
	all     []shown
}

func (s *fakeServer) Notify(app string, replaces uint32, icon, summary, body string, actions []string,
	hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	s.mu.Lock()
	if summary == s.hang {
		s.mu.Unlock()
		<-s.release
		return 0, dbus.MakeFailedError(errors.New("the test ended"))
	}
	defer s.mu.Unlock()
	n := shown{id: uint32(len(s.all) + 1), app: app, icon: icon, summary: summary, body: body, actions: actions,
		timeout: timeout}
	_ = hints["urgency"].Store(&n.urgency)
	_ = hints["desktop-entry"].Store(&n.desktopEntry)
	s.all = append(s.all, n)
	return n.id, nil
}

// neverAnswer has the server leave the notifications titled title unanswered.
func (s *fakeServer) neverAnswer(title string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hang = title
}

func (s *fakeServer) GetCapabilities() ([]string, *dbus.Error) { return s.caps, nil }

func (s *fakeServer) list() []shown {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.all)
}

func (s *fakeServer) emit(t *testing.T, member string, body ...any) {
	t.Helper()
	if err := s.conn.Emit(notificationsPath, notificationsIface+"."+member, body...); err != nil {
		t.Fatal(err)
	}
}

// startServer starts a private bus with a notification server on it, and returns the server and a Notifier
// connected to that bus whose links open into the returned channel.
func startServer(t *testing.T, caps ...string) (*fakeServer, *Notifier, <-chan string, NotifierOptions) {
	t.Helper()
	bus, err := traytest.StartBus()
	if errors.Is(err, traytest.ErrNoDaemon) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(bus.Close)
	conn, err := dbus.Connect(bus.Address)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	s := &fakeServer{conn: conn, caps: caps, release: make(chan struct{})}
	t.Cleanup(func() { close(s.release) })
	if err := conn.Export(s, notificationsPath, notificationsIface); err != nil {
		t.Fatal(err)
	}
	if reply, err := conn.RequestName(notificationsName, dbus.NameFlagDoNotQueue); err != nil ||
		reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own %s: %v (%v)", notificationsName, reply, err)
	}
	opened := make(chan string, 10)
	o := NotifierOptions{AppName: "Test App", DesktopEntry: "test-app", Icon: []byte("\x89PNG icon"),
		IconPath: filepath.Join(t.TempDir(), "cache", "icon.png"),
		Open:     func(link string) error { opened <- link; return nil }}
	n := NewNotifier(o)
	n.platform.dial = func() (*dbus.Conn, error) { return dbus.Connect(bus.Address) }
	t.Cleanup(n.Close)
	return s, n, opened, o
}

// A notification carries the app's name, icon and desktop entry; one with a link offers the default action and an
// "open" action (a button), both under its label, and a sticky one is critical and never expires.
func TestNotifyOverDBus(t *testing.T) {
	t.Parallel()
	s, n, _, o := startServer(t, "body", "actions")
	if err := n.Notify(Notification{Title: "Research finished", Body: "search \"x\" · 3s",
		Link: "http://127.0.0.1:1/report?id=1&token=t", LinkLabel: "Open report"}); err != nil {
		t.Fatal(err)
	}
	if err := n.Notify(Notification{Title: "Research failed", Body: "QUOTA_ERROR", Link: "http://127.0.0.1:1/status",
		Sticky: true}); err != nil {
		t.Fatal(err)
	}
	if err := n.Notify(Notification{Title: "Plain", Body: "<b>not markup</b>"}); err != nil {
		t.Fatal(err)
	}
	icon := (&url.URL{Scheme: "file", Path: o.IconPath}).String()
	want := []shown{
		{1, "Test App", icon, "Research finished", "search \"x\" · 3s", []string{"default", "Open report", "open", "Open report"}, 1,
			"test-app", -1},
		{2, "Test App", icon, "Research failed", "QUOTA_ERROR", []string{"default", "Open", "open", "Open"}, 2, "test-app", 0},
		{3, "Test App", icon, "Plain", "<b>not markup</b>", []string{}, 1, "test-app", -1},
	}
	got := s.list()
	for i := range max(len(got), len(want)) {
		if i >= len(got) || i >= len(want) || !equalShown(got[i], want[i]) {
			t.Errorf("shown %+v,\nwant %+v", got, want)
			break
		}
	}
	if data, err := os.ReadFile(o.IconPath); err != nil || !bytes.Equal(data, o.Icon) {
		t.Errorf("the icon file holds %q (%v), want the icon", data, err)
	}
}

func equalShown(a, b shown) bool {
	return a.id == b.id && a.app == b.app && a.icon == b.icon && a.summary == b.summary && a.body == b.body &&
		slices.Equal(a.actions, b.actions) && a.urgency == b.urgency && a.desktopEntry == b.desktopEntry &&
		a.timeout == b.timeout
}

// A server that reads markup in bodies gets the body escaped, so that a topic shows as typed.
func TestNotifyEscapesMarkup(t *testing.T) {
	t.Parallel()
	s, n, _, _ := startServer(t, "body", "body-markup")
	if err := n.Notify(Notification{Title: "T", Body: `C++ <vector> & "more"`}); err != nil {
		t.Fatal(err)
	}
	if got := s.list(); len(got) != 1 || got[0].body != `C++ &lt;vector&gt; &amp; "more"` {
		t.Errorf("shown %+v, want the body escaped", got)
	}
}

// The default action, or the "open" button, opens the notification's link, once: a click on both opens one page.
// A notification closed before, or another action, opens nothing.
func TestNotificationActionOpensItsLink(t *testing.T) {
	t.Parallel()
	s, n, opened, _ := startServer(t, "actions")
	links := []string{"http://127.0.0.1:1/a", "http://127.0.0.1:1/b", "http://127.0.0.1:1/c", "http://127.0.0.1:1/d"}
	for _, link := range links {
		if err := n.Notify(Notification{Title: link, Link: link}); err != nil {
			t.Fatal(err)
		}
	}
	s.emit(t, "NotificationClosed", uint32(1), uint32(2)) // dismissed by the user
	s.emit(t, "ActionInvoked", uint32(1), "default")
	s.emit(t, "ActionInvoked", uint32(2), "other")
	s.emit(t, "ActionInvoked", uint32(3), "default")
	s.emit(t, "ActionInvoked", uint32(3), "default")
	s.emit(t, "ActionInvoked", uint32(4), "open") // the button, then a click on the notification
	s.emit(t, "ActionInvoked", uint32(4), "default")
	s.emit(t, "ActionInvoked", uint32(2), "open")
	var got []string
	testkit.WaitFor(t, "three pages opened", func() bool {
		select {
		case link := <-opened:
			got = append(got, link)
		default:
		}
		return len(got) == 3
	})
	if want := []string{"http://127.0.0.1:1/c", "http://127.0.0.1:1/d", "http://127.0.0.1:1/b"}; !slices.Equal(got, want) {
		t.Errorf("opened %q, want %q", got, want)
	}
}

// A notification server that never answers fails that notification, saying so, and the next one is asked again:
// it shows, and its button opens its link.
func TestNotifyServerThatNeverAnswers(t *testing.T) {
	t.Parallel()
	s, n, opened, _ := startServer(t, "actions")
	s.neverAnswer("Lost")
	err := n.Notify(Notification{Title: "Lost", Link: "http://127.0.0.1:1/lost"})
	if err == nil || !strings.Contains(err.Error(), "the notification server did not answer within 5s") {
		t.Fatalf("Notify to a server that never answers: %v, want it to say the server did not answer", err)
	}
	if err := n.Notify(Notification{Title: "Next", Link: "http://127.0.0.1:1/next"}); err != nil {
		t.Fatalf("the notification after one that was not answered: %v", err)
	}
	got := s.list()
	if len(got) != 1 || got[0].summary != "Next" {
		t.Fatalf("shown %+v, want the next notification", got)
	}
	s.emit(t, "ActionInvoked", got[0].id, "open")
	select {
	case link := <-opened:
		if link != "http://127.0.0.1:1/next" {
			t.Errorf("opened %q, want the next notification's link", link)
		}
	case <-time.After(testkit.WaitLimit):
		t.Fatal("the button of the next notification opened nothing")
	}
}

// A link that cannot be opened is told to Failed: the click happens long after Notify returned.
func TestNotificationLinkThatCannotBeOpened(t *testing.T) {
	t.Parallel()
	s, n, _, _ := startServer(t, "actions")
	failed := make(chan error, 1)
	n.o.Open = func(link string) error { return errors.New("open " + link + ": xdg-open is not installed") }
	n.o.Failed = func(err error) { failed <- err }
	if err := n.Notify(Notification{Title: "T", Link: "http://127.0.0.1:1/a"}); err != nil {
		t.Fatal(err)
	}
	s.emit(t, "ActionInvoked", uint32(1), "default")
	select {
	case err := <-failed:
		if err.Error() != "open http://127.0.0.1:1/a: xdg-open is not installed" {
			t.Errorf("Failed got %v", err)
		}
	case <-time.After(testkit.WaitLimit):
		t.Fatal("Failed was not told")
	}
}
