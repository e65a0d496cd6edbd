// Package traytest drives a tray menu over D-Bus, the way a desktop's tray host does, for tests: it starts a
// private session bus and reads and clicks the com.canonical.dbusmenu menu that fyne.io/systray exports.
package traytest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"
)

// ErrNoDaemon means dbus-daemon is not installed (Debian package dbus).
var ErrNoDaemon = errors.New("dbus-daemon not found: install the dbus package (apt-get install dbus)")

// Bus is a private D-Bus session bus.
type Bus struct {
	Address string
	cmd     *exec.Cmd
}

// StartBus starts a private session bus. Close it when done.
func StartBus() (*Bus, error) {
	path, err := exec.LookPath("dbus-daemon")
	if err != nil {
		return nil, ErrNoDaemon
	}
	cmd := exec.Command(path, "--session", "--nofork", "--nopidfile", "--print-address=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start dbus-daemon: %w", err)
	}
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		lines <- strings.TrimSpace(line)
	}()
	select {
	case addr := <-lines:
		if addr == "" {
			cmd.Process.Kill()
			cmd.Wait()
			return nil, errors.New("dbus-daemon printed no address")
		}
		return &Bus{Address: addr, cmd: cmd}, nil
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		return nil, errors.New("dbus-daemon printed no address within 10s")
	}
}

// Close stops the bus daemon.
func (b *Bus) Close() {
	_ = b.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { b.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		b.cmd.Process.Kill()
		<-done
	}
}

// Item is one menu item with the properties a tray host shows.
type Item struct {
	ID          int32
	Label       string // as a host shows it (shownLabel); RawLabel is the property itself
	RawLabel    string
	Enabled     bool
	Visible     bool
	Separator   bool
	Checkmark   bool // a check box
	Checked     bool
	HasChildren bool // a submenu, even while its children are not loaded
	Children    []Item
}

// Menu is a connection to one process's tray menu.
type Menu struct {
	conn *dbus.Conn
	obj  dbus.BusObject
}

// Connect opens the menu of the tray process pid on the bus at addr.
func Connect(addr string, pid int) (*Menu, error) {
	conn, err := dbus.Connect(addr)
	if err != nil {
		return nil, fmt.Errorf("connect to the bus: %w", err)
	}
	name := fmt.Sprintf("org.kde.StatusNotifierItem-%d-1", pid)
	return &Menu{conn: conn, obj: conn.Object(name, "/StatusNotifierItem/menu")}, nil
}

// Close closes the connection.
func (m *Menu) Close() error { return m.conn.Close() }

type layout struct {
	ID       int32
	Props    map[string]dbus.Variant
	Children []dbus.Variant
}

// Layout returns the whole menu; the root's Children are the top-level items. systray answers the first
// request after a rebuild with one level only, so a second request fills in the submenus.
func (m *Menu) Layout() (Item, error) {
	for range 2 {
		var rev uint32
		var l layout
		call := m.obj.Call("com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(-1), []string{})
		if call.Err != nil {
			return Item{}, fmt.Errorf("GetLayout: %w", call.Err)
		}
		if err := call.Store(&rev, &l); err != nil {
			return Item{}, fmt.Errorf("GetLayout: %w", err)
		}
		root, err := convert(l.ID, l.Props, l.Children)
		if err != nil {
			return Item{}, err
		}
		if complete(root) {
			return root, nil
		}
	}
	return Item{}, errors.New("GetLayout: submenus still empty on the second request")
}

func complete(it Item) bool {
	if it.HasChildren && len(it.Children) == 0 {
		return false
	}
	for _, c := range it.Children {
		if !complete(c) {
			return false
		}
	}
	return true
}

// shownLabel is a dbusmenu label as a host shows it: "__" is one underscore, and any other underscore marks the
// access key and is not shown.
func shownLabel(raw string) string {
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		switch {
		case raw[i] != '_':
			b.WriteByte(raw[i])
		case i+1 < len(raw) && raw[i+1] == '_':
			b.WriteByte('_')
			i++
		}
	}
	return b.String()
}

func convert(id int32, props map[string]dbus.Variant, children []dbus.Variant) (Item, error) {
	it := Item{ID: id, Enabled: true, Visible: true}
	for k, v := range props {
		switch k {
		case "label":
			it.RawLabel, _ = v.Value().(string)
			it.Label = shownLabel(it.RawLabel)
		case "enabled":
			it.Enabled, _ = v.Value().(bool)
		case "visible":
			it.Visible, _ = v.Value().(bool)
		case "type":
			it.Separator = v.Value() == "separator"
		case "toggle-type":
			it.Checkmark = v.Value() == "checkmark"
		case "toggle-state":
			n, _ := v.Value().(int32)
			it.Checked = n == 1
		case "children-display":
			it.HasChildren = v.Value() == "submenu"
		}
	}
	for _, c := range children {
		fields, ok := c.Value().([]any)
		if !ok || len(fields) != 3 {
			return Item{}, fmt.Errorf("unexpected menu item %v", c.Value())
		}
		cid, _ := fields[0].(int32)
		cprops, _ := fields[1].(map[string]dbus.Variant)
		cchildren, _ := fields[2].([]dbus.Variant)
		child, err := convert(cid, cprops, cchildren)
		if err != nil {
			return Item{}, err
		}
		it.Children = append(it.Children, child)
	}
	return it, nil
}

