//go:build unix && !darwin

package hotkey

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/godbus/dbus/v5"

	"parley/internal/i18n"
)

// The XDG desktop portal's global shortcuts (org.freedesktop.portal.GlobalShortcuts).
const (
	portalName      = "org.freedesktop.portal.Desktop"
	portalPath      = dbus.ObjectPath("/org/freedesktop/portal/desktop")
	portalShortcuts = "org.freedesktop.portal.GlobalShortcuts"
	portalRequest   = "org.freedesktop.portal.Request"
	portalSession   = "org.freedesktop.portal.Session"
	portalID        = "hold-to-talk"
	appID           = "io.github.parley" // the desktop file's name, as the app's ID
)

// portalTimeout bounds each exchange with the portal, the person's answer to the desktop's
// dialog included (the desktop may ask whether Parley may have the shortcut).
var portalTimeout = 2 * time.Minute

// portalCallTimeout bounds each D-Bus call to the portal and the bus: a portal that hangs must
// not hold Parley (the answer to a dialog comes later, as a signal, within portalTimeout).
var portalCallTimeout = 5 * time.Second

// maxPortalText bounds what of a portal's error text Parley repeats, in characters.
const maxPortalText = 200

// portalText is text from the portal (an error's message) as Parley may show it: one line, at
// most maxPortalText characters, cut on a character's boundary.
func portalText(s string) string {
	if len(s) > 4*maxPortalText+8 {
		s = s[:4*maxPortalText+8] // a longer text is cut below anyway; spare the work
	}
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
	if r := []rune(s); len(r) > maxPortalText {
		s = string(r[:maxPortalText-1]) + "…"
	}
	return s
}

// portalError is an error of a call to the portal as Parley repeats it: what was asked (the
// method, or "" for the rules that pass on its signals), and the portal's answer cut by
// portalText. The portal's own text, which may be megabytes, is not kept.
func portalError(method string, err error) error {
	var ue *UnavailableError
	late := errors.Is(err, context.DeadlineExceeded)
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ue):
		return err
	case method == "" && late:
		return fmt.Errorf(i18n.T("the desktop portal did not answer to pass on its signals within %v"), portalCallTimeout)
	case method == "":
		return fmt.Errorf(i18n.T("the desktop portal refused to pass on its signals: %s"), portalText(err.Error()))
	case late:
		return fmt.Errorf(i18n.T("the desktop portal did not answer %s within %v"), method, portalCallTimeout)
	}
	return fmt.Errorf(i18n.T("the desktop portal refused %s: %s"), method, portalText(err.Error()))
}

// callPortal calls method on obj within portalCallTimeout.
func callPortal(obj dbus.BusObject, method string, args ...any) *dbus.Call {
	ctx, cancel := context.WithTimeout(context.Background(), portalCallTimeout)
	defer cancel()
	return obj.CallWithContext(ctx, method, 0, args...)
}

// portalTrigger writes c as the shortcuts specification does: "CTRL+ALT+space".
func portalTrigger(c Combo) string {
	var parts []string
	for _, m := range []struct {
		m    Modifier
		name string
	}{{Ctrl, "CTRL"}, {Alt, "ALT"}, {Shift, "SHIFT"}, {Super, "LOGO"}} {
		if c.Mods&m.m != 0 {
			parts = append(parts, m.name)
		}
	}
	names := map[string]string{"Space": "space", "-": "minus", "=": "equal", "[": "bracketleft",
		"]": "bracketright", "\\": "backslash", ";": "semicolon", "'": "apostrophe", ",": "comma",
		".": "period", "/": "slash", "`": "grave"}
	k, ok := names[c.Key]
	if !ok {
		k = c.Key
		if len(k) == 1 {
			k = strings.ToLower(k)
		}
	}
	return strings.Join(append(parts, k), "+")
}

// registerPortal binds c through the desktop portal on the session bus.
func registerPortal(c Combo) (*Listener, error) {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return nil, &UnavailableError{Reason: i18n.T("this Wayland session has no desktop portal (the session bus could not be reached)")}
	}
	l, err := bindPortal(conn, c)
	if err != nil {
		conn.Close()
		return nil, err
	}
	return l, nil
}

