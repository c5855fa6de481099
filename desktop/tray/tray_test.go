//go:build unix && !darwin

package tray

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/systray"
	"github.com/godbus/dbus/v5"

	"parley/internal/testenv"
)

// resetConn makes HostPresent connect to the test's bus.
func resetConn(t *testing.T) {
	t.Helper()
	closeConn := func() {
		mu.Lock()
		if conn != nil {
			conn.Close()
			conn = nil
		}
		mu.Unlock()
	}
	closeConn()
	t.Cleanup(closeConn)
}

func TestTrayHost_PresentAndWatched(t *testing.T) {
	bus := testenv.StartSessionBus(t)
	resetConn(t)
	if HostPresent() {
		t.Fatal("a tray host on a bus where none runs")
	}
	appeared := make(chan struct{}, 1)
	stop := WatchHost(func() { appeared <- struct{}{} })
	defer stop()
	c, err := dbus.Connect(bus.Address)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.RequestName(watcher, dbus.NameFlagDoNotQueue); err != nil {
		t.Fatal(err)
	}
	if !HostPresent() {
		t.Error("no tray host found while one owns " + watcher)
	}
	select {
	case <-appeared:
	case <-time.After(5 * time.Second):
		t.Error("WatchHost did not see the host start")
	}
}

// Any program on the bus can send NameOwnerChanged straight to Parley's connection: a forged
// "the tray host started" must not be taken for one, whether a host runs or not (Parley would
// put its icon where no panel shows it, and believe it can hide its window there).
func TestTrayHost_ForgedSignalsAreIgnored(t *testing.T) {
	bus := testenv.StartSessionBus(t)
	resetConn(t)
	// Which real start of a host each call of appeared followed (0: none had).
	starts := atomic.Int32{}
	calls := make(chan int32, 8)
	stop := WatchHost(func() { calls <- starts.Load() })
	defer stop()
	forge := func() {
		t.Helper()
		if n := testenv.ForgeSignal(t, busPath, busName+".NameOwnerChanged", watcher, "", ":1.999"); n == 0 {
			t.Fatal("the forged signal reached no connection")
		}
	}
	startHost := func() *dbus.Conn {
		t.Helper()
		c, err := dbus.Connect(bus.Address)
		if err != nil {
			t.Fatal(err)
		}
		starts.Add(1)
		if r, err := c.RequestName(watcher, dbus.NameFlagDoNotQueue); err != nil || r != dbus.RequestNameReplyPrimaryOwner {
			t.Fatalf("owning %s: %v %v", watcher, r, err)
		}
		return c
	}
	next := func(want int32) {
		t.Helper()
		select {
		case got := <-calls:
			if got != want {
				t.Errorf("appeared was called after %d real starts of a host, want %d: a forged signal was believed", got, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("WatchHost did not see real start %d of a host", want)
		}
	}

	// No host: forged, then a real start. Signals arrive in order, so the first call of
	// appeared is for the forged one, if it was believed.
	forge()
	host := startHost()
	next(1)
	// A host runs (the bus would confirm one does): forged again, then the host restarts.
	forge()
	host.Close()
	host = startHost()
	defer host.Close()
	next(2)
	select {
	case got := <-calls:
		t.Errorf("appeared was called once more (after %d real starts)", got)
	default:
	}
}

// The icon as a panel reads it: a half-transparent pixel keeps its colour (the pixmap is
// 8-bit ARGB, not premultiplied), the tooltip is what was set, and ending the tray then
// setting the icon again (as the app may while it quits) does not panic.
func TestTrayIcon_PixmapTooltipAndEnd(t *testing.T) {
	bus := testenv.StartSessionBus(t)
	w := testenv.StartTrayWatcher(t, bus.Address)
	pixels := []color.NRGBA{
		{R: 0x20, G: 0xc0, B: 0x60, A: 0x99}, // an anti-aliased edge
		{R: 0xe5, G: 0x39, B: 0x35, A: 0xff},
		{R: 0x12, G: 0x34, B: 0x56, A: 0x01},
		{},
	}
	img := image.NewNRGBA(image.Rect(0, 0, 2, 2))
	for i, p := range pixels {
		img.SetNRGBA(i%2, i/2, p)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	systray.SetIcon(b.Bytes())
	SetTooltip("Parley — listening")
	start, end := systray.RunWithExternalLoop(nil, nil)
	start()
	ended := false
	defer func() {
		if !ended {
			end()
		}
	}()
	item := w.WaitItem(t, 10*time.Second)

	wd, ht, argb := item.Pixmap(t)
	if wd != 2 || ht != 2 {
		t.Fatalf("the pixmap is %dx%d, want 2x2", wd, ht)
	}
	var want []byte
	for _, p := range pixels {
		want = append(want, p.A, p.R, p.G, p.B)
	}
	if !bytes.Equal(argb, want) {
		t.Errorf("the pixmap's ARGB bytes are % x, want % x", argb, want)
	}
	if got := item.ToolTip(t); got != "Parley — listening" {
		t.Errorf("tooltip %q", got)
	}
	SetTooltip("Parley — speaking")
	if got := item.ToolTip(t); got != "Parley — speaking" {
		t.Errorf("tooltip after a change %q", got)
	}

	end()
	ended = true
	systray.SetIcon(b.Bytes())
	SetTooltip("Parley — ready")
}

// A tray that never reached a session bus is ended without a panic (at quit, or at logout).
func TestTrayIcon_EndWithoutABus(t *testing.T) {
	if os.Getenv("PARLEY_TEST_TRAY_CHILD") == "1" {
		start, end := systray.RunWithExternalLoop(nil, nil)
		start()
		end()
		systray.SetIcon(nil)
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestTrayIcon_EndWithoutABus$", "-test.count=1")
	cmd.Env = append(os.Environ(), "PARLEY_TEST_TRAY_CHILD=1", "DBUS_SESSION_BUS_ADDRESS=unix:path="+t.TempDir()+"/no-bus")
	out, err := cmd.CombinedOutput()
	if err != nil || strings.Contains(string(out), "panic") {
		t.Errorf("ending a tray that has no bus: %v\n%s", err, out)
	}
}

// Quitting right after the tray started (the window closed at once, or the session ending as
// Parley starts) must not crash Parley: the tray's background registration used to read the
// connection that ending the tray had just taken away, and called the bus through nil. Each
// round starts the tray on a bus with a tray host and ends it at once; in a child process, so
// that a panic on the tray's goroutine, or the race detector's report, fails this test with
// what it printed.
func TestTrayIcon_EndRightAfterStart(t *testing.T) {
	if os.Getenv("PARLEY_TEST_TRAY_CHILD") == "end-at-once" {
		for range 200 {
			start, end := systray.RunWithExternalLoop(nil, nil)
			start()
			end()
		}
		os.Exit(0)
	}
	bus := testenv.StartSessionBus(t)
	testenv.StartTrayWatcher(t, bus.Address)
	cmd := exec.Command(os.Args[0], "-test.run=^TestTrayIcon_EndRightAfterStart$", "-test.count=1")
	cmd.Env = append(os.Environ(), "PARLEY_TEST_TRAY_CHILD=end-at-once")
	out, err := cmd.CombinedOutput()
	if err != nil || strings.Contains(string(out), "panic") || strings.Contains(string(out), "DATA RACE") {
		t.Errorf("ending the tray right after starting it: %v\n%s", err, tail(string(out), 3000))
	}
}

// tail is the end of s, at most n bytes.
func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
