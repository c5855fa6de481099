package testenv

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
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
	deadline := time.After(timeout)
	for {
		w.mu.Lock()
		n := len(w.items)
		var it TrayItem
		if n > 0 {
			it = w.items[n-1]
		}
		w.mu.Unlock()
		if n > 0 {
			return it
		}
		select {
		case <-w.changed:
		case <-deadline:
			t.Fatalf("no tray icon was registered within %v", timeout)
		}
	}
}

// Icon is a fingerprint of the icon's pixels (its largest pixmap), and its width.
func (it TrayItem) Icon(t testing.TB) (string, int) {
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
	if best < 0 || len(pixmaps[best].Pix) == 0 {
		return "", 0
	}
	sum := sha256.Sum256(pixmaps[best].Pix)
	return hex.EncodeToString(sum[:8]), int(pixmaps[best].W)
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
	var rev uint32
	var layout struct {
		ID       int32
		Props    map[string]dbus.Variant
		Children []dbus.Variant
	}
	call := it.w.conn.Object(it.Service, it.menuPath(t)).Call("com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(1), []string{})
	if err := call.Store(&rev, &layout); err != nil {
		t.Fatalf("reading the tray menu: %v", err)
	}
	var items []TrayMenuItem
	for _, c := range layout.Children {
		fields, ok := c.Value().([]any)
		if !ok || len(fields) < 2 {
			t.Fatalf("a tray menu item is %v", c)
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
	return items
}

// Click clicks the menu item labelled label, as a panel does when the person picks it.
func (it TrayItem) Click(t testing.TB, label string) {
	t.Helper()
	for _, mi := range it.Menu(t) {
		if mi.Label == label {
			call := it.w.conn.Object(it.Service, it.menuPath(t)).Call("com.canonical.dbusmenu.Event", 0,
				mi.ID, "clicked", dbus.MakeVariant(""), uint32(time.Now().Unix()))
			if call.Err != nil {
				t.Fatalf("clicking %q: %v", label, call.Err)
			}
			return
		}
	}
	t.Fatalf("the tray menu has no %q: %v", label, it.Menu(t))
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