// bindPortal asks the portal on conn for the shortcut c and returns the listener of its
// presses and releases.
func bindPortal(conn *dbus.Conn, c Combo) (*Listener, error) {
	portal := conn.Object(portalName, portalPath)
	owner, err := portalOwner(conn, portal)
	if err != nil {
		return nil, err
	}
	signals, endFilter := portalSignals(conn, owner)
	session, trigger, err := bindPortalShortcut(conn, portal, signals, c)
	if err != nil {
		endFilter()
		return nil, err
	}

	l := &Listener{events: make(chan Event, 16), via: i18n.T("the desktop portal"), trigger: trigger}
	quit := make(chan struct{})
	var once sync.Once
	l.stop = func() error {
		once.Do(func() {
			close(quit)
			endFilter()
			closePortalSession(conn, session)
			conn.Close()
		})
		return nil
	}
	go func() {
		// The session or the bus ended: the connection goes too (after the events close).
		defer func() { go l.stop() }()
		defer close(l.events)
		relayPortalKey(l.events, quit, signals, session)
	}()
	return l, nil
}

// portalOwner checks that the portal offers global shortcuts, tells it who Parley is, and
// returns the portal's unique name on the bus: the sender of the signals that count.
func portalOwner(conn *dbus.Conn, portal dbus.BusObject) (string, error) {
	var version dbus.Variant
	if err := callPortal(portal, "org.freedesktop.DBus.Properties.Get", portalShortcuts, "version").Store(&version); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return "", fmt.Errorf(i18n.T("the desktop portal did not answer whether it offers global shortcuts within %v"), portalCallTimeout)
		}
		return "", &UnavailableError{Reason: i18n.T("this Wayland desktop does not offer global shortcuts to apps (its desktop portal has no GlobalShortcuts)")}
	}
	// Unsandboxed apps say who they are first (xdg-desktop-portal 1.19 and later), so that the
	// desktop lists the shortcut under Parley; older portals do not know the call.
	callPortal(portal, "org.freedesktop.host.portal.Registry.Register", appID, map[string]dbus.Variant{})
	// Only the portal's signals count: any program on the session bus can send a signal to
	// Parley, and a forged Activated would start a recording.
	var owner string
	if err := callPortal(conn.BusObject(), "org.freedesktop.DBus.GetNameOwner", portalName).Store(&owner); err != nil {
		return "", &UnavailableError{Reason: i18n.T("this Wayland session's desktop portal is not running")}
	}
	return owner, nil
}

// portalSignals passes on the signals on conn that owner sent. endFilter lets the filter drop
// what nobody reads any more, until the connection's close ends it.
func portalSignals(conn *dbus.Conn, owner string) (signals <-chan *dbus.Signal, endFilter func()) {
	all := make(chan *dbus.Signal, 32)
	conn.Signal(all)
	out := make(chan *dbus.Signal, 32)
	filterDone := make(chan struct{})
	var stopFilter sync.Once
	go func() {
		defer close(out)
		for s := range all {
			if s != nil && s.Sender == owner {
				select {
				case out <- s:
				case <-filterDone:
				}
			}
		}
	}()
	return out, func() { stopFilter.Do(func() { close(filterDone) }) }
}

// bindPortalShortcut asks the bus for the portal's signals, opens a session and binds c in it.
// It returns the session and what the desktop says triggers the shortcut.
func bindPortalShortcut(conn *dbus.Conn, portal dbus.BusObject, signals <-chan *dbus.Signal, c Combo) (dbus.ObjectPath, string, error) {
	for _, m := range [][]dbus.MatchOption{
		{dbus.WithMatchSender(portalName), dbus.WithMatchInterface(portalRequest), dbus.WithMatchMember("Response")},
		{dbus.WithMatchSender(portalName), dbus.WithMatchInterface(portalShortcuts)},
		{dbus.WithMatchSender(portalName), dbus.WithMatchInterface(portalSession), dbus.WithMatchMember("Closed")},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), portalCallTimeout)
		err := conn.AddMatchSignalContext(ctx, m...)
		cancel()
		if err != nil {
			return "", "", portalError("", err)
		}
	}
	session, err := createPortalSession(conn, portal, signals)
	if err != nil {
		return "", "", err
	}
	shortcuts := []struct {
		ID      string
		Options map[string]dbus.Variant
	}{{portalID, map[string]dbus.Variant{
		"description":       dbus.MakeVariant(i18n.T("Hold to talk to Parley")),
		"preferred_trigger": dbus.MakeVariant(portalTrigger(c)),
	}}}
	bound, err := portalCall(conn, signals, portal, "BindShortcuts", session, shortcuts, "", map[string]dbus.Variant{})
	if err != nil {
		closePortalSession(conn, session)
		return "", "", err
	}
	return session, boundTrigger(bound), nil
}

