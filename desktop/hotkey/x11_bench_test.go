//go:build unix && !darwin

package hotkey

import (
	"testing"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"
)

// BenchmarkX11_PressToEvent is the time from a key press reaching the X server (XTEST, as a
// keyboard's would) to the listener's event: the start of a hold-to-talk take, before the
// microphone opens.
func BenchmarkX11_PressToEvent(b *testing.B) {
	startX11(b)
	l, err := Register(Default)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	conn, err := xgb.NewConn()
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	if err := xtest.Init(conn); err != nil {
		b.Fatal(err)
	}
	code := func(sym xproto.Keysym) xproto.Keycode {
		c, err := x11Keycode(conn, sym)
		if err != nil {
			b.Fatal(err)
		}
		return c
	}
	ctrl, alt, space := code(0xffe3), code(0xffe9), code(0x20)
	root := xproto.Setup(conn).DefaultScreen(conn).Root
	key := func(press bool, c xproto.Keycode) {
		typ := byte(xproto.KeyRelease)
		if press {
			typ = xproto.KeyPress
		}
		xtest.FakeInputChecked(conn, typ, byte(c), 0, root, 0, 0, 0).Check()
	}
	key(true, ctrl)
	key(true, alt)
	defer func() { key(false, alt); key(false, ctrl) }()
	for b.Loop() {
		key(true, space)
		if ev := <-l.Events(); !ev.Down {
			b.Fatal("a release for a press")
		}
		b.StopTimer()
		key(false, space)
		<-l.Events()
		b.StartTimer()
	}
}
