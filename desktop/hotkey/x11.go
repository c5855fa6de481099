//go:build unix && !darwin

package hotkey

import (
	"errors"
	"fmt"
	"io"
	"log"
	"strings"
	"sync"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"parley/internal/i18n"
)

// x11Keysyms are the X keysyms of Keys (letters in lower case, as the keyboard map lists them).
var x11Keysyms = func() map[string]xproto.Keysym {
	m := map[string]xproto.Keysym{
		"Space": 0x20, "Return": 0xff0d, "Tab": 0xff09, "Escape": 0xff1b, "BackSpace": 0xff08,
		"Insert": 0xff63, "Delete": 0xffff, "Home": 0xff50, "End": 0xff57, "Prior": 0xff55,
		"Next": 0xff56, "Left": 0xff51, "Up": 0xff52, "Right": 0xff53, "Down": 0xff54,
		"-": '-', "=": '=', "[": '[', "]": ']', "\\": '\\', ";": ';', "'": '\'', ",": ',',
		".": '.', "/": '/', "`": '`',
	}
	for c := 'A'; c <= 'Z'; c++ {
		m[string(c)] = xproto.Keysym(c - 'A' + 'a')
	}
	for c := '0'; c <= '9'; c++ {
		m[string(c)] = xproto.Keysym(c)
	}
	for i := 1; i <= 12; i++ {
		m[fmt.Sprintf("F%d", i)] = xproto.Keysym(0xffbe + i - 1)
	}
	return m
}()

// x11Mods are the X modifier masks (the usual map: Alt is Mod1, Super is Mod4).
func x11Mods(m Modifier) uint16 {
	var x uint16
	if m&Ctrl != 0 {
		x |= xproto.ModMaskControl
	}
	if m&Alt != 0 {
		x |= xproto.ModMask1
	}
	if m&Shift != 0 {
		x |= xproto.ModMaskShift
	}
	if m&Super != 0 {
		x |= xproto.ModMask4
	}
	return x
}

// x11Ignored are the lock modifiers a grab must not depend on: Caps Lock, Num Lock (Mod2), and
// both.
var x11Ignored = []uint16{0, xproto.ModMaskLock, xproto.ModMask2, xproto.ModMaskLock | xproto.ModMask2}

// x11Repeat is how long, after a key release, the listener waits for the press that follows
// when the key repeats (X sends both with the same time stamp).
const x11Repeat = 40 * time.Millisecond

func init() {
	// xgb logs to stderr when there is no ~/.Xauthority, which is normal under Xvfb and with
	// some display managers: its failures reach Register's caller as errors instead.
	xgb.Logger = log.New(io.Discard, "", 0)
}

// registerX11 grabs c on the root window of the display named by DISPLAY, over a connection
// of its own.
func registerX11(c Combo) (*Listener, error) {
	conn, err := xgb.NewConn()
	if err != nil {
		return nil, &UnavailableError{Reason: fmt.Sprintf(i18n.T("the X display could not be reached (%v)"), err)}
	}
	root := xproto.Setup(conn).DefaultScreen(conn).Root
	code, err := x11Keycode(conn, x11Keysyms[c.Key])
	if err != nil {
		conn.Close()
		return nil, err
	}
	mods := x11Mods(c.Mods)
	var grabbed []uint16
	ungrab := func() {
		for _, ig := range grabbed {
			xproto.UngrabKeyChecked(conn, code, root, mods|ig).Check()
		}
	}
	for _, ig := range x11Ignored {
		err := xproto.GrabKeyChecked(conn, false, root, mods|ig, code, xproto.GrabModeAsync, xproto.GrabModeAsync).Check()
		if err != nil {
			ungrab()
			conn.Close()
			if _, ok := err.(xproto.AccessError); ok {
				return nil, ErrTaken
			}
			return nil, fmt.Errorf(i18n.T("the X server refused to give Parley %s (%s)"), c, x11ErrorName(err))
		}
		grabbed = append(grabbed, ig)
	}

	raw := make(chan xgb.Event, 16)
	go func() {
		defer close(raw)
		for {
			ev, err := conn.WaitForEvent()
			if ev == nil && err == nil {
				return // the connection closed
			}
			if ev != nil {
				raw <- ev
			}
		}
	}()
	l := &Listener{events: make(chan Event, 16), via: "X11"}
	var once sync.Once
	l.stop = func() error {
		once.Do(func() {
			ungrab()
			conn.Close()
		})
		return nil
	}
	go x11Deliver(raw, code, l.events)
	return l, nil
}

// x11Deliver turns the key's presses and releases into events, leaving out the pairs of a
// repeating key, and closes events when raw ends.
func x11Deliver(raw <-chan xgb.Event, code xproto.Keycode, events chan<- Event) {
	defer close(events)
	down := false
	var pending xgb.Event // an event read while looking for a repeat, handled next
	for {
		ev := pending
		pending = nil
		if ev == nil {
			var ok bool
			if ev, ok = <-raw; !ok {
				if down { // the display went away with the key held: the take must still end
					events <- Event{Down: false, At: time.Now()}
				}
				return
			}
		}
		switch e := ev.(type) {
		case xproto.KeyPressEvent:
			if e.Detail != code || down {
				continue
			}
			down = true
			events <- Event{Down: true, At: time.Now()}
		case xproto.KeyReleaseEvent:
			if e.Detail != code || !down {
				continue
			}
			select {
			case next, ok := <-raw:
				if !ok {
					events <- Event{Down: false, At: time.Now()}
					return
				}
				if p, isPress := next.(xproto.KeyPressEvent); isPress && p.Detail == code && p.Time == e.Time {
					continue // the key repeats: it is still held
				}
				pending = next
			case <-time.After(x11Repeat):
			}
			down = false
			events <- Event{Down: false, At: time.Now()}
		}
	}
}

// x11Keycode finds the key that produces sym in the keyboard map.
func x11Keycode(conn *xgb.Conn, sym xproto.Keysym) (xproto.Keycode, error) {
	setup := xproto.Setup(conn)
	first := setup.MinKeycode
	count := byte(setup.MaxKeycode - setup.MinKeycode + 1)
	m, err := xproto.GetKeyboardMapping(conn, first, count).Reply()
	if err != nil {
		return 0, fmt.Errorf("reading the keyboard map: %w", err)
	}
	per := int(m.KeysymsPerKeycode)
	if per == 0 {
		return 0, errors.New(i18n.T("the keyboard map is empty"))
	}
	for i := 0; i*per < len(m.Keysyms); i++ {
		for j := 0; j < per && j < 2; j++ { // the key's plain and shifted symbols
			if m.Keysyms[i*per+j] == sym {
				return first + xproto.Keycode(i), nil
			}
		}
	}
	return 0, &UnavailableError{Reason: i18n.T("this keyboard has no such key")}
}

// x11ErrorName is the name of an X error ("BadValue"), without the fields xgb prints after it.
func x11ErrorName(err error) string {
	name, _, _ := strings.Cut(err.Error(), " ")
	return name
}
