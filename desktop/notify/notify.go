//go:build unix && !darwin

// Package notify shows desktop notifications that say something and open what they are about
// when clicked: the freedesktop.org notification service on the session bus. (Fyne's own
// notifications cannot be clicked.)
package notify

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
)

const (
	service = "org.freedesktop.Notifications"
	path    = dbus.ObjectPath("/org/freedesktop/Notifications")
	iface   = "org.freedesktop.Notifications"
)

// maxBody bounds a notification's body: servers show a few lines.
const maxBody = 300

// Notifier shows notifications of one app.
type Notifier struct {
	app  string
	icon string
	conn *dbus.Conn

	mu      sync.Mutex
	onClick map[uint32]func()
	markup  bool
	closed  bool
	owner   string // the service's unique name on the bus
}

// callTimeout bounds a call to the notification service: a service that hangs must not hold
// the caller (the app's window).
const callTimeout = 3 * time.Second

// ErrUnavailable is returned by New when no notification service runs.
var ErrUnavailable = errors.New("no notification service on the session bus")

// New connects to the session bus's notification service; app names the sender and icon is
// an icon name or a file path ("" for none).
func New(app, icon string) (*Notifier, error) {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return nil, ErrUnavailable
	}
	n := &Notifier{app: app, icon: icon, conn: conn, onClick: map[uint32]func(){}}
	var caps []string
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	if err := conn.Object(service, path).CallWithContext(ctx, iface+".GetCapabilities", 0).Store(&caps); err != nil {
		conn.Close()
		return nil, ErrUnavailable
	}
	n.owner = n.findOwner() // the call above started the service if the bus starts it
	for _, c := range caps {
		if c == "body-markup" {
			n.markup = true
		}
	}
	signals := make(chan *dbus.Signal, 16)
	conn.Signal(signals)
	if err := conn.AddMatchSignal(dbus.WithMatchSender(service), dbus.WithMatchObjectPath(path), dbus.WithMatchInterface(iface)); err != nil {
		conn.Close()
		return nil, err
	}
	go n.listen(signals)
	return n, nil
}

// Show shows a notification; clicking it (its default action) calls onClick, on the
// notifier's own goroutine. It returns the notification's ID.
func (n *Notifier) Show(title, body string, onClick func()) (uint32, error) {
	body = shorten(body, maxBody)
	if n.markup {
		body = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(body)
	}
	var actions []string
	if onClick != nil {
		actions = []string{"default", "Open"}
	}
	hints := map[string]dbus.Variant{"desktop-entry": dbus.MakeVariant("io.github.parley")}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return 0, ErrUnavailable
	}
	var id uint32
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	err := n.conn.Object(service, path).CallWithContext(ctx, iface+".Notify", 0,
		n.app, uint32(0), n.icon, shorten(title, 100), body, actions, hints, int32(-1)).Store(&id)
	if err != nil {
		return 0, err
	}
	if onClick != nil {
		n.onClick[id] = onClick
	}
	return id, nil
}

// Close stops listening for clicks.
func (n *Notifier) Close() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.closed {
		n.closed = true
		n.conn.Close()
	}
}

// findOwner is the unique name of the notification service's connection ("" when none).
func (n *Notifier) findOwner() string {
	var owner string
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	n.conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.GetNameOwner", 0, service).Store(&owner)
	return owner
}

// fromService reports whether a signal came from the notification service: any program on
// the session bus can send Parley a signal, and a forged click would open a conversation.
func (n *Notifier) fromService(s *dbus.Signal) bool {
	n.mu.Lock()
	owner := n.owner
	n.mu.Unlock()
	if s.Sender == owner && owner != "" {
		return true
	}
	// The service may have restarted under a new connection.
	owner = n.findOwner()
	n.mu.Lock()
	n.owner = owner
	n.mu.Unlock()
	return s.Sender == owner && owner != ""
}

func (n *Notifier) listen(signals <-chan *dbus.Signal) {
	for s := range signals {
		if s == nil || len(s.Body) < 2 || !n.fromService(s) {
			continue
		}
		id, _ := s.Body[0].(uint32)
		switch s.Name {
		case iface + ".ActionInvoked":
			n.mu.Lock()
			f := n.onClick[id]
			delete(n.onClick, id)
			n.mu.Unlock()
			if action, _ := s.Body[1].(string); f != nil && action == "default" {
				f()
			}
		case iface + ".NotificationClosed":
			n.mu.Lock()
			delete(n.onClick, id)
			n.mu.Unlock()
		}
	}
}

// shorten cuts s to at most n runes, at a word when it can, with an ellipsis.
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	cut := string(r[:n-1])
	if i := strings.LastIndexByte(cut, ' '); i > n/2 {
		cut = cut[:i]
	}
	return cut + "…"
}