// createPortalSession opens a global shortcuts session with the portal.
func createPortalSession(conn *dbus.Conn, portal dbus.BusObject, signals <-chan *dbus.Signal) (dbus.ObjectPath, error) {
	res, err := portalCall(conn, signals, portal, "CreateSession", map[string]dbus.Variant{
		"session_handle_token": dbus.MakeVariant(token()),
	})
	if err != nil {
		return "", err
	}
	var session dbus.ObjectPath
	switch v := res["session_handle"].Value().(type) {
	case string:
		session = dbus.ObjectPath(v)
	case dbus.ObjectPath:
		session = v
	}
	if !session.IsValid() {
		return "", errors.New(i18n.T("the desktop portal opened no valid session"))
	}
	return session, nil
}

// closePortalSession ends a session, and with it the shortcut bound in it.
func closePortalSession(conn *dbus.Conn, session dbus.ObjectPath) {
	callPortal(conn.Object(portalName, session), portalSession+".Close")
}

// relayPortalKey turns the portal's Activated and Deactivated signals for Parley's shortcut in
// session into presses and releases on events, until quit closes, the signals end or the
// desktop closes the session. A key still held then is released.
func relayPortalKey(events chan<- Event, quit <-chan struct{}, signals <-chan *dbus.Signal, session dbus.ObjectPath) {
	down := false
	defer func() {
		if down { // the bus or the session went with the key held: the take must still end
			events <- Event{Down: false, At: time.Now()}
		}
	}()
	for {
		select {
		case <-quit:
			return
		case s, ok := <-signals:
			if !ok || s == nil {
				return
			}
			if s.Name == portalSession+".Closed" && s.Path == session {
				return // the desktop ended the session: the shortcut is gone
			}
			if pressed, isKey := portalKey(s, session); isKey && pressed != down {
				down = pressed
				events <- Event{Down: down, At: time.Now()}
			}
		}
	}
}

// portalKey reads a signal about Parley's shortcut in session: pressed is true for Activated
// and false for Deactivated; isKey is false for any other signal.
func portalKey(s *dbus.Signal, session dbus.ObjectPath) (pressed, isKey bool) {
	if len(s.Body) < 2 || s.Body[0] != session || s.Body[1] != portalID {
		return false, false
	}
	switch s.Name {
	case portalShortcuts + ".Activated":
		return true, true
	case portalShortcuts + ".Deactivated":
		return false, true
	}
	return false, false
}

// boundTrigger reads what the desktop says triggers Parley's shortcut from BindShortcuts'
// results (shortcuts: a(sa{sv}), each with its trigger_description), "" when it says nothing.
func boundTrigger(results map[string]dbus.Variant) string {
	// godbus reads a struct inside a variant as []any.
	list, _ := results["shortcuts"].Value().([][]any)
	for _, sc := range list {
		if len(sc) != 2 {
			continue
		}
		id, _ := sc[0].(string)
		opts, _ := sc[1].(map[string]dbus.Variant)
		if id != portalID {
			continue
		}
		d, _ := opts["trigger_description"].Value().(string)
		d = strings.Join(strings.Fields(d), " ")
		if r := []rune(d); len(r) > 60 {
			d = string(r[:60]) + "…"
		}
		return d
	}
	return ""
}

// portalCall calls a portal method that answers through a Request object's Response signal,
// and returns the response's results.
func portalCall(conn *dbus.Conn, signals <-chan *dbus.Signal, portal dbus.BusObject, method string, args ...any) (map[string]dbus.Variant, error) {
	// The handle token goes in the last argument, the options.
	tok := token()
	opts := args[len(args)-1].(map[string]dbus.Variant)
	opts["handle_token"] = dbus.MakeVariant(tok)
	var handle dbus.ObjectPath
	if err := callPortal(portal, portalShortcuts+"."+method, args...).Store(&handle); err != nil {
		return nil, portalError(method, err)
	}
	deadline := time.After(portalTimeout)
	for {
		select {
		case s, ok := <-signals:
			if !ok {
				return nil, errors.New(i18n.T("the session bus connection closed"))
			}
			if s.Name != portalRequest+".Response" || s.Path != handle || len(s.Body) < 2 {
				continue
			}
			code, _ := s.Body[0].(uint32)
			results, _ := s.Body[1].(map[string]dbus.Variant)
			switch code {
			case 0:
				return results, nil
			case 1:
				return nil, &UnavailableError{Reason: i18n.T("the desktop did not allow Parley the shortcut")}
			default:
				return nil, fmt.Errorf(i18n.T("the desktop portal's %s failed (response %d)"), method, code)
			}
		case <-deadline:
			return nil, fmt.Errorf(i18n.T("the desktop portal did not answer %s within %v"), method, portalTimeout)
		}
	}
}

// token is a request or session token: letters and digits, as the portal requires.
func token() string {
	b := make([]byte, 8)
	rand.Read(b)
	return "parley" + hex.EncodeToString(b)
}
