//go:build unix && !darwin

// Package tray tells whether the desktop shows tray icons: on Linux and the BSDs, whether a
// StatusNotifierWatcher (the tray host of KDE, of GNOME's AppIndicator extension, of most
// panels) is on the session bus. The icon itself is Fyne's (fyne.io/systray).
package tray

import (
	"sync"
	"time"

	"fyne.io/systray"
	"github.com/godbus/dbus/v5"
)

const (
	// watcher is the tray host's bus name.
	watcher = "org.kde.StatusNotifierWatcher"
	// busName is the bus's own name: the sender of the signals it sends (dbus-daemon and
	// dbus-broker give that name, not a unique one, as the sender).
	busName = "org.freedesktop.DBus"
	busPath = dbus.ObjectPath("/org/freedesktop/DBus")
)

var (
	mu   sync.Mutex
	conn *dbus.Conn
)

// HostPresent reports whether a tray host runs now. It asks the session bus (within a second);
// without a bus there is no host.
func HostPresent() bool {
	mu.Lock()
	defer mu.Unlock()
	if conn == nil {
		c, err := dbus.ConnectSessionBus()
		if err != nil {
			return false
		}
		conn = c
	}
	has, err := hasOwner(conn, watcher)
	if err != nil {
		conn.Close()
		conn = nil
		return false
	}
	return has
}

// hasOwner asks the bus whether a connection owns name (within a second).
func hasOwner(c *dbus.Conn, name string) (bool, error) {
	var has bool
	call := c.BusObject().Go(busName+".NameHasOwner", 0, make(chan *dbus.Call, 1), name)
	select {
	case r := <-call.Done:
		if r.Err != nil {
			return false, r.Err
		}
		err := r.Store(&has)
		return has, err
	case <-time.After(time.Second):
		return false, errTimeout{}
	}
}

type errTimeout struct{}

func (errTimeout) Error() string { return "the session bus did not answer within a second" }

// WatchHost calls appeared (on a goroutine of its own) each time a tray host starts on the
// session bus, until stop is called. Only the bus's own word counts: any program can send a
// NameOwnerChanged signal straight to this connection, so one from another sender is ignored,
// and the bus is asked again whether a host runs before appeared is called.
func WatchHost(appeared func()) (stop func()) {
	c, err := dbus.ConnectSessionBus()
	if err != nil {
		return func() {}
	}
	// The sender of the bus's signals: its own name, as the bus says (dbus-daemon says
	// "org.freedesktop.DBus" here too; no connection can take that name).
	driver := busName
	var owner string
	if err := c.BusObject().Call(busName+".GetNameOwner", 0, busName).Store(&owner); err == nil && owner != "" {
		driver = owner
	}
	if err := c.AddMatchSignal(dbus.WithMatchSender(busName), dbus.WithMatchObjectPath(busPath),
		dbus.WithMatchInterface(busName), dbus.WithMatchMember("NameOwnerChanged"),
		dbus.WithMatchArg(0, watcher)); err != nil {
		c.Close()
		return func() {}
	}
	signals := make(chan *dbus.Signal, 4)
	c.Signal(signals)
	go func() {
		for s := range signals {
			if s == nil || s.Sender != driver || s.Path != busPath || s.Name != busName+".NameOwnerChanged" || len(s.Body) < 3 {
				continue
			}
			if name, _ := s.Body[0].(string); name != watcher {
				continue
			}
			if owner, _ := s.Body[2].(string); owner == "" {
				continue
			}
			if has, err := hasOwner(c, watcher); err == nil && has {
				appeared()
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { c.Close() }) }
}

// SetTooltip sets the text the tray host shows over Parley's icon (the StatusNotifierItem's
// tooltip title). It may be called before the icon is up: the icon starts with it.
func SetTooltip(text string) { systray.SetTooltip(text) }
