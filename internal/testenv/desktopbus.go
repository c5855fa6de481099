package testenv

import (
	"strings"
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

// ForgeSignal sends the signal member ("interface.Member") on path as a program on the session
// bus could: broadcast, and sent to every other connection by its unique name (a signal sent to
// a connection reaches it whatever its match rules say). It returns once each has received it
// (a ping answered after it), with how many connections it was sent to.
func ForgeSignal(t testing.TB, path dbus.ObjectPath, member string, body ...any) int {
	t.Helper()
	return ForgeSignals(t, 1, path, member, body...)
}

// ForgeSignals is ForgeSignal sending the signal count times, as a flood: all of them, then
// one ping to each connection.
func ForgeSignals(t testing.TB, count int, path dbus.ObjectPath, member string, body ...any) int {
	t.Helper()
	forger, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatal(err)
	}
	defer forger.Close()
	for range count {
		if err := forger.Emit(path, member, body...); err != nil {
			t.Fatal(err)
		}
	}
	var names []string
	if err := forger.BusObject().Call("org.freedesktop.DBus.ListNames", 0).Store(&names); err != nil {
		t.Fatal(err)
	}
	i := strings.LastIndexByte(member, '.')
	var targets []string
	for _, n := range names {
		if !strings.HasPrefix(n, ":") || n == forger.Names()[0] {
			continue
		}
		msg := &dbus.Message{Type: dbus.TypeSignal, Headers: map[dbus.HeaderField]dbus.Variant{
			dbus.FieldPath:        dbus.MakeVariant(path),
			dbus.FieldInterface:   dbus.MakeVariant(member[:i]),
			dbus.FieldMember:      dbus.MakeVariant(member[i+1:]),
			dbus.FieldDestination: dbus.MakeVariant(n),
			dbus.FieldSignature:   dbus.MakeVariant(dbus.SignatureOf(body...)),
		}, Body: body}
		for range count {
			if call := forger.Send(msg, nil); call.Err != nil {
				t.Fatal(call.Err)
			}
		}
		targets = append(targets, n)
	}
	for _, n := range targets {
		if err := forger.Object(n, "/").Call("org.freedesktop.DBus.Peer.Ping", 0).Err; err != nil {
			t.Fatalf("ping %s: %v", n, err)
		}
	}
	return len(targets)
}
