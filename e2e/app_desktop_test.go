package e2e

// Parley on the desktop: the hold-to-talk key pressed while another program has the focus,
// the tray icon and its menu, one instance, and the start at login.

import (
	"bytes"
	"errors"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"parley/assets"
	"parley/desktop/hotkey"
	"parley/internal/testenv"
	"parley/voice/speakable"
)

// xdo runs xdotool on d and returns its output.
func xdo(t *testing.T, d *testenv.Display, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("xdotool", args...)
	cmd.Env = append(os.Environ(), d.Env())
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// visibleWindows lists the mapped windows titled title.
func visibleWindows(t *testing.T, d *testenv.Display, title string) []string {
	t.Helper()
	out, _ := xdo(t, d, "search", "--onlyvisible", "--name", "^"+title+"$")
	return strings.Fields(out)
}

// activeWindow is the window that has the keyboard.
func activeWindow(t *testing.T, d *testenv.Display) string {
	t.Helper()
	out, err := xdo(t, d, "getactivewindow")
	if err != nil {
		t.Fatalf("xdotool getactivewindow: %v: %s", err, out)
	}
	return out
}

// startXlogo opens xlogo, another X program, and gives it the keyboard.
func startXlogo(t *testing.T, d *testenv.Display) string {
	t.Helper()
	cmd := exec.Command("xlogo", "-geometry", "200x200+1000+50")
	cmd.Env = append(os.Environ(), d.Env())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	id := d.WaitForWindow(t, "xlogo", 20*time.Second)
	focus(t, d, id)
	return id
}

// focus gives a window the keyboard, through the window manager.
func focus(t *testing.T, d *testenv.Display, id string) {
	t.Helper()
	if out, err := xdo(t, d, "windowactivate", "--sync", id); err != nil {
		t.Fatalf("xdotool windowactivate: %v: %s", err, out)
	}
	testenv.WaitUntil(t, 10*time.Second, poll, "the window to have the keyboard", func() bool { return activeWindow(t, d) == id })
}

// writePrefs writes the app's preferences under home before it starts.
func writePrefs(t *testing.T, home, json string) {
	t.Helper()
	prefs := filepath.Join(home, "config", "fyne", "io.github.parley", "preferences.json")
	os.MkdirAll(filepath.Dir(prefs), 0o700)
	if err := os.WriteFile(prefs, []byte(json), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestApp_HoldToTalkFromAnotherProgram holds Ctrl+Alt+Space while xlogo has the keyboard and
// speaks into the room: the question reaches the service, the reply is heard, and Parley's
// window never takes the focus. A take with no speech sends nothing. With the window hidden
// in the tray, a notification shows the question and the reply, and clicking it shows the
// conversation.
func TestApp_HoldToTalkFromAnotherProgram(t *testing.T) {
	testenv.RequireCommands(t, "flite", "sox", "paplay", "parec", "pocketsphinx_continuous", "tesseract", "xlogo")
	d := testenv.StartDisplay(t)
	d.StartWindowManager(t)
	bus := testenv.StartSessionBus(t)
	testenv.StartTrayWatcher(t, bus.Address)
	notes := testenv.StartNotifications(t, bus.Address)
	p := testenv.StartPulse(t)
	s := startService(t)
	key := s.newKey(t, 100)
	env := s.env("PARLEY_API_KEY="+key, "PARLEY_AUDIO_BACKEND=pulse")
	dir := t.TempDir()
	shots := shotsDir(t)
	question := say(t, dir, "question", theQuestion)
	quietRoom(t, p, dir)

	home := t.TempDir()
	writePrefs(t, home, `{"keep_in_tray": true}`) // replies are not spoken by default: held-key replies are
	a := startAppAt(t, d, env, home)
	parley := d.WaitForWindow(t, "Parley", 30*time.Second)
	d.WaitForText(t, "What's on your mind?", 30*time.Second)
	logo := startXlogo(t, d)

	hold := func(wav string) {
		t.Helper()
		d.KeyDown(t, "ctrl+alt+space")
		time.Sleep(2500 * time.Millisecond) // the null sink's monitor takes up to 2 s to deliver audio
		if wav != "" {
			playInto(t, p, wav)
		}
		time.Sleep(300 * time.Millisecond)
		d.KeyUp(t, "ctrl+alt+space")
	}
	heard := filepath.Join(dir, "reply.raw")
	stopRec := recordSink(t, p, heard)
	hold(question)
	var id string
	var h historyJSON
	testenv.WaitUntil(t, 60*time.Second, poll, "the spoken question and its reply in the service's history", func() bool {
		id = firstID(run(t, env, "", "conversations", "--json").Stdout)
		if id == "" {
			return false
		}
		h = history(t, env, id)
		return len(h.Messages) == 2 && h.Messages[1].Role == "assistant"
	})
	said := strings.ToLower(h.Messages[0].Content)
	if o := wordOverlap(said, theQuestion); o < minOverlap {
		t.Errorf("the question sent was %q: %.0f%% of the spoken words, want at least %.0f%%", said, 100*o, 100*minOverlap)
	}
	loud := waitForSpeech(t, heard, 30*time.Second)
	stopRec()
	t.Logf("sent %q; the speakers then carried %v of speech", said, loud)
	if loud < time.Second {
		t.Errorf("the reply was not heard: %v of speech-level sound on the speakers, want at least 1 s", loud)
	}
	d.Screenshot(t, filepath.Join(shots, "01-held-key-reply.png"))
	if w := activeWindow(t, d); w != logo {
		t.Errorf("after the held-key turn the keyboard is with window %s, want xlogo's %s (Parley is %s)", w, logo, parley)
	}

	// Held with nothing said: nothing is sent, and the composer says why.
	hold("")
	d.WaitForText(t, "no speech was heard", 30*time.Second)
	if n := len(history(t, env, id).Messages); n != 2 {
		t.Errorf("a take with no speech changed the conversation to %d messages", n)
	}
	if w := activeWindow(t, d); w != logo {
		t.Errorf("after the empty take the keyboard is with %s, want xlogo's %s", w, logo)
	}

	// Closed to the tray: the key still works, and a notification tells what was asked and
	// answered; clicking it shows the conversation.
	focus(t, d, parley)
	d.Key(t, "alt+F4") // openbox closes the window: keep_in_tray hides it
	testenv.WaitUntil(t, 10*time.Second, poll, "the window to hide", func() bool { return len(visibleWindows(t, d, "Parley")) == 0 })
	select {
	case <-a.exited:
		t.Fatalf("closing the window quit Parley although it keeps running in the tray:\n%s", a.logs)
	default:
	}
	focus(t, d, logo)
	hold(question)
	n := notes.Wait(t, 1, 60*time.Second)
	h = history(t, env, id)
	if len(h.Messages) != 4 {
		t.Fatalf("the conversation holds %d messages, want 4", len(h.Messages))
	}
	// The notification carries the reply as it is spoken: the text without its Markdown.
	reply := strings.Join(strings.Fields(speakable.Text(h.Messages[3].Content)), " ")
	if o := wordOverlap(strings.ToLower(n.Summary), theQuestion); o < minOverlap || !strings.HasPrefix(reply, strings.TrimSuffix(n.Body, "…")) {
		t.Errorf("the notification says %q / %q; want the question and the start of the reply %q", n.Summary, n.Body, reply)
	}
	if len(n.Actions) == 0 {
		t.Error("the notification cannot be clicked")
	}
	notes.Click(t, n.ID)
	testenv.WaitUntil(t, 10*time.Second, poll, "the window to show again", func() bool { return len(visibleWindows(t, d, "Parley")) == 1 })
	d.WaitForText(t, "weather", 20*time.Second)
	d.Screenshot(t, filepath.Join(shots, "02-notification-clicked.png"))
	// The Alt of Alt+F4 reached Parley and was let go only when the window had gone: that must
	// not have opened the menu, which would greet the person on coming back.
	if screen := d.Read(t); strings.Contains(screen, "Preferences...") || strings.Contains(screen, "Built-in service...") {
		t.Errorf("the Parley menu is open after the window came back:\n%s", screen)
	}
}

// TestApp_HoldToTalkKeyTakenAndChanged: another program holds Ctrl+Alt+Space, Preferences says
// so, and new keys pressed in its field (from the keyboard alone) are saved and taken.
func TestApp_HoldToTalkKeyTakenAndChanged(t *testing.T) {
	testenv.RequireCommands(t, "tesseract")
	d := testenv.StartDisplay(t)
	testenv.StartSessionBus(t)
	t.Setenv("DISPLAY", d.Name)
	taken, err := hotkey.Register(hotkey.Default) // another program, holding the key first
	if err != nil {
		t.Fatalf("taking the key before Parley: %v", err)
	}
	defer taken.Close()
	s := startService(t)
	env := s.env("PARLEY_API_KEY=" + s.newKey(t, 10))
	home := t.TempDir()
	startAppAt(t, d, env, home)
	d.WaitForWindow(t, "Parley", 30*time.Second)
	d.WaitForText(t, "What's on your mind?", 30*time.Second)
	d.Type(t, "Still works")
	d.Key(t, "Return")
	d.WaitForText(t, "you asked about", 30*time.Second) // the rest of the app works

	d.Key(t, "alt")
	d.Key(t, "Down", "Down", "Return")
	d.WaitForText(t, "Microphone", 20*time.Second)
	// The line under the key's field is the last row's: scroll the rows to it, as a person would.
	d.WheelDown(t, 500, 350, 20)
	d.WaitForText(t, "Another program uses", 20*time.Second)
	// Backwards from the first field: Save, Cancel, Change…, the two checks, the key's field
	// (the rows scroll to it).
	d.Key(t, "shift+Tab", "shift+Tab", "shift+Tab", "shift+Tab", "shift+Tab", "shift+Tab")
	d.WaitForText(t, "Press the new keys", 10*time.Second)
	d.Key(t, "ctrl+alt+j")
	d.WaitForText(t, "is free", 20*time.Second)
	d.Screenshot(t, filepath.Join(shotsDir(t), "preferences-key.png"))
	d.Key(t, "Return")
	testenv.WaitUntil(t, 20*time.Second, poll, "the new key in the preferences", func() bool {
		return strings.Contains(readPreferences(t, home), `"hotkey":"Ctrl+Alt+J"`)
	})
	testenv.WaitUntil(t, 20*time.Second, poll, "Parley to hold the new key", func() bool {
		l, err := hotkey.Register(hotkey.Combo{Mods: hotkey.Ctrl | hotkey.Alt, Key: "J"})
		if l != nil {
			l.Close()
		}
		return errors.Is(err, hotkey.ErrTaken)
	})
}

// TestApp_OneInstance: a second parley shows the first one's window and exits 0, leaving one
// window; after the first is killed (its lock left behind), a new one starts.
func TestApp_OneInstance(t *testing.T) {
	d := testenv.StartDisplay(t)
	d.StartWindowManager(t)
	testenv.StartSessionBus(t)
	s := startService(t)
	env := s.env("PARLEY_API_KEY=" + s.newKey(t, 10))
	home := t.TempDir()
	first := startAppAt(t, d, env, home)
	parley := d.WaitForWindow(t, "Parley", 30*time.Second)
	d.WaitForText(t, "What's on your mind?", 30*time.Second)
	logo := startXlogo(t, d)

	second := exec.Command(bin)
	second.Env = append(env, appHome(d, home)...)
	start := time.Now()
	out, err := second.CombinedOutput()
	took := time.Since(start)
	t.Logf("the second parley exited after %v: %v %q", took.Round(time.Millisecond), err, out)
	if err != nil {
		t.Fatalf("the second parley: %v\n%s", err, out)
	}
	if took > 5*time.Second {
		t.Errorf("the second parley took %v to hand over", took)
	}
	testenv.WaitUntil(t, 10*time.Second, poll, "the first window to be raised", func() bool { return activeWindow(t, d) == parley })
	if w := visibleWindows(t, d, "Parley"); len(w) != 1 {
		t.Errorf("%d Parley windows, want 1", len(w))
	}
	if w := activeWindow(t, d); w == logo {
		t.Error("xlogo kept the keyboard: the second start did not raise Parley")
	}
	// Alt+Tab away and back: the Alt that went with the Tab (taken by the window manager) must
	// not have opened Parley's menu.
	d.Key(t, "alt+Tab")
	testenv.WaitUntil(t, 10*time.Second, poll, "Alt+Tab to give xlogo the keyboard", func() bool { return activeWindow(t, d) == logo })
	focus(t, d, parley)
	time.Sleep(500 * time.Millisecond) // a menu would open at once
	if screen := d.Read(t); strings.Contains(screen, "Preferences...") || strings.Contains(screen, "Built-in service...") {
		t.Errorf("after Alt+Tab away and back, Parley's menu is open:\n%s", screen)
	}

	// Commands are not handed over: they run beside the window, as before.
	if r := mustRun(t, second.Env, "", "chat", "hello from the terminal"); strings.TrimSpace(r.Stdout) == "" {
		t.Errorf("parley chat beside the window printed nothing: %s", r)
	}
	if w := visibleWindows(t, d, "Parley"); len(w) != 1 {
		t.Errorf("after parley chat, %d Parley windows, want 1", len(w))
	}

	first.cmd.Process.Signal(syscall.SIGKILL)
	<-first.exited

	// A process that holds the lock and does not answer (a Parley that hangs): a new start
	// says so, and what to do, within a second or so, and exits 1.
	lockDir := filepath.Join(home, "config", "parley")
	f, err := os.OpenFile(filepath.Join(lockDir, "instance.lock"), os.O_RDWR, 0)
	if err != nil {
		t.Fatalf("the killed Parley left no lock file: %v", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatalf("the killed Parley's lock is still held: %v", err)
	}
	os.Remove(filepath.Join(lockDir, "instance.addr"))
	hung := exec.Command(bin)
	hung.Env = second.Env
	start = time.Now()
	out, err = hung.CombinedOutput()
	t.Logf("beside a hung holder, parley exited after %v: %v\n%s", time.Since(start).Round(time.Millisecond), err, out)
	if hung.ProcessState.ExitCode() != 1 || !strings.Contains(string(out), "did not answer") || !strings.Contains(string(out), "end it") {
		t.Errorf("beside a hung holder: exit %d, %q", hung.ProcessState.ExitCode(), out)
	}
	f.Close() // the lock goes with the file

	startAppAt(t, d, env, home)
	d.WaitForWindow(t, "Parley", 30*time.Second)
	d.WaitForText(t, "What's on your mind?", 30*time.Second)
	if w := visibleWindows(t, d, "Parley"); len(w) != 1 {
		t.Errorf("after the crash, %d Parley windows, want 1", len(w))
	}
}

// TestApp_TrayMenu reads the tray icon's menu over D-Bus as a panel does (a StatusNotifierWatcher
// of the test's own on a private bus), clicks its items, and watches the icon follow the voice
// state. Started as at login, Parley shows only the tray icon.
func TestApp_TrayMenu(t *testing.T) {
	d := testenv.StartDisplay(t)
	d.StartWindowManager(t)
	bus := testenv.StartSessionBus(t)
	watcher := testenv.StartTrayWatcher(t, bus.Address)
	p := testenv.StartPulse(t)
	s := startService(t)
	env := s.env("PARLEY_API_KEY="+s.newKey(t, 10), "PARLEY_AUDIO_BACKEND=pulse")
	quietRoom(t, p, t.TempDir())
	home := t.TempDir()
	a := startAppAt(t, d, env, home, "--tray")
	item := watcher.WaitItem(t, 30*time.Second)
	menu := func() string { return strings.Join(testenv.Labels(item.Menu(t)), "|") }
	testenv.WaitUntil(t, 10*time.Second, poll, "the tray menu", func() bool {
		return menu() == "Show Parley|New conversation|Start voice mode|Mute the microphone|-|Quit"
	})
	if w := visibleWindows(t, d, "Parley"); len(w) != 0 {
		t.Errorf("started at login, Parley shows %d windows", len(w))
	}
	idle, width := item.Icon(t)
	if idle == "" || width < 16 {
		t.Fatalf("the tray icon is empty (%d px)", width)
	}
	checkTrayEdge(t, item)
	if got := item.Title(t); got != "Parley" {
		t.Errorf("the tray icon's title is %q, want Parley", got)
	}
	if got := item.ToolTip(t); got != "Parley — ready" {
		t.Errorf("the tray icon's tooltip is %q, want %q", got, "Parley — ready")
	}

	item.Click(t, "Show Parley")
	testenv.WaitUntil(t, 20*time.Second, poll, "the window to show", func() bool { return len(visibleWindows(t, d, "Parley")) == 1 })
	d.WaitForText(t, "What's on your mind?", 30*time.Second)
	testenv.WaitUntil(t, 10*time.Second, poll, "Hide in the menu", func() bool { return strings.HasPrefix(menu(), "Hide Parley|") })

	iconNow := func() string { s, _ := item.Icon(t); return s }
	item.Click(t, "Mute the microphone")
	testenv.WaitUntil(t, 10*time.Second, poll, "the muted icon", func() bool { return iconNow() != idle && strings.Contains(menu(), "Unmute the microphone") })
	muted := iconNow()
	testenv.WaitUntil(t, 10*time.Second, poll, "the muted tooltip", func() bool { return item.ToolTip(t) == "Parley — microphone muted" })
	item.Click(t, "Unmute the microphone")
	testenv.WaitUntil(t, 10*time.Second, poll, "the idle icon", func() bool { return iconNow() == idle })
	testenv.WaitUntil(t, 10*time.Second, poll, "the idle tooltip", func() bool { return item.ToolTip(t) == "Parley — ready" })

	item.Click(t, "Start voice mode")
	testenv.WaitUntil(t, 20*time.Second, poll, "voice mode to run", func() bool { return strings.Contains(menu(), "Stop voice mode") })
	testenv.WaitUntil(t, 20*time.Second, poll, "the listening icon", func() bool { i := iconNow(); return i != idle && i != muted })
	testenv.WaitUntil(t, 20*time.Second, poll, "the listening tooltip", func() bool { return item.ToolTip(t) == "Parley — listening" })
	d.WaitForText(t, "Listening", 20*time.Second)
	item.Click(t, "Stop voice mode")
	testenv.WaitUntil(t, 20*time.Second, poll, "voice mode to stop", func() bool { return strings.Contains(menu(), "Start voice mode") && iconNow() == idle })

	item.Click(t, "Hide Parley")
	testenv.WaitUntil(t, 10*time.Second, poll, "the window to hide", func() bool { return len(visibleWindows(t, d, "Parley")) == 0 })
	item.Click(t, "Quit")
	a.waitExit(t, "Quit in the tray menu")
	if code := a.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("Quit exited %d", code)
	}
}

// checkTrayEdge compares the idle tray icon's anti-aliased edge, as a panel reads it, with the
// app's icon: a half-transparent pixel keeps its colour (8-bit ARGB, not premultiplied).
func checkTrayEdge(t *testing.T, item testenv.TrayItem) {
	t.Helper()
	src, err := png.Decode(bytes.NewReader(assets.Icon48PNG))
	if err != nil {
		t.Fatal(err)
	}
	w, h, argb := item.Pixmap(t)
	if b := src.Bounds(); w != b.Dx() || h != b.Dy() {
		t.Fatalf("the tray icon is %dx%d, the app's icon %dx%d", w, h, b.Dx(), b.Dy())
	}
	edge, bad := 0, 0
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			want := color.NRGBAModel.Convert(src.At(src.Bounds().Min.X+x, src.Bounds().Min.Y+y)).(color.NRGBA)
			if want.A < 0x40 || want.A == 0xff {
				continue // transparent enough that rounding blurs its colour, or opaque
			}
			edge++
			got := argb[(y*w+x)*4:][:4]
			// The icon went through a premultiplied image: each channel may be off by 255/alpha.
			tol := 255/int(want.A) + 1
			if absDiff(got[0], want.A) > 1 || absDiff(got[1], want.R) > tol || absDiff(got[2], want.G) > tol || absDiff(got[3], want.B) > tol {
				if bad++; bad <= 3 {
					t.Errorf("tray icon pixel (%d,%d) is ARGB % x, want about %02x %02x %02x %02x", x, y, got, want.A, want.R, want.G, want.B)
				}
			}
		}
	}
	if edge == 0 {
		t.Fatal("the app's icon has no half-transparent pixel to compare")
	}
	if bad > 0 {
		t.Errorf("%d of the icon's %d half-transparent pixels have other colours in the tray", bad, edge)
	}
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

// trayItemName is the start of the bus name Parley's tray icon is served under.
const trayItemName = "org.kde.StatusNotifierItem-"

// hasTrayItem reports whether Parley (pid) serves a tray icon on the bus.
func hasTrayItem(t *testing.T, address string, pid int) bool {
	t.Helper()
	for _, n := range testenv.BusNamesOf(t, address, pid) {
		if strings.HasPrefix(n, trayItemName) {
			return true
		}
	}
	return false
}

// quitAtLogout sends Parley SIGTERM, as the session does at logout, and checks that it quits
// cleanly: exit 0, no panic.
func quitAtLogout(t *testing.T, a *app) {
	t.Helper()
	a.cmd.Process.Signal(syscall.SIGTERM)
	a.waitExit(t, "SIGTERM")
	if code := a.cmd.ProcessState.ExitCode(); code != 0 || strings.Contains(a.logs.String(), "panic") {
		t.Errorf("at SIGTERM Parley exited %d; its log:\n%s", code, a.logs)
	}
}

// TestApp_TrayHostStartsAfterParley: started at login before the desktop's panel, Parley shows
// nothing and puts up no icon in vain; when the panel's tray host (a StatusNotifierWatcher)
// starts a few seconds later, the icon registers with it, titled Parley, and its menu works.
// A forged signal does not stop it from registering again with a panel that restarts; the
// panel goes at logout, and SIGTERM ends Parley cleanly.
func TestApp_TrayHostStartsAfterParley(t *testing.T) {
	d, bus, a := startAtLogin(t)
	pid := a.cmd.Process.Pid
	testenv.WaitUntil(t, 30*time.Second, poll, "Parley on the session bus", func() bool { return len(testenv.BusNamesOf(t, bus.Address, pid)) > 0 })
	// The panel comes a few seconds after Parley, which by then has found no tray host and
	// watches for one.
	time.Sleep(3 * time.Second)
	if hasTrayItem(t, bus.Address, pid) {
		t.Error("with no tray host, Parley serves a tray icon all the same")
	}
	if w := visibleWindows(t, d, "Parley"); len(w) != 0 {
		t.Errorf("started at login, Parley shows %d windows", len(w))
	}

	watcher := testenv.StartTrayWatcher(t, bus.Address)
	item := watcher.WaitItem(t, 30*time.Second)
	menu := func(it testenv.TrayItem) string { return strings.Join(testenv.Labels(it.Menu(t)), "|") }
	// The icon, its menu and its properties reach the bus in turn: on a busy machine the last of
	// them took more than 10 s (twice in a full local run of make test).
	testenv.WaitUntil(t, 30*time.Second, poll, "the tray menu", func() bool {
		return menu(item) == "Show Parley|New conversation|Start voice mode|Mute the microphone|-|Quit"
	})
	testenv.WaitUntil(t, 30*time.Second, poll, "the title Parley and the tooltip Parley — ready", func() bool {
		return item.Title(t) == "Parley" && item.ToolTip(t) == "Parley — ready"
	})
	if _, width := item.Icon(t); width != 48 {
		t.Errorf("the tray icon is %d px wide, want Parley's 48", width)
	}
	if w := visibleWindows(t, d, "Parley"); len(w) != 0 {
		t.Errorf("the tray came, and Parley shows %d windows", len(w))
	}
	item.Click(t, "Show Parley")
	testenv.WaitUntil(t, 20*time.Second, poll, "the window to show", func() bool { return len(visibleWindows(t, d, "Parley")) == 1 })
	testenv.WaitUntil(t, 10*time.Second, poll, "Hide in the menu", func() bool { return strings.HasPrefix(menu(item), "Hide Parley|") })

	// Signals any program could send to Parley's connections: one that is not a
	// NameOwnerChanged of the bus's, and a NameOwnerChanged that is not the bus's.
	const busPath, owner = dbus.ObjectPath("/org/freedesktop/DBus"), "org.freedesktop.DBus.NameOwnerChanged"
	testenv.ForgeSignal(t, busPath, owner, "org.kde.StatusNotifierWatcher")
	testenv.ForgeSignal(t, busPath, owner, "org.kde.StatusNotifierWatcher", "", ":1.999")

	// The panel restarts: the icon registers with the new one.
	watcher.Stop()
	again := testenv.StartTrayWatcher(t, bus.Address)
	item = again.WaitItem(t, 30*time.Second)
	if got := menu(item); !strings.HasPrefix(got, "Hide Parley|") {
		t.Errorf("after the panel restarted, the tray menu is %s", got)
	}

	// Logout: the panel goes, then the session ends Parley.
	again.Stop()
	quitAtLogout(t, a)
}

// TestApp_TrayHostNeverComes: started at login on a desktop with no tray, Parley shows its
// window once it has waited for one, puts up no icon in vain, and SIGTERM ends it cleanly.
func TestApp_TrayHostNeverComes(t *testing.T) {
	d, bus, a := startAtLogin(t)
	waitWindowAfterTrayWait(t, d)
	if hasTrayItem(t, bus.Address, a.cmd.Process.Pid) {
		t.Error("with no tray host, Parley serves a tray icon all the same")
	}
	quitAtLogout(t, a)
}

// TestApp_TrayHostComesAfterTheWindow: started at login, Parley waited for a tray in vain and
// showed its window; when a tray host starts after all, the icon registers with it and its
// menu works; SIGTERM then ends Parley cleanly.
func TestApp_TrayHostComesAfterTheWindow(t *testing.T) {
	d, bus, a := startAtLogin(t)
	waitWindowAfterTrayWait(t, d)

	watcher := testenv.StartTrayWatcher(t, bus.Address)
	item := watcher.WaitItem(t, 30*time.Second)
	menu := func() string { return strings.Join(testenv.Labels(item.Menu(t)), "|") }
	testenv.WaitUntil(t, 10*time.Second, poll, "the tray menu", func() bool {
		return menu() == "Hide Parley|New conversation|Start voice mode|Mute the microphone|-|Quit"
	})
	item.Click(t, "Hide Parley")
	testenv.WaitUntil(t, 10*time.Second, poll, "the window to hide", func() bool { return len(visibleWindows(t, d, "Parley")) == 0 })
	item.Click(t, "Show Parley")
	testenv.WaitUntil(t, 10*time.Second, poll, "the window to show", func() bool { return len(visibleWindows(t, d, "Parley")) == 1 })
	quitAtLogout(t, a)
}

// startAtLogin starts Parley as the desktop does at login (--tray), on a display with a window
// manager and a session bus of its own with no tray host yet, against a service of its own.
func startAtLogin(t *testing.T) (*testenv.Display, *testenv.SessionBus, *app) {
	t.Helper()
	d := testenv.StartDisplay(t)
	d.StartWindowManager(t)
	bus := testenv.StartSessionBus(t)
	s := startService(t)
	env := s.env("PARLEY_API_KEY=" + s.newKey(t, 10))
	return d, bus, startAppAt(t, d, env, t.TempDir(), "--tray")
}

// waitWindowAfterTrayWait waits for the window Parley shows once it has waited for a tray host
// in vain, with the new conversation in it.
func waitWindowAfterTrayWait(t *testing.T, d *testenv.Display) {
	t.Helper()
	testenv.WaitUntil(t, 60*time.Second, poll, "the window, once Parley has waited for a tray", func() bool {
		return len(visibleWindows(t, d, "Parley")) == 1
	})
	d.WaitForText(t, "What's on your mind?", 30*time.Second)
}
