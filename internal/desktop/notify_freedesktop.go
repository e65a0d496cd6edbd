//go:build !darwin && !windows

package desktop

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
)

// The freedesktop.org Desktop Notifications service (specification 1.2).
const (
	notificationsName  = "org.freedesktop.Notifications"
	notificationsPath  = dbus.ObjectPath("/org/freedesktop/Notifications")
	notificationsIface = "org.freedesktop.Notifications"
	// defaultAction is the action invoked by a click on the notification itself.
	defaultAction = "default"
	// openAction is the same action as a button: GNOME and KDE show no button for the default action, and dunst
	// and mako offer the named actions in their menu. Both open the link, once.
	openAction = "open"
	// answerTime bounds each notification's wait for the notification server: one that hangs fails that
	// notification (the caller logs it), and the next one is asked again, instead of every later one waiting for
	// an answer that never comes.
	answerTime = 5 * time.Second
	// keptLinks bounds the links remembered for notifications still on screen, should the server never say that
	// some were closed.
	keptLinks = 64
)

// Urgency levels, and the expire_timeout values that leave the time to the server or keep the notification until
// the user dismisses it.
const (
	urgencyNormal   byte  = 1
	urgencyCritical byte  = 2
	expireAsServer  int32 = -1
	expireNever     int32 = 0
)

// platformNotifier talks to the notification server over a session bus connection of its own, made at the first
// notification (and again should it break): the server sends ActionInvoked to the connection that asked for the
// notification. The links stay in this process: the server only learns the action's label.
type platformNotifier struct {
	dial func() (*dbus.Conn, error) // nil: dbus.ConnectSessionBus

	mu     sync.Mutex
	conn   *dbus.Conn
	markup bool      // the server reads markup in bodies: escape & < >
	links  []linkFor // the links of the notifications on screen, oldest first
}

type linkFor struct {
	id   uint32
	link string
}

func (p *platformNotifier) show(o NotifierOptions, n Notification, icon string) error {
	p.mu.Lock() // held until the id is known: an action on this notification waits for its link
	defer p.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), answerTime)
	defer cancel()
	conn, err := p.connect(ctx, o)
	if err != nil {
		return unanswered(err)
	}
	body := n.Body
	if p.markup {
		body = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(body)
	}
	var appIcon string
	if icon != "" {
		appIcon = (&url.URL{Scheme: "file", Path: icon}).String()
	}
	hints := map[string]dbus.Variant{"urgency": dbus.MakeVariant(urgencyNormal)}
	if o.DesktopEntry != "" {
		hints["desktop-entry"] = dbus.MakeVariant(o.DesktopEntry)
	}
	timeout := expireAsServer
	if n.Sticky {
		hints["urgency"], timeout = dbus.MakeVariant(urgencyCritical), expireNever
	}
	actions := []string{}
	if n.Link != "" {
		actions = []string{defaultAction, n.LinkLabel, openAction, n.LinkLabel}
	}
	var id uint32
	err = conn.Object(notificationsName, notificationsPath).CallWithContext(ctx, notificationsIface+".Notify", 0,
		o.AppName, uint32(0), appIcon, n.Title, body, actions, hints, timeout).Store(&id)
	if err != nil {
		return unanswered(err)
	}
	if n.Link != "" {
		p.links = append(p.links, linkFor{id, n.Link})
		if len(p.links) > keptLinks {
			p.links = slices.Delete(p.links, 0, len(p.links)-keptLinks)
		}
	}
	return nil
}

// unanswered says that the notification server did not answer in time, rather than "context deadline exceeded".
func unanswered(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("the notification server did not answer within %s: %w", answerTime, err)
	}
	return err
}

// connect returns the connection, made (again) when there is none: it listens for the server's signals and
// learns whether bodies are markup, within ctx. p.mu is held.
func (p *platformNotifier) connect(ctx context.Context, o NotifierOptions) (*dbus.Conn, error) {
	if p.conn != nil && p.conn.Connected() {
		return p.conn, nil
	}
	dial := p.dial
	if dial == nil {
		dial = func() (*dbus.Conn, error) { return dbus.ConnectSessionBus() }
	}
	conn, err := dial()
	if err != nil {
		return nil, err
	}
	if err := conn.AddMatchSignalContext(ctx, dbus.WithMatchObjectPath(notificationsPath),
		dbus.WithMatchInterface(notificationsIface)); err != nil {
		conn.Close()
		return nil, err
	}
	signals := make(chan *dbus.Signal, 16)
	conn.Signal(signals)
	go p.listen(o, signals)
	var caps []string
	err = conn.Object(notificationsName, notificationsPath).CallWithContext(ctx, notificationsIface+".GetCapabilities",
		0).Store(&caps)
	if errors.Is(err, context.DeadlineExceeded) { // a server that hangs; one that lacks the method is fine
		conn.Close()
		return nil, err
	}
	p.conn, p.markup, p.links = conn, slices.Contains(caps, "body-markup"), nil
	return conn, nil
}

// listen opens a notification's link when the user acts on it, and forgets the links of closed notifications,
// until the connection closes (which closes signals).
func (p *platformNotifier) listen(o NotifierOptions, signals <-chan *dbus.Signal) {
	for sig := range signals {
		var id uint32
		switch sig.Name {
		case notificationsIface + ".ActionInvoked":
			var action string
			if dbus.Store(sig.Body, &id, &action) != nil || action != defaultAction && action != openAction {
				continue
			}
			if link := p.take(id); link != "" {
				o.opened(link)
			}
		case notificationsIface + ".NotificationClosed":
			var reason uint32
			if dbus.Store(sig.Body, &id, &reason) == nil {
				p.take(id)
			}
		}
	}
}

// take returns the link of notification id and forgets it: one action opens one page.
func (p *platformNotifier) take(id uint32) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	i := slices.IndexFunc(p.links, func(l linkFor) bool { return l.id == id })
	if i < 0 {
		return ""
	}
	link := p.links[i].link
	p.links = slices.Delete(p.links, i, i+1)
	return link
}

func (p *platformNotifier) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conn != nil {
		p.conn.Close()
		p.conn, p.links = nil, nil
	}
}
