//go:build unix && !darwin

package hotkey

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/prop"

	"parley/internal/testenv"
)

// fakePortal is a desktop portal with GlobalShortcuts, on the test's private session bus: it
// answers as xdg-desktop-portal does (each call returns a request object whose Response signal
// carries the result), and the test sends the shortcut's signals through it.
type fakePortal struct {
	conn    *dbus.Conn
	mu      sync.Mutex
	refuse  bool   // answer BindShortcuts as a person who said no
	trigger string // the keys it says it bound
	hang    bool   // CreateSession never returns (until the test ends)
	fail    string // BindShortcuts fails with this text
	release chan struct{}
	bound   []map[string]dbus.Variant
	session dbus.ObjectPath
	n       int
}

func (p *fakePortal) respond(results map[string]dbus.Variant, code uint32) dbus.ObjectPath {
	p.mu.Lock()
	p.n++
	path := dbus.ObjectPath("/org/freedesktop/portal/desktop/request/test/r" + string(rune('a'+p.n)))
	p.mu.Unlock()
	go p.conn.Emit(path, portalRequest+".Response", code, results)
	return path
}

func (p *fakePortal) CreateSession(opts map[string]dbus.Variant) (dbus.ObjectPath, *dbus.Error) {
	p.mu.Lock()
	hang := p.hang
	p.mu.Unlock()
	if hang {
		<-p.release
		return "", dbus.MakeFailedError(errors.New("the test ended"))
	}
	tok, _ := opts["session_handle_token"].Value().(string)
	p.mu.Lock()
	p.session = dbus.ObjectPath("/org/freedesktop/portal/desktop/session/test/" + tok)
	s := p.session
	p.mu.Unlock()
	return p.respond(map[string]dbus.Variant{"session_handle": dbus.MakeVariant(string(s))}, 0), nil
}

func (p *fakePortal) BindShortcuts(session dbus.ObjectPath, shortcuts []struct {
	ID      string
	Options map[string]dbus.Variant
}, parent string, opts map[string]dbus.Variant) (dbus.ObjectPath, *dbus.Error) {
	p.mu.Lock()
	for _, s := range shortcuts {
		p.bound = append(p.bound, s.Options)
	}
	refuse, trigger, fail := p.refuse, p.trigger, p.fail
	p.mu.Unlock()
	if fail != "" {
		return "", &dbus.Error{Name: "org.freedesktop.portal.Error.Failed", Body: []any{fail}}
	}
	if refuse {
		return p.respond(map[string]dbus.Variant{}, 1), nil
	}
	// As KDE answers: the shortcuts with the keys the desktop bound.
	type shortcut struct {
		ID      string
		Options map[string]dbus.Variant
	}
	var list []shortcut
	for _, s := range shortcuts {
		list = append(list, shortcut{s.ID, map[string]dbus.Variant{
			"description":         s.Options["description"],
			"trigger_description": dbus.MakeVariant(trigger),
		}})
	}
	return p.respond(map[string]dbus.Variant{"shortcuts": dbus.MakeVariant(list)}, 0), nil
}

// closeSession ends the session as a desktop does (the person revoked the shortcut, or the
// portal restarted).
func (p *fakePortal) closeSession(t *testing.T) {
	t.Helper()
	p.mu.Lock()
	s := p.session
	p.mu.Unlock()
	if err := p.conn.Emit(s, portalSession+".Closed", map[string]dbus.Variant{}); err != nil {
		t.Fatal(err)
	}
}

func (p *fakePortal) signal(t *testing.T, name string) {
	t.Helper()
	p.mu.Lock()
	s := p.session
	p.mu.Unlock()
	if err := p.conn.Emit(portalPath, portalShortcuts+"."+name, s, portalID, uint64(1), map[string]dbus.Variant{}); err != nil {
		t.Fatal(err)
	}
}

