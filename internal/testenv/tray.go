package testenv

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/prop"
)

// TrayWatcher is a StatusNotifierWatcher on a session bus, standing where a desktop's tray host
// (a panel, KDE, GNOME's AppIndicator extension) would: programs register their tray icons with
// it, and the test reads their icons and menus, and clicks their items, over D-Bus as a panel
// does.
type TrayWatcher struct {
	conn *dbus.Conn

	mu      sync.Mutex
	items   []TrayItem
	changed chan struct{}
}

// TrayItem is a registered tray icon.
type TrayItem struct {
	w       *TrayWatcher
	Service string          // its owner's bus name
	Path    dbus.ObjectPath // the StatusNotifierItem object
}

// TrayMenuItem is an item of a tray icon's menu.
type TrayMenuItem struct {
	ID      int32
	Label   string
	Type    string // "" or "separator"
	Enabled bool
}

// StartTrayWatcher serves org.kde.StatusNotifierWatcher on the bus at address until the test
// ends.
func StartTrayWatcher(t testing.TB, address string) *TrayWatcher {
	t.Helper()
	conn, err := dbus.Connect(address)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	w := &TrayWatcher{conn: conn, changed: make(chan struct{}, 1)}
	const path, iface = "/StatusNotifierWatcher", "org.kde.StatusNotifierWatcher"
	if err := conn.Export(watcherMethods{w}, path, iface); err != nil {
		t.Fatal(err)
	}
	if _, err := prop.Export(conn, path, prop.Map{iface: {
		"IsStatusNotifierHostRegistered": {Value: true},
		"ProtocolVersion":                {Value: int32(0)},
		"RegisteredStatusNotifierItems":  {Value: []string{}},
	}}); err != nil {
		t.Fatal(err)
	}
	if r, err := conn.RequestName(iface, dbus.NameFlagDoNotQueue); err != nil || r != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("owning %s: %v %v", iface, r, err)
	}
	return w
}

type watcherMethods struct{ w *TrayWatcher }

func (m watcherMethods) RegisterStatusNotifierItem(sender dbus.Sender, service string) *dbus.Error {
	it := TrayItem{w: m.w, Service: string(sender), Path: "/StatusNotifierItem"}
	if len(service) > 0 && service[0] == '/' {
		it.Path = dbus.ObjectPath(service)
	} else if service != "" {
		it.Service = service
	}
	m.w.mu.Lock()
	m.w.items = append(m.w.items, it)
	m.w.mu.Unlock()
	select {
	case m.w.changed <- struct{}{}:
	default:
	}
	return nil
}

func (m watcherMethods) RegisterStatusNotifierHost(service string) *dbus.Error { return nil }

// WaitItem waits until a program has registered a tray icon, and returns the last registered.
func (w *TrayWatcher) WaitItem(t testing.TB, timeout time.Duration) TrayItem {
	t.Helper()
	return w.WaitRegistration(t, 1, timeout)
}

// WaitRegistration waits until programs have registered tray icons count times (a program
// registers again with a watcher that restarted), and returns the last registered.
func (w *TrayWatcher) WaitRegistration(t testing.TB, count int, timeout time.Duration) TrayItem {
	t.Helper()
	deadline := time.After(timeout)
	for {
		w.mu.Lock()
		n := len(w.items)
		var it TrayItem
		if n > 0 {
			it = w.items[n-1]
		}
		w.mu.Unlock()
		if n >= count {
			return it
		}
		select {
		case <-w.changed:
		case <-deadline:
			t.Fatalf("%d tray icon registrations within %v, want %d", n, timeout, count)
		}
	}
}

// Stop ends the watcher, as a panel that quits or restarts (another may start after it); the
// items registered so far are kept.
func (w *TrayWatcher) Stop() { w.conn.Close() }

// Registrations is how many times programs have registered a tray icon with this watcher.
func (w *TrayWatcher) Registrations() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.items)
}

