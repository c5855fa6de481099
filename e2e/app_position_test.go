package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parley/internal/testenv"
)

// appHome is the environment that gives the app the display d and its home (and so its
// preferences, keys' places and data) in home, in English.
func appHome(d *testenv.Display, home string) []string {
	return []string{d.Env(), "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		"XDG_DATA_HOME=" + filepath.Join(home, "data"), "XDG_CACHE_HOME=" + filepath.Join(home, "cache"), "LANG=en_US.UTF-8"}
}

// startAppAt opens `parley` (with args, usually none) on d, with its HOME (and so its preferences) in
// home, which outlives the run; it stops the app by its PID when the test ends.
func startAppAt(t *testing.T, d *testenv.Display, env []string, home string, args ...string) *app {
	t.Helper()
	env = append(env, appHome(d, home)...)
	a := &app{cmd: exec.Command(bin, args...), exited: make(chan struct{}), logs: &strings.Builder{}}
	a.cmd.Env = env
	a.cmd.Stdout, a.cmd.Stderr = a.logs, a.logs
	if err := a.cmd.Start(); err != nil {
		t.Fatalf("starting the app: %v", err)
	}
	go func() { a.cmd.Wait(); close(a.exited) }()
	t.Cleanup(func() {
		a.stop(t)
		if t.Failed() {
			t.Logf("app log:\n%s", a.logs.String())
		}
	})
	return a
}

// waitExit waits for the app to quit by itself.
func (a *app) waitExit(t *testing.T, why string) {
	t.Helper()
	select {
	case <-a.exited:
	case <-time.After(15 * time.Second):
		a.dump()
		t.Fatalf("the app did not quit within 15 s of %s; its log, with its goroutines:\n%s", why, a.logs)
	}
}

// waitGeometry waits until the window's geometry satisfies ok, and returns it.
func waitGeometry(t *testing.T, d *testenv.Display, id, what string, ok func(testenv.Geometry) bool) testenv.Geometry {
	t.Helper()
	var g testenv.Geometry
	testenv.Poll(t, 10*time.Second, 100*time.Millisecond, func() error {
		if g = d.WindowGeometry(t, id); !ok(g) {
			return fmt.Errorf("the window is at %+v; want %s", g, what)
		}
		return nil
	})
	return g
}

// TestApp_WindowPositionIsRemembered moves the window under a window manager (openbox), ends the
// app each way a person's session does (Alt+F4 through the window manager, SIGTERM at logout),
// and checks that the next start opens the window where it was left; a position that is off the
// screen now (a monitor unplugged) opens on the screen instead.
func TestApp_WindowPositionIsRemembered(t *testing.T) {
	d := testenv.StartDisplay(t)
	d.StartWindowManager(t)
	testenv.StartSessionBus(t)
	env := appEnviron()
	home := t.TempDir()
	open := func() (*app, string) {
		a := startAppAt(t, d, env, home)
		id := d.WaitForWindow(t, "Parley", 30*time.Second)
		d.WaitForText(t, "Welcome to Parley", 30*time.Second)
		return a, id
	}

	// Moved, then closed with Alt+F4.
	a, id := open()
	d.MoveWindow(t, id, 150, 90)
	left := waitGeometry(t, d, id, "moved", func(g testenv.Geometry) bool { return g.X >= 150 && g.X < 160 })
	focus(t, d, id) // as a person's click on it would: on a busy machine openbox may not have yet
	d.Key(t, "alt+F4")
	a.waitExit(t, "Alt+F4")

	a, id = open()
	waitGeometry(t, d, id, "where it was closed", func(g testenv.Geometry) bool { return g == left })

	// Moved, then ended with SIGTERM, as at the end of a session.
	d.MoveWindow(t, id, 230, 60)
	left = waitGeometry(t, d, id, "moved", func(g testenv.Geometry) bool { return g.X >= 230 && g.X < 240 })
	a.stop(t)

	a, id = open()
	waitGeometry(t, d, id, "where it was when the session ended", func(g testenv.Geometry) bool { return g == left })
	a.stop(t)

	// Last seen on a monitor that is gone: on this screen (1280×800), whole.
	prefsPath := filepath.Join(home, "config", "fyne", "io.github.parley", "preferences.json")
	var prefs map[string]any
	b, err := os.ReadFile(prefsPath)
	if err != nil || json.Unmarshal(b, &prefs) != nil {
		t.Fatalf("reading the app's preferences: %v: %s", err, b)
	}
	if prefs["window.x"] == nil || prefs["window.y"] == nil {
		t.Fatalf("the preferences hold no window position: %s", b)
	}
	prefs["window.x"], prefs["window.y"] = 2900, -400
	b, _ = json.Marshal(prefs)
	if err := os.WriteFile(prefsPath, b, 0o600); err != nil {
		t.Fatal(err)
	}
	_, id = open()
	waitGeometry(t, d, id, "on the 1280×800 screen", func(g testenv.Geometry) bool {
		// xdotool's position includes the frame's offset (a few pixels left, the title bar above).
		return g.X >= 0 && g.Y >= 0 && g.X+g.Width <= 1280+4 && g.Y+g.Height <= 800+30
	})
	d.WaitForText(t, "Connect to a service", 10*time.Second) // the window's lowest line
}
