//go:build unix && !darwin

// Package tray tells whether the desktop shows tray icons: on Linux and the BSDs, whether a
// StatusNotifierWatcher (the tray host of KDE, of GNOME's AppIndicator extension, of most
// panels) is on the session bus. The icon itself is Fyne's (fyne.io/systray).
package tray

import (
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
)

// watcher is the tray host's bus name.
const watcher = "org.kde.StatusNotifierWatcher"

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
	var has bool
	call := conn.Object("org.freedesktop.DBus", "/org/freedesktop/DBus").Go("org.freedesktop.DBus.NameHasOwner", 0, make(chan *dbus.Call, 1), watcher)
	select {
	case c := <-call.Done:
		if c.Err != nil {
			conn.Close()
			conn = nil
			return false
		}
		c.Store(&has)
	case <-time.After(time.Second):
		return false
	}
	return has
}

// WatchHost calls appeared (on a goroutine of its own) each time a tray host starts on the
// session bus, until stop is called.
func WatchHost(appeared func()) (stop func()) {
	c, err := dbus.ConnectSessionBus()
	if err != nil {
		return func() {}
	}
	if err := c.AddMatchSignal(dbus.WithMatchInterface("org.freedesktop.DBus"), dbus.WithMatchMember("NameOwnerChanged"),
		dbus.WithMatchArg(0, watcher)); err != nil {
		c.Close()
		return func() {}
	}
	signals := make(chan *dbus.Signal, 4)
	c.Signal(signals)
	go func() {
		for s := range signals {
			if s == nil || len(s.Body) < 3 {
				continue
			}
			if owner, _ := s.Body[2].(string); owner != "" {
				appeared()
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { c.Close() }) }
}