// Icon is a fingerprint of the icon's pixels (its largest pixmap), and its width.
func (it TrayItem) Icon(t testing.TB) (string, int) {
	t.Helper()
	width, _, argb := it.Pixmap(t)
	if len(argb) == 0 {
		return "", 0
	}
	sum := sha256.Sum256(argb)
	return hex.EncodeToString(sum[:8]), width
}

// Pixmap is the icon's largest pixmap as a panel reads it: its size, and its pixels row by row,
// four bytes each (alpha, red, green, blue).
func (it TrayItem) Pixmap(t testing.TB) (width, height int, argb []byte) {
	t.Helper()
	v, err := it.w.conn.Object(it.Service, it.Path).GetProperty("org.kde.StatusNotifierItem.IconPixmap")
	if err != nil {
		t.Fatalf("reading the tray icon: %v", err)
	}
	var pixmaps []struct {
		W, H int32
		Pix  []byte
	}
	if err := v.Store(&pixmaps); err != nil {
		t.Fatalf("the tray icon's pixmaps: %v (%s)", err, v.Signature())
	}
	best := -1
	for i, p := range pixmaps {
		if best < 0 || p.W > pixmaps[best].W {
			best = i
		}
	}
	if best < 0 {
		return 0, 0, nil
	}
	p := pixmaps[best]
	if len(p.Pix) != int(p.W)*int(p.H)*4 {
		t.Fatalf("the tray icon's pixmap is %dx%d with %d bytes", p.W, p.H, len(p.Pix))
	}
	return int(p.W), int(p.H), p.Pix
}

// Title is the icon's title, as a panel reads it (the name it lists the icon under).
func (it TrayItem) Title(t testing.TB) string {
	t.Helper()
	v, err := it.w.conn.Object(it.Service, it.Path).GetProperty("org.kde.StatusNotifierItem.Title")
	if err != nil {
		t.Fatalf("reading the tray icon's title: %v", err)
	}
	s, ok := v.Value().(string)
	if !ok {
		t.Fatalf("the tray icon's Title is %v", v)
	}
	return s
}

// ToolTip is the title of the icon's tooltip, which a panel shows over the icon.
func (it TrayItem) ToolTip(t testing.TB) string {
	t.Helper()
	v, err := it.w.conn.Object(it.Service, it.Path).GetProperty("org.kde.StatusNotifierItem.ToolTip")
	if err != nil {
		t.Fatalf("reading the tray icon's tooltip: %v", err)
	}
	var tip struct {
		Icon    string
		Pixmaps []struct {
			W, H int32
			Pix  []byte
		}
		Title, Text string
	}
	if err := v.Store(&tip); err != nil {
		t.Fatalf("the tray icon's ToolTip: %v (%s)", err, v.Signature())
	}
	return tip.Title
}

// menuPath is where the icon's menu is.
func (it TrayItem) menuPath(t testing.TB) dbus.ObjectPath {
	t.Helper()
	v, err := it.w.conn.Object(it.Service, it.Path).GetProperty("org.kde.StatusNotifierItem.Menu")
	if err != nil {
		t.Fatalf("reading the tray icon's menu property: %v", err)
	}
	p, ok := v.Value().(dbus.ObjectPath)
	if !ok {
		t.Fatalf("the tray icon's Menu is %v", v)
	}
	return p
}

// Menu reads the icon's menu (its top level), as a panel does to show it.
func (it TrayItem) Menu(t testing.TB) []TrayMenuItem {
	t.Helper()
	items, err := it.menu(it.menuPath(t))
	if err != nil {
		t.Fatal(err)
	}
	return items
}