// startPortal runs a portal on a private session bus; withShortcuts false leaves out the
// GlobalShortcuts interface, as most desktops' portals do.
func startPortal(t *testing.T, withShortcuts bool) *fakePortal {
	t.Helper()
	testenv.StartSessionBus(t)
	t.Setenv("WAYLAND_DISPLAY", "wayland-test")
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	p := &fakePortal{conn: conn, release: make(chan struct{})}
	t.Cleanup(func() { close(p.release) })
	if withShortcuts {
		if err := conn.Export(p, portalPath, portalShortcuts); err != nil {
			t.Fatal(err)
		}
		if _, err := prop.Export(conn, portalPath, prop.Map{portalShortcuts: {"version": {Value: uint32(1)}}}); err != nil {
			t.Fatal(err)
		}
	} else if _, err := prop.Export(conn, portalPath, prop.Map{"org.freedesktop.portal.Settings": {"version": {Value: uint32(2)}}}); err != nil {
		t.Fatal(err)
	}
	if r, err := conn.RequestName(portalName, dbus.NameFlagDoNotQueue); err != nil || r != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("RequestName: %v %v", r, err)
	}
	return p
}

func TestPortal_HoldAndRelease(t *testing.T) {
	p := startPortal(t, true)
	l, err := Register(Combo{Ctrl | Alt, "Space"})
	if err != nil {
		t.Fatalf("Register: %v", err)
	}
	defer l.Close()
	if l.Via() != "the desktop portal" {
		t.Errorf("via %q", l.Via())
	}
	p.mu.Lock()
	bound := p.bound
	p.mu.Unlock()
	if len(bound) != 1 || bound[0]["preferred_trigger"].Value() != "CTRL+ALT+space" || !strings.Contains(bound[0]["description"].Value().(string), "talk") {
		t.Errorf("bound %v", bound)
	}
	p.signal(t, "Activated")
	wait(t, l, true)
	p.signal(t, "Activated") // a repeat while held is not a new press
	p.signal(t, "Deactivated")
	wait(t, l, false)
	l.Close()
	for range l.Events() {
	}
}

// The desktop bound other keys than those asked for: the listener says which.
func TestPortal_TheDesktopsKeysAreReported(t *testing.T) {
	p := startPortal(t, true)
	p.mu.Lock()
	p.trigger = "Meta+Shift+\tT"
	p.mu.Unlock()
	l, err := Register(Default)
	if err != nil {
		t.Fatalf("Register: %v", err)
	}
	defer l.Close()
	if l.Trigger() != "Meta+Shift+ T" {
		t.Errorf("Trigger() = %q, want the desktop's description", l.Trigger())
	}
}

// Any program on the session bus can send Parley a signal: one that is not the portal's
// starts nothing.
func TestPortal_SignalsFromOthersAreIgnored(t *testing.T) {
	p := startPortal(t, true)
	l, err := Register(Default)
	if err != nil {
		t.Fatalf("Register: %v", err)
	}
	defer l.Close()
	p.mu.Lock()
	session := p.session
	p.mu.Unlock()
	if testenv.ForgeSignal(t, portalPath, portalShortcuts+".Activated", session, portalID, uint64(1), map[string]dbus.Variant{}) == 0 {
		t.Fatal("found no connection to send the forged signal to")
	}
	quiet(t, l, 300*time.Millisecond)
	p.signal(t, "Activated") // the portal's own still counts
	wait(t, l, true)
	p.signal(t, "Deactivated")
	wait(t, l, false)
}