// Icon returns the tray icon's pixels as the StatusNotifierItem publishes them: ARGB32, big-endian.
func (m *Menu) Icon() (Pixmap, error) {
	var v dbus.Variant
	item := m.conn.Object(m.obj.Destination(), "/StatusNotifierItem")
	if err := item.Call("org.freedesktop.DBus.Properties.Get", 0, "org.kde.StatusNotifierItem", "IconPixmap").Store(&v); err != nil {
		return Pixmap{}, fmt.Errorf("get IconPixmap: %w", err)
	}
	var pixmaps []Pixmap
	if err := dbus.Store([]any{v.Value()}, &pixmaps); err != nil {
		return Pixmap{}, fmt.Errorf("decode IconPixmap: %w", err)
	}
	if len(pixmaps) == 0 {
		return Pixmap{}, errors.New("no IconPixmap")
	}
	return pixmaps[0], nil
}

// Tooltip returns the tray icon's tooltip title as the StatusNotifierItem publishes it: what a host shows on hover.
func (m *Menu) Tooltip() (string, error) {
	var v dbus.Variant
	item := m.conn.Object(m.obj.Destination(), "/StatusNotifierItem")
	if err := item.Call("org.freedesktop.DBus.Properties.Get", 0, "org.kde.StatusNotifierItem", "ToolTip").Store(&v); err != nil {
		return "", fmt.Errorf("get ToolTip: %w", err)
	}
	var tip struct {
		IconName string
		Icons    []Pixmap
		Title    string
		Text     string
	}
	if err := dbus.Store([]any{v.Value()}, &tip); err != nil {
		return "", fmt.Errorf("decode ToolTip: %w", err)
	}
	return tip.Title, nil
}

// Pixmap is one icon image of a StatusNotifierItem.
type Pixmap struct {
	W, H int32
	Pix  []byte
}

// PixmapOf converts a PNG to the pixels a StatusNotifierItem publishes for it.
func PixmapOf(pngData []byte) (Pixmap, error) {
	img, err := png.Decode(bytes.NewReader(pngData))
	if err != nil {
		return Pixmap{}, err
	}
	b := img.Bounds()
	p := Pixmap{W: int32(b.Dx()), H: int32(b.Dy())}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			p.Pix = append(p.Pix, byte(a), byte(r), byte(g), byte(bl))
		}
	}
	return p, nil
}

// Click clicks the item.
func (m *Menu) Click(id int32) error {
	call := m.obj.Call("com.canonical.dbusmenu.Event", 0, id, "clicked", dbus.MakeVariant(""), uint32(time.Now().Unix()))
	return call.Err
}

// Find returns the first item, at any depth, whose label starts with prefix.
func (it Item) Find(prefix string) (Item, bool) {
	for _, c := range it.Children {
		if c.Label != "" && strings.HasPrefix(c.Label, prefix) {
			return c, true
		}
		if found, ok := c.Find(prefix); ok {
			return found, true
		}
	}
	return Item{}, false
}

// VisibleLabels returns the labels of it's visible children, separators as "---".
func (it Item) VisibleLabels() []string {
	var labels []string
	for _, c := range it.Children {
		switch {
		case !c.Visible:
		case c.Separator:
			labels = append(labels, "---")
		default:
			labels = append(labels, c.Label)
		}
	}
	return labels
}

// String draws the menu as an indented outline, for test failure messages.
func (it Item) String() string {
	var b strings.Builder
	var walk func(Item, string)
	walk = func(it Item, indent string) {
		for _, c := range it.Children {
			if !c.Visible {
				continue
			}
			label := c.Label
			if c.Separator {
				label = "---"
			}
			flags := ""
			if !c.Enabled {
				flags += " (disabled)"
			}
			if c.Checkmark {
				flags += fmt.Sprintf(" [checked=%v]", c.Checked)
			}
			fmt.Fprintf(&b, "%s%s%s\n", indent, label, flags)
			walk(c, indent+"  ")
		}
	}
	walk(it, "")
	return b.String()
}

// Environ returns os.Environ without the variables that would let a child find the desktop's own session bus.
func Environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DBUS_SESSION_BUS_ADDRESS=") {
			env = append(env, kv)
		}
	}
	return env
}