// menu reads the items of the tray menu at path.
func (it TrayItem) menu(path dbus.ObjectPath) ([]TrayMenuItem, error) {
	var rev uint32
	var layout struct {
		ID       int32
		Props    map[string]dbus.Variant
		Children []dbus.Variant
	}
	call := it.w.conn.Object(it.Service, path).Call("com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(1), []string{})
	if err := call.Store(&rev, &layout); err != nil {
		return nil, fmt.Errorf("reading the tray menu: %w", err)
	}
	var items []TrayMenuItem
	for _, c := range layout.Children {
		fields, ok := c.Value().([]any)
		if !ok || len(fields) < 2 {
			return nil, fmt.Errorf("a tray menu item is %v", c)
		}
		mi := TrayMenuItem{Enabled: true}
		mi.ID, _ = fields[0].(int32)
		props, _ := fields[1].(map[string]dbus.Variant)
		if v, ok := props["label"]; ok {
			mi.Label, _ = v.Value().(string)
		}
		if v, ok := props["type"]; ok {
			mi.Type, _ = v.Value().(string)
		}
		if v, ok := props["enabled"]; ok {
			mi.Enabled, _ = v.Value().(bool)
		}
		if v, ok := props["visible"]; ok {
			if vis, _ := v.Value().(bool); !vis {
				continue
			}
		}
		items = append(items, mi)
	}
	return items, nil
}

// Click clicks the menu item labelled label, as a panel does when the person picks it. A menu
// rebuilt between the read and the click no longer has the item read, and the click is lost (as
// a panel's would be until it reads the menu again on LayoutUpdated): the test log says so when
// the item is then found under the same label and a new ID (a click that changes the label
// rebuilds the menu itself).
func (it TrayItem) Click(t testing.TB, label string) {
	t.Helper()
	id, ok := it.itemID(t, label)
	if !ok {
		t.Fatalf("the tray menu has no %q: %v", label, it.Menu(t))
	}
	path := it.menuPath(t)
	call := it.w.conn.Object(it.Service, path).Call("com.canonical.dbusmenu.Event", 0,
		id, "clicked", dbus.MakeVariant(""), uint32(time.Now().Unix()))
	if call.Err != nil {
		t.Fatalf("clicking %q: %v", label, call.Err)
	}
	now, err := it.menu(path)
	if err != nil {
		return // the click ended the program (Quit): there is no menu to read any more
	}
	gone := !slices.ContainsFunc(now, func(mi TrayMenuItem) bool { return mi.ID == id })
	if same := slices.ContainsFunc(now, func(mi TrayMenuItem) bool { return mi.Label == label }); gone && same {
		t.Logf("the tray menu was rebuilt as %q (ID %d) was clicked, and the click may be lost: now %v", label, id, now)
	}
}

// itemID is the ID of the menu item labelled label.
func (it TrayItem) itemID(t testing.TB, label string) (int32, bool) {
	for _, mi := range it.Menu(t) {
		if mi.Label == label {
			return mi.ID, true
		}
	}
	return 0, false
}

// Labels are the menu's labels, separators as "-".
func Labels(items []TrayMenuItem) []string {
	var l []string
	for _, mi := range items {
		if mi.Type == "separator" {
			l = append(l, "-")
			continue
		}
		l = append(l, mi.Label)
	}
	return l
}

func (mi TrayMenuItem) String() string { return fmt.Sprintf("%d:%q", mi.ID, mi.Label) }

// BusNamesOf lists the names on the bus at address (unique and well-known) whose connection
// belongs to process pid: none while the program is not connected.
func BusNamesOf(t testing.TB, address string, pid int) []string {
	t.Helper()
	conn, err := dbus.Connect(address)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var names []string
	if err := conn.BusObject().Call("org.freedesktop.DBus.ListNames", 0).Store(&names); err != nil {
		t.Fatal(err)
	}
	var of []string
	for _, n := range names {
		var p uint32
		if conn.BusObject().Call("org.freedesktop.DBus.GetConnectionUnixProcessID", 0, n).Store(&p) == nil && int(p) == pid {
			of = append(of, n)
		}
	}
	return of
}
