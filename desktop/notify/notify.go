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

	"parley/internal/i18n"
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
	sig  *signals

	mu      sync.Mutex
	onClick map[shown]func()
	markup  bool
	closed  bool
}

// callTimeout bounds a call to the notification service: a service that hangs must not hold
// the caller (the app's window).
const callTimeout = 3 * time.Second

// ErrUnavailable is returned by New when no notification service runs.
var ErrUnavailable = errors.New("no notification service on the session bus")

// shown names a notification: the ID the service gave it, and the service's connection (its
// unique name). A service that restarts numbers its notifications from 1 again, and the old
// one's last signals, still queued, must not reach the new one's notifications.
type shown struct {
	owner string
	id    uint32
}

// New connects to the session bus's notification service; app names the sender and icon is
// an icon name or a file path ("" for none).
func New(app, icon string) (*Notifier, error) {
	sig := newSignals()
	conn, err := dbus.ConnectSessionBus(dbus.WithSignalHandler(sig))
	if err != nil {
		return nil, ErrUnavailable
	}
	n := &Notifier{app: app, icon: icon, conn: conn, sig: sig, onClick: map[shown]func(){}}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	// Who owns the service's name is followed from the bus itself, before it is first asked,
	// so that no change is missed.
	for _, m := range [][]dbus.MatchOption{
		{dbus.WithMatchSender(busName), dbus.WithMatchInterface(busName), dbus.WithMatchMember("NameOwnerChanged"), dbus.WithMatchArg(0, service)},
		{dbus.WithMatchSender(service), dbus.WithMatchObjectPath(path), dbus.WithMatchInterface(iface)},
	} {
		if err := conn.AddMatchSignalContext(ctx, m...); err != nil {
			conn.Close()
			return nil, ErrUnavailable
		}
	}
	var caps []string
	if err := conn.Object(service, path).CallWithContext(ctx, iface+".GetCapabilities", 0).Store(&caps); err != nil {
		conn.Close()
		return nil, ErrUnavailable
	}
	// The call above started the service if the bus starts it.
	var owner string
	if conn.BusObject().CallWithContext(ctx, busName+".GetNameOwner", 0, service).Store(&owner) == nil {
		sig.firstOwner(owner)
	}
	for _, c := range caps {
		if c == "body-markup" {
			n.markup = true
		}
	}
	go n.listen()
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
		actions = []string{"default", i18n.T("Open")}
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
	// The reply came after any change of owner the bus told of (one connection reads both, in
	// order), so the owner now is the one that answered.
	owner := n.sig.currentOwner()
	for k := range n.onClick {
		if k.owner != owner { // shown by a service that has gone: never clicked now
			delete(n.onClick, k)
		}
	}
	if onClick != nil {
		n.onClick[shown{owner, id}] = onClick
	}
	return id, nil
}

// Close stops listening for clicks.
func (n *Notifier) Close() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.closed {
		n.closed = true
		n.conn.Close() // ends the signals, and so listen
	}
}

// listen runs the clicks, one signal after another, until the connection closes.
func (n *Notifier) listen() {
	for s := range n.sig.out {
		id, _ := s.Body[0].(uint32)
		k := shown{s.Sender, id}
		switch s.Name {
		case iface + ".ActionInvoked":
			n.mu.Lock()
			f := n.onClick[k]
			delete(n.onClick, k)
			n.mu.Unlock()
			if action, _ := s.Body[1].(string); f != nil && action == "default" {
				f()
			}
		case iface + ".NotificationClosed":
			n.mu.Lock()
			delete(n.onClick, k)
			n.mu.Unlock()
		}
	}
}

// busName is the bus driver's name, which only the bus itself sends signals as.
const busName = "org.freedesktop.DBus"

// maxQueued bounds the notification service's signals waiting for listen: more are dropped
// (a person clicks far more slowly).
const maxQueued = 64

// signals receives the connection's signals on the connection's own reader, without blocking
// it and without a goroutine or a bus call per signal: any program on the session bus can send
// Parley signals, as many as it likes, and a forged click would open a conversation. It keeps
// the unique name of the notification service's connection, told by the bus driver, and passes
// on only that connection's signals, dropping the rest at once.
type signals struct {
	out chan *dbus.Signal

	mu     sync.Mutex
	owner  string // the service's unique name; "" when none runs
	told   bool   // the bus driver has told of an owner since New began
	closed bool
}

func newSignals() *signals { return &signals{out: make(chan *dbus.Signal, maxQueued)} }

// firstOwner records the owner New asked for, unless the bus driver has told of a newer one.
func (s *signals) firstOwner(owner string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.told {
		s.owner = owner
	}
}

// currentOwner returns the service's unique name as last told ("" when none runs).
func (s *signals) currentOwner() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.owner
}

// DeliverSignal is called by the connection for each signal, in order, on its reader.
func (s *signals) DeliverSignal(sigIface, member string, sig *dbus.Signal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	if sig.Sender == busName && sigIface == busName && member == "NameOwnerChanged" {
		// The service started, stopped, or restarted under a new connection.
		if len(sig.Body) == 3 {
			name, _ := sig.Body[0].(string)
			owner, ok := sig.Body[2].(string)
			if name == service && ok {
				s.owner, s.told = owner, true
			}
		}
		return
	}
	if s.owner == "" || sig.Sender != s.owner || sigIface != iface || sig.Path != path || len(sig.Body) < 2 {
		return
	}
	select {
	case s.out <- sig:
	default: // listen is behind by maxQueued signals: these are not a person's clicks
	}
}

// Terminate is called by the connection when it closes: listen ends.
func (s *signals) Terminate() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.out)
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