// The desktop ends the session while the key is held: the take ends, and the events close.
func TestPortal_SessionClosedWhileHeld(t *testing.T) {
	p := startPortal(t, true)
	l, err := Register(Default)
	if err != nil {
		t.Fatalf("Register: %v", err)
	}
	defer l.Close()
	p.signal(t, "Activated")
	wait(t, l, true)
	p.closeSession(t)
	wait(t, l, false)
	select {
	case _, ok := <-l.Events():
		if ok {
			t.Fatal("an event after the session closed")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the events did not end when the session closed")
	}
}

func TestBoundTrigger(t *testing.T) {
	for _, c := range []struct {
		in   map[string]dbus.Variant
		want string
	}{
		{nil, ""},
		{map[string]dbus.Variant{"shortcuts": dbus.MakeVariant("nonsense")}, ""},
		{map[string]dbus.Variant{"shortcuts": dbus.MakeVariant([][]any{{"other", map[string]dbus.Variant{"trigger_description": dbus.MakeVariant("F1")}}})}, ""},
		{map[string]dbus.Variant{"shortcuts": dbus.MakeVariant([][]any{{portalID}})}, ""},
		{map[string]dbus.Variant{"shortcuts": dbus.MakeVariant([][]any{{portalID, map[string]dbus.Variant{"trigger_description": dbus.MakeVariant(7)}}})}, ""},
		{map[string]dbus.Variant{"shortcuts": dbus.MakeVariant([][]any{{portalID, map[string]dbus.Variant{"trigger_description": dbus.MakeVariant(strings.Repeat("Ctrl+", 30))}}})}, strings.Repeat("Ctrl+", 12) + "…"},
	} {
		if got := boundTrigger(c.in); got != c.want {
			t.Errorf("boundTrigger(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestPortal_NoGlobalShortcuts(t *testing.T) {
	startPortal(t, false)
	_, err := Register(Default)
	var u *UnavailableError
	if !errors.As(err, &u) || !strings.Contains(u.Reason, "does not offer global shortcuts") {
		t.Fatalf("Register = %v, want an UnavailableError naming the missing GlobalShortcuts", err)
	}
}

func TestPortal_PersonSaidNo(t *testing.T) {
	p := startPortal(t, true)
	p.mu.Lock()
	p.refuse = true
	p.mu.Unlock()
	_, err := Register(Default)
	var u *UnavailableError
	if !errors.As(err, &u) || !strings.Contains(u.Reason, "did not allow") {
		t.Fatalf("Register = %v, want an UnavailableError", err)
	}
}

func TestPortalTrigger(t *testing.T) {
	for c, want := range map[Combo]string{
		Default:               "CTRL+ALT+space",
		{Super | Shift, "F5"}: "SHIFT+LOGO+F5",
		{Ctrl, "A"}:           "CTRL+a",
		{Alt, "/"}:            "ALT+slash",
	} {
		if got := portalTrigger(c); got != want {
			t.Errorf("portalTrigger(%v) = %q, want %q", c, got, want)
		}
	}
}

// A portal that answers with an error megabytes long: what reaches Preferences is one line of
// at most a couple of hundred characters.
func TestPortal_AHugeErrorIsCutShort(t *testing.T) {
	p := startPortal(t, true)
	p.mu.Lock()
	p.fail = "The shortcut cannot be bound:\n" + strings.Repeat("é", 6<<20) // 12 MB
	p.mu.Unlock()
	_, err := Register(Default)
	if err == nil {
		t.Fatal("Register succeeded")
	}
	msg := err.Error()
	if len([]rune(msg)) > maxPortalText+60 || strings.ContainsAny(msg, "\n\r") || !utf8.ValidString(msg) {
		t.Fatalf("the error is %d characters (%d bytes), or not one line of text: %.300q", len([]rune(msg)), len(msg), msg)
	}
	if !strings.Contains(msg, "The shortcut cannot be bound: éé") || !strings.HasSuffix(msg, "é…") {
		t.Errorf("error %q: want the start of the portal's text, cut", msg)
	}
}

// A portal that never answers a call: Register gives up after portalCallTimeout instead of
// holding Preferences.
func TestPortal_ACallThatIsNeverAnsweredEnds(t *testing.T) {
	p := startPortal(t, true)
	p.mu.Lock()
	p.hang = true
	p.mu.Unlock()
	defer func(d time.Duration) { portalCallTimeout = d }(portalCallTimeout)
	portalCallTimeout = 200 * time.Millisecond
	done := make(chan error, 1)
	go func() {
		_, err := Register(Default)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "did not answer CreateSession") {
			t.Errorf("Register = %v, want that the portal did not answer", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Register waits for a portal that never answers")
	}
}

func TestPortalText(t *testing.T) {
	for in, want := range map[string]string{
		"":                                  "",
		"Refused\n\tby the user.":           "Refused by the user.",
		"bad \xff byte":                     "bad \uFFFD byte",
		"line\u2028separator":               "line separator",
		strings.Repeat("ab", 150):           strings.Repeat("ab", 99) + "a…",
		strings.Repeat("€", 300):            strings.Repeat("€", 199) + "…",
		strings.Repeat("x", 50<<20) + "end": strings.Repeat("x", 199) + "…",
	} {
		if got := portalText(in); got != want {
			t.Errorf("portalText(%.40q) = %.60q, want %.60q", in, got, want)
		}
	}
}

func FuzzPortalText(f *testing.F) {
	f.Add("Refused\nby the user.")
	f.Add("\xff\xfe" + strings.Repeat("é", 300))
	f.Fuzz(func(t *testing.T, s string) {
		got := portalText(s)
		if !utf8.ValidString(got) || utf8.RuneCountInString(got) > maxPortalText || strings.ContainsFunc(got, unicode.IsControl) {
			t.Fatalf("portalText(%q) = %q", s, got)
		}
	})
}
