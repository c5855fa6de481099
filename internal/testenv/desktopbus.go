package testenv

import (
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// Notification is one notification a program sent.
type Notification struct {
	ID            uint32
	App           string
	Summary, Body string
	Actions       []string
}

// Notifications is a freedesktop.org notification service on a session bus, standing where a
// desktop's notification daemon would: it records what programs show, and clicks for the test.
type Notifications struct {
	conn *dbus.Conn

	mu      sync.Mutex
	shown   []Notification
	changed chan struct{}
}

// StartNotifications serves org.freedesktop.Notifications on the bus at address (a
// SessionBus's Address) until the test ends. It offers body-markup, as most servers do.
func StartNotifications(t testing.TB, address string) *Notifications {
	t.Helper()
	conn, err := dbus.Connect(address)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	n := &Notifications{conn: conn, changed: make(chan struct{}, 1)}
	if err := conn.Export(notificationServer{n}, "/org/freedesktop/Notifications", "org.freedesktop.Notifications"); err != nil {
		t.Fatal(err)
	}
	if r, err := conn.RequestName("org.freedesktop.Notifications", dbus.NameFlagDoNotQueue); err != nil || r != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("owning org.freedesktop.Notifications: %v %v", r, err)
	}
	return n
}

// Stop ends the server, as a notification daemon that quits (another may start after it).
func (n *Notifications) Stop() { n.conn.Close() }

type notificationServer struct{ n *Notifications }

func (s notificationServer) GetCapabilities() ([]string, *dbus.Error) {
	return []string{"actions", "body", "body-markup"}, nil
}

func (s notificationServer) GetServerInformation() (string, string, string, string, *dbus.Error) {
	return "parley-test", "parley", "1", "1.2", nil
}

func (s notificationServer) Notify(app string, replaces uint32, icon, summary, body string, actions []string, hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	n := s.n
	n.mu.Lock()
	id := uint32(len(n.shown) + 1)
	n.shown = append(n.shown, Notification{ID: id, App: app, Summary: summary, Body: body, Actions: actions})
	n.mu.Unlock()
	select {
	case n.changed <- struct{}{}:
	default:
	}
	return id, nil
}

func (s notificationServer) CloseNotification(id uint32) *dbus.Error { return nil }

// Shown returns the notifications shown so far.
func (n *Notifications) Shown() []Notification {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]Notification(nil), n.shown...)
}

// Wait waits until count notifications have been shown and returns the last.
func (n *Notifications) Wait(t testing.TB, count int, timeout time.Duration) Notification {
	t.Helper()
	deadline := time.After(timeout)
	for {
		if s := n.Shown(); len(s) >= count {
			return s[count-1]
		}
		select {
		case <-n.changed:
		case <-deadline:
			t.Fatalf("%d notifications within %v, want %d", len(n.Shown()), timeout, count)
		}
	}
}

// Click clicks a notification, as a person does: its default action, and then it closes.
func (n *Notifications) Click(t testing.TB, id uint32) {
	t.Helper()
	const p, i = dbus.ObjectPath("/org/freedesktop/Notifications"), "org.freedesktop.Notifications"
	if err := n.conn.Emit(p, i+".ActionInvoked", id, "default"); err != nil {
		t.Fatal(err)
	}
	if err := n.conn.Emit(p, i+".NotificationClosed", id, uint32(2)); err != nil {
		t.Fatal(err)
	}
}
