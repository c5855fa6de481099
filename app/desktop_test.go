package app

import (
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"

	"parley/app/talk"
	"parley/audio"
	"parley/desktop/hotkey"
)

// fakeKeys stands for the desktop's global shortcuts: combinations another program holds, and
// the listeners the app registered, whose presses the test makes.
type fakeKeys struct {
	mu      sync.Mutex
	taken   map[hotkey.Combo]bool
	unavail string
	live    map[hotkey.Combo]*fakeListener
	tries   []hotkey.Combo
	trigger string // what the desktop says presses the key ("": the keys asked for)
}

type fakeListener struct {
	keys   *fakeKeys
	combo  hotkey.Combo
	events chan hotkey.Event
	once   sync.Once
}

func (l *fakeListener) Events() <-chan hotkey.Event { return l.events }
func (l *fakeListener) Via() string                 { return "test" }
func (l *fakeListener) Trigger() string             { return l.keys.trigger }
func (l *fakeListener) Close() error {
	l.once.Do(func() {
		l.keys.mu.Lock()
		if l.keys.live[l.combo] == l {
			delete(l.keys.live, l.combo)
		}
		l.keys.mu.Unlock()
		close(l.events)
	})
	return nil
}

func newFakeKeys() *fakeKeys {
	return &fakeKeys{taken: map[hotkey.Combo]bool{}, live: map[hotkey.Combo]*fakeListener{}}
}

func (k *fakeKeys) register(c hotkey.Combo) (HotkeyListener, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.tries = append(k.tries, c)
	if k.unavail != "" {
		return nil, &hotkey.UnavailableError{Reason: k.unavail}
	}
	if k.taken[c] || k.live[c] != nil {
		return nil, hotkey.ErrTaken
	}
	l := &fakeListener{keys: k, combo: c, events: make(chan hotkey.Event, 4)}
	k.live[c] = l
	return l, nil
}

// press sends the combination's press or release to the app, which must hold it.
func (k *fakeKeys) press(t *testing.T, c hotkey.Combo, down bool) {
	t.Helper()
	k.mu.Lock()
	l := k.live[c]
	k.mu.Unlock()
	if l == nil {
		t.Fatalf("the app does not hold %s", c)
	}
	l.events <- hotkey.Event{Down: down, At: time.Now()}
}

func (k *fakeKeys) holds(c hotkey.Combo) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.live[c] != nil
}

// notification is one the app showed.
type notification struct {
	title, body string
	click       func()
}

type fakeNotes struct {
	mu    sync.Mutex
	shown []notification
}

func (n *fakeNotes) show(title, body string, click func()) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.shown = append(n.shown, notification{title, body, click})
	return nil
}

func (n *fakeNotes) all() []notification {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]notification(nil), n.shown...)
}

// trayApp is a test app with a system tray, which records what the app puts there.
type trayApp struct {
	fyne.App
	mu      sync.Mutex
	menu    *fyne.Menu
	icon    fyne.Resource
	tooltip string // set through Deps.TrayTooltip
}

func (a *trayApp) setTooltip(s string) { a.mu.Lock(); a.tooltip = s; a.mu.Unlock() }
func (a *trayApp) tip() string         { a.mu.Lock(); defer a.mu.Unlock(); return a.tooltip }

func (a *trayApp) SetSystemTrayMenu(m *fyne.Menu) { a.mu.Lock(); a.menu = m; a.mu.Unlock() }
func (a *trayApp) SetSystemTrayIcon(r fyne.Resource) {
	a.mu.Lock()
	a.icon = r
	a.mu.Unlock()
}
func (a *trayApp) SetSystemTrayWindow(fyne.Window) {}

var _ desktop.App = (*trayApp)(nil)

func (a *trayApp) labels() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var l []string
	for _, it := range a.menu.Items {
		if it.IsSeparator {
			l = append(l, "-")
			continue
		}
		l = append(l, it.Label)
	}
	return strings.Join(l, "|")
}

func (a *trayApp) click(t *testing.T, label string) {
	t.Helper()
	a.mu.Lock()
	m := a.menu
	a.mu.Unlock()
	for _, it := range m.Items {
		if it.Label == label {
			it.Action()
			return
		}
	}
	t.Fatalf("no %q in the tray menu %s", label, a.labels())
}

func (a *trayApp) iconName() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.icon == nil {
		return ""
	}
	return a.icon.Name()
}

type desktopHarness struct {
	*harness
	keys  *fakeKeys
	notes *fakeNotes
	tray  *trayApp
	login *fakeLogin
}

type fakeLogin struct {
	mu sync.Mutex
	on bool
}

func (l *fakeLogin) Enabled() (bool, error) { l.mu.Lock(); defer l.mu.Unlock(); return l.on, nil }
func (l *fakeLogin) Enable() error          { l.mu.Lock(); l.on = true; l.mu.Unlock(); return nil }
func (l *fakeLogin) Disable() error         { l.mu.Lock(); l.on = false; l.mu.Unlock(); return nil }
func (l *fakeLogin) isOn() bool             { on, _ := l.Enabled(); return on }

func startDesktop(t *testing.T, keys *fakeKeys) *desktopHarness {
	t.Helper()
	d := &desktopHarness{keys: keys, notes: &fakeNotes{}, login: &fakeLogin{}}
	d.tray = &trayApp{App: test.NewTempApp(t)}
	d.harness = startWith(t, newFakeService(), d.tray, func(deps *Deps) {
		deps.Hotkey = keys.register
		deps.Notify = d.notes.show
		deps.TrayHost = func() bool { return true }
		deps.TrayTooltip = d.tray.setTooltip
		deps.Autostart = d.login
	})
	d.waitFor(func() bool { return d.u.gkey.ok })
	return d
}

// askHeldUntilTold says a question with the hold-to-talk key (pressed, a take with speech,
// released) and returns the first notification, which tells its reply to a person away.
func (h *desktopHarness) askHeldUntilTold(t *testing.T) notification {
	t.Helper()
	h.rec.take = &audio.Take{Audio: []byte("webm"), MIME: "audio/webm", Speech: true, Duration: time.Second}
	h.keys.press(t, hotkey.Default, true)
	h.waitFor(func() bool { return len(h.rec.calls) == 1 })
	h.keys.press(t, hotkey.Default, false)
	h.waitFor(func() bool { return len(h.notes.all()) == 1 })
	return h.notes.all()[0]
}

func TestGlobalKey_HeldTakeIsSentAndItsReplySpokenWithoutRaising(t *testing.T) {
	h := startDesktop(t, newFakeKeys())
	if !strings.Contains(h.u.gkey.state, "Hold Ctrl+Alt+Space anywhere") {
		t.Errorf("state %q", h.u.gkey.state)
	}
	if h.u.prefs.autoSpeak() {
		t.Fatal("the test needs spoken replies off")
	}
	h.rec.take = &audio.Take{Audio: []byte("webm"), MIME: "audio/webm", Speech: true, Duration: time.Second}
	h.keys.press(t, hotkey.Default, true)
	h.waitFor(func() bool { return len(h.rec.calls) == 1 })
	h.keys.press(t, hotkey.Default, false)
	h.waitFor(func() bool {
		v := h.view()
		return len(v.Messages) == 2 && v.Messages[0].Text == "What is the weather like?"
	})
	h.waitFor(func() bool { return len(h.player.Added) > 0 })
	if n := h.notes.all(); len(n) != 0 {
		t.Errorf("notifications while the window is shown: %v", n)
	}
	if h.u.main.composer.text() != "" {
		t.Errorf("the composer holds %q: a held take is sent, not reviewed", h.u.main.composer.text())
	}
}

func TestGlobalKey_HiddenWindowGetsANotificationThatOpensTheConversation(t *testing.T) {
	h := startDesktop(t, newFakeKeys())
	h.u.prefs.setKeepInTray(true)
	first := h.u.main.current
	h.u.closeRequested()
	if !h.u.hidden || !strings.HasPrefix(h.tray.labels(), "Show Parley|") {
		t.Fatalf("closing with keep-in-tray on: hidden %v, tray %s", h.u.hidden, h.tray.labels())
	}
	n := h.askHeldUntilTold(t)
	reply := h.view().Messages[1].Text
	if n.title != "What is the weather like?" || !strings.HasPrefix(reply, n.body[:10]) || n.click == nil {
		t.Errorf("notification %q / %q (click %v); reply %q", n.title, n.body, n.click != nil, reply)
	}
	h.u.main.newConversation() // the person moved on meanwhile
	n.click()
	h.waitFor(func() bool { return !h.u.hidden && h.u.main.current == first })
	if !strings.HasPrefix(h.tray.labels(), "Hide Parley|") {
		t.Errorf("tray %s", h.tray.labels())
	}
}

// A notification told by the window over one service, clicked after the person switched to
// another: the window shows, and the conversation of the service left is not put in the new
// window (its session is closed).
func TestGlobalKey_NotificationAfterASwitchOpensNothingOld(t *testing.T) {
	h := startDesktop(t, newFakeKeys())
	h.u.prefs.setKeepInTray(true)
	h.u.closeRequested()
	n := h.askHeldUntilTold(t)

	next := newFakeService()
	h.u.attach(&connection{svc: next, baseURL: next.BaseURL()})
	fresh := h.u.main.current
	n.click()
	h.waitFor(func() bool { return !h.u.hidden })
	h.drain()
	if h.u.main.current != fresh {
		t.Error("the notification put a conversation of the service left in the new window")
	}
}

func TestGlobalKey_NoSpeechSendsNothing(t *testing.T) {
	h := startDesktop(t, newFakeKeys())
	h.u.hidden = true
	h.rec.take = &audio.Take{Audio: []byte("webm"), MIME: "audio/webm", Speech: false, Duration: time.Second}
	h.keys.press(t, hotkey.Default, true)
	h.waitFor(func() bool { return len(h.rec.calls) == 1 })
	h.keys.press(t, hotkey.Default, false)
	h.waitFor(func() bool { return h.noticeShown("no speech was heard") })
	if n := len(h.view().Messages); n != 0 {
		t.Errorf("%d messages after a take with no speech", n)
	}
	h.waitFor(func() bool { return len(h.notes.all()) > 0 })
	if n := h.notes.all(); len(n) != 1 || !strings.Contains(n[0].body, "nothing was sent") {
		t.Errorf("notifications %v", n)
	}
}

func TestGlobalKey_MutedRecordsNothing(t *testing.T) {
	h := startDesktop(t, newFakeKeys())
	h.tray.click(t, "Mute the microphone")
	if !h.u.talk.State().Muted || h.tray.iconName() != "parley-tray-muted.png" {
		t.Fatalf("muted %v, icon %s", h.u.talk.State().Muted, h.tray.iconName())
	}
	h.keys.press(t, hotkey.Default, true)
	h.waitFor(func() bool { return strings.Contains(h.u.main.status.message.Text, "muted") })
	if len(h.rec.calls) != 0 {
		t.Error("the key recorded while the microphone was muted")
	}
}

func TestGlobalKey_TakenOrUnavailable(t *testing.T) {
	keys := newFakeKeys()
	keys.taken[hotkey.Default] = true
	a := test.NewTempApp(t)
	h := startWith(t, newFakeService(), a, func(d *Deps) { d.Hotkey = keys.register })
	h.waitFor(func() bool { return strings.HasPrefix(h.u.gkey.state, "Another program uses Ctrl+Alt+Space") })
	h.typeAndSend("still works")
	h.waitFor(func() bool { return len(h.view().Messages) == 2 })

	keys = newFakeKeys()
	keys.unavail = "this Wayland desktop does not offer global shortcuts to apps"
	h2 := startWith(t, newFakeService(), test.NewTempApp(t), func(d *Deps) { d.Hotkey = keys.register })
	h2.waitFor(func() bool { return strings.HasPrefix(h2.u.gkey.state, "Not available here: this Wayland desktop") })
}

func TestPreferences_NewKeysPressedAreCheckedAndSaved(t *testing.T) {
	keys := newFakeKeys()
	keys.taken[hotkey.Combo{Mods: hotkey.Ctrl | hotkey.Alt, Key: "T"}] = true
	h := startDesktop(t, keys)
	h.u.win.Resize(fyne.NewSize(1000, 500)) // too short for every row: they scroll
	h.u.showPreferences()
	var f *keyField
	var sc *container.Scroll
	eachObject(h.u.win.Canvas().Overlays().Top(), func(o fyne.CanvasObject) {
		switch o := o.(type) {
		case *keyField:
			f = o
		case *container.Scroll:
			if sc == nil { // the dialog's, around its rows (entries hold scrolls of their own)
				sc = o
			}
		}
	})
	if f == nil || f.Text != "Ctrl+Alt+Space" || sc == nil {
		t.Fatalf("key field %v, scroll %v", f, sc)
	}
	if sc.Offset.Y != 0 {
		t.Fatalf("the rows start scrolled by %v", sc.Offset.Y)
	}
	h.u.win.Canvas().Focus(f)
	d := fyne.CurrentApp().Driver()
	y := d.AbsolutePositionForObject(f).Y - d.AbsolutePositionForObject(sc).Y
	if sc.Offset.Y == 0 || y < 0 || y+f.Size().Height > sc.Size().Height {
		t.Errorf("the focused key field is at %v in a view %v high (scrolled %v): not in view", y, sc.Size().Height, sc.Offset.Y)
	}
	if !strings.HasPrefix(f.Text, "Press the new keys") || keys.holds(hotkey.Default) {
		t.Fatalf("focused field %q; the app still holds the key: %v", f.Text, keys.holds(hotkey.Default))
	}
	press := func(names ...fyne.KeyName) {
		for _, n := range names {
			f.KeyDown(&fyne.KeyEvent{Name: n})
		}
		for _, n := range names {
			f.KeyUp(&fyne.KeyEvent{Name: n})
		}
	}
	state := func() string { return openDialogOf[*preferencesDialog](t, h.u).talkKey.state.Text }
	press(fyne.KeyA)
	h.waitFor(func() bool { return strings.Contains(state(), "needs Ctrl, Alt or Super") })
	press(desktop.KeyControlLeft, desktop.KeyAltLeft, fyne.KeyT)
	h.waitFor(func() bool { return strings.Contains(state(), "Another program uses Ctrl+Alt+T") })
	if !strings.Contains(state(), "Desktops often use Ctrl+Alt+T to open a terminal") {
		t.Errorf("state %q", state())
	}
	press(desktop.KeyControlLeft, fyne.KeyN)
	h.waitFor(func() bool { return strings.Contains(state(), "Ctrl+N is free") })
	if !strings.Contains(state(), "Parley uses Ctrl+N for New conversation") {
		t.Errorf("state %q", state())
	}
	press(desktop.KeyControlLeft, desktop.KeyShiftLeft, fyne.KeyK)
	h.waitFor(func() bool { return strings.Contains(state(), "Ctrl+Shift+K is free") })
	f.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn}) // Enter saves
	k := hotkey.Combo{Mods: hotkey.Ctrl | hotkey.Shift, Key: "K"}
	h.waitFor(func() bool { return keys.holds(k) })
	if c, on := h.u.prefs.hotkey(); !on || c != k {
		t.Errorf("saved %v %v", c, on)
	}
	if keys.holds(hotkey.Default) {
		t.Error("the old key is still held")
	}

	// Backspace turns it off; Escape keeps what was saved.
	h.u.showPreferences()
	eachObject(h.u.win.Canvas().Overlays().Top(), func(o fyne.CanvasObject) {
		if k, ok := o.(*keyField); ok {
			f = k
		}
	})
	h.u.win.Canvas().Focus(f)
	press(fyne.KeyBackspace)
	if f.Text != "Off" {
		t.Errorf("after Backspace the field says %q", f.Text)
	}
	f.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	h.waitFor(func() bool { return keys.holds(k) })
	if _, on := h.u.prefs.hotkey(); !on {
		t.Error("Escape turned the key off")
	}
}

func TestTray_MenuFollowsTheAppAndStartAtLogin(t *testing.T) {
	h := startDesktop(t, newFakeKeys())
	if got := h.tray.labels(); got != "Hide Parley|New conversation|Start voice mode|Mute the microphone|-|Quit" {
		t.Errorf("tray menu %s", got)
	}
	if h.tray.iconName() != "parley-tray-idle.png" || h.tray.tip() != "Parley — ready" {
		t.Errorf("icon %s, tooltip %q", h.tray.iconName(), h.tray.tip())
	}
	h.tray.click(t, "Mute the microphone")
	h.waitFor(func() bool { return strings.Contains(h.tray.labels(), "Unmute the microphone") })
	if got := h.tray.tip(); got != "Parley — microphone muted" {
		t.Errorf("muted, the tooltip says %q", got)
	}
	h.tray.click(t, "Unmute the microphone")
	h.waitFor(func() bool { return h.tray.iconName() == "parley-tray-idle.png" && h.tray.tip() == "Parley — ready" })

	// Closing with keep-in-tray off quits; Preferences turn it on, and start at login.
	if h.u.prefs.keepInTray() {
		t.Fatal("keep in tray is on by default")
	}
	h.u.showPreferences()
	var checks []*check
	eachObject(h.u.win.Canvas().Overlays().Top(), func(o fyne.CanvasObject) {
		if c, ok := o.(*check); ok && (strings.HasPrefix(c.Text, "Keep running in the tray") || strings.HasPrefix(c.Text, "Start Parley")) {
			checks = append(checks, c)
		}
	})
	if len(checks) != 2 || checks[0].Checked || checks[1].Checked {
		t.Fatalf("checks %v", checks)
	}
	checks[1].SetChecked(true)
	if !checks[0].Checked {
		t.Error("starting in the tray at login did not tick keeping it in the tray")
	}
	h.u.topDialog().keys.submit()
	h.waitFor(func() bool { return h.login.isOn() })
	if !h.u.prefs.keepInTray() {
		t.Error("keep in tray not saved")
	}
	h.u.closeRequested()
	if !h.u.hidden {
		t.Error("closing did not hide the window")
	}
	h.tray.click(t, "Show Parley")
	if h.u.hidden {
		t.Error("Show Parley did not show it")
	}
}

func TestKeyConflicts(t *testing.T) {
	for c, want := range map[string]string{
		"Ctrl+Alt+Space": "",
		"Alt+F4":         "Desktops often use Alt+F4 to close the window.",
		"Ctrl+Q":         "Parley uses Ctrl+Q for Quit: in Parley's window it would talk instead.",
	} {
		combo, err := hotkey.Parse(c)
		if err != nil {
			t.Fatal(err)
		}
		if got := keyConflicts(combo); got != want {
			t.Errorf("keyConflicts(%s) = %q, want %q", c, got, want)
		}
	}
	if got := keyConflicts(hotkey.Combo{Key: "A"}); !strings.Contains(got, "needs Ctrl, Alt or Super") {
		t.Errorf("a bare key: %q", got)
	}
}

// With no tray host at start, the icon waits for one (nothing is registered in vain), closing
// the window quits, and the icon shows when a host starts.
func TestTray_WaitsForAHost(t *testing.T) {
	var appeared func()
	tapp := &trayApp{App: test.NewTempApp(t)}
	present := false
	h := startWith(t, newFakeService(), tapp, func(d *Deps) {
		d.TrayHost = func() bool { return present }
		d.WatchTrayHost = func(f func()) func() { appeared = f; return func() {} }
	})
	if tapp.menu != nil || appeared == nil {
		t.Fatalf("menu %v before any tray host; watching %v", tapp.menu, appeared != nil)
	}
	h.u.prefs.setKeepInTray(true)
	if h.u.tray.hostPresent() {
		t.Error("a host while none runs")
	}
	present = true
	appeared()
	h.waitFor(func() bool { return tapp.menu != nil })
	if got := tapp.labels(); !strings.HasPrefix(got, "Hide Parley|") {
		t.Errorf("menu %s", got)
	}
}

// Started at login before the desktop's panel: Parley waits hidden for the tray, and shows only
// its icon when the tray comes; when no tray comes, it shows its window, and its icon too when a
// tray comes after all.
func TestTray_StartedAtLoginWaitsForTheTray(t *testing.T) {
	defer func(w time.Duration) { loginTrayWait = w }(loginTrayWait)
	loginTrayWait = 300 * time.Millisecond
	for _, comes := range []bool{true, false} {
		var appeared func()
		tapp := &trayApp{App: test.NewTempApp(t)}
		present := false
		h := startWith(t, newFakeService(), tapp, func(d *Deps) {
			d.StartHidden = true
			d.TrayHost = func() bool { return present }
			d.WatchTrayHost = func(f func()) func() { appeared = f; return func() {} }
		})
		h.u.showAtStart()
		if !h.u.hidden {
			t.Fatalf("started at login with no tray yet, the window shows at once")
		}
		if comes {
			present = true
			appeared()
			h.waitFor(func() bool { return tapp.menu != nil })
			time.Sleep(2 * loginTrayWait)
			h.drain()
			if !h.u.hidden {
				t.Error("the tray came, and the window showed all the same")
			}
			continue
		}
		h.waitFor(func() bool { return !h.u.hidden })
		if tapp.menu != nil {
			t.Fatal("no tray came, and the menu was set all the same")
		}
		present = true
		appeared()
		h.waitFor(func() bool { return tapp.menu != nil && tapp.iconName() != "" })
		if got := tapp.labels(); !strings.HasPrefix(got, "Hide Parley|") {
			t.Errorf("the tray came after the window showed: menu %s", got)
		}
	}
}

// The person asks with the key, then goes to a new conversation (from the tray) before the
// reply comes: the reply is still spoken, once; a typed question's reply is not spoken once
// its conversation is left.
func TestGlobalKey_ReplyIsSpokenAfterTheConversationIsLeft(t *testing.T) {
	h := startDesktop(t, newFakeKeys())
	h.svc.Gate = make(chan struct{})
	h.svc.Entered = make(chan string, 4)
	h.rec.take = &audio.Take{Audio: []byte("webm"), MIME: "audio/webm", Speech: true, Duration: time.Second}
	h.keys.press(t, hotkey.Default, true)
	h.waitFor(func() bool { return len(h.rec.calls) == 1 })
	h.keys.press(t, hotkey.Default, false)
	h.waitFor(func() bool { return len(h.svc.Entered) > 0 }) // the held question was sent
	<-h.svc.Entered
	asked := h.u.main.current
	h.tray.click(t, "New conversation")
	h.waitFor(func() bool { return h.u.main.current != asked })
	h.svc.Gate <- struct{}{}
	h.waitFor(func() bool { return len(h.player.Added) > 0 })
	if h.u.talk.Awaited() != 0 {
		t.Errorf("still awaited after the reply: %v", h.u.talk.Awaited())
	}
	played := len(h.player.Added)

	// Typed with spoken replies on, then left: its reply is not spoken, now or on coming back.
	h.u.prefs.setAutoSpeak(true)
	h.u.main.show(asked)
	h.waitFor(func() bool { return h.u.main.current == asked })
	h.u.main.send("and tomorrow?")
	h.waitFor(func() bool { return len(h.svc.Entered) > 0 }) // the typed question was sent
	<-h.svc.Entered
	h.tray.click(t, "New conversation")
	h.waitFor(func() bool { return h.u.main.current != asked })
	h.svc.Gate <- struct{}{}
	h.waitFor(func() bool { return h.u.talk.Awaited() == 0 })
	h.u.main.show(asked)
	h.waitFor(func() bool { return len(h.view().Messages) == 4 })
	h.drain()
	if n := len(h.player.Added); n != played {
		t.Errorf("%d more replies spoken: the typed question's conversation had been left", n-played)
	}
}

// Through the desktop portal: the desktop may bind other keys (Preferences says which), and
// keys are not tried before they are saved, since each try could show the desktop's dialog.
func TestGlobalKey_ThePortalsKeys(t *testing.T) {
	keys := newFakeKeys()
	keys.trigger = "Meta+Space"
	d := &desktopHarness{keys: keys, notes: &fakeNotes{}, login: &fakeLogin{}}
	d.tray = &trayApp{App: test.NewTempApp(t)}
	h := startWith(t, newFakeService(), d.tray, func(deps *Deps) {
		deps.Hotkey = keys.register
		deps.HotkeyAsks = true
	})
	h.waitFor(func() bool { return h.u.gkey.ok })
	if !strings.HasPrefix(h.u.gkey.state, "Hold Meta+Space anywhere") {
		t.Errorf("state %q: want the keys the desktop bound", h.u.gkey.state)
	}
	keys.mu.Lock()
	tries := len(keys.tries)
	keys.mu.Unlock()
	var said string
	h.u.gkey.check(hotkey.Combo{Mods: hotkey.Ctrl | hotkey.Alt, Key: "K"}, func(s string, free bool) { said = s })
	h.drain()
	keys.mu.Lock()
	defer keys.mu.Unlock()
	if len(keys.tries) != tries || !strings.Contains(said, "will be asked") {
		t.Errorf("checking keys through the portal registered them (%d tries, was %d) and said %q", len(keys.tries), tries, said)
	}
}

// The connection to the desktop ends while the key is held (its release will never come): the
// take ends, and Preferences says the key stopped working.
func TestGlobalKey_ListenerEndsWhileHeld(t *testing.T) {
	h := startDesktop(t, newFakeKeys())
	h.rec.take = &audio.Take{Audio: []byte("webm"), MIME: "audio/webm", Speech: true, Duration: time.Second}
	h.keys.press(t, hotkey.Default, true)
	h.waitFor(func() bool { return h.u.talk.State().Recording })
	h.keys.mu.Lock()
	l := h.keys.live[hotkey.Default]
	h.keys.mu.Unlock()
	l.Close()
	h.waitFor(func() bool { return !h.u.talk.State().Recording && strings.Contains(h.u.gkey.state, "stopped working") })
	h.waitFor(func() bool { return len(h.view().Messages) == 2 }) // what was said is sent
}

// A key whose release never comes: the take stops at its limit, and what was heard waits in
// the message box, unsent.
func TestGlobalKey_AStuckKeySendsNothing(t *testing.T) {
	h := startDesktop(t, newFakeKeys())
	h.u.hidden = true
	h.rec.take = &audio.Take{Audio: []byte("webm"), MIME: "audio/webm", Speech: true, Duration: talk.MaxHeldTake, Reason: audio.StopMaxDuration}
	h.keys.press(t, hotkey.Default, true)
	h.waitFor(func() bool { return len(h.rec.calls) == 1 })
	h.u.talk.FinishRecording() // as the recorder does at the limit
	h.waitFor(func() bool { return h.u.main.composer.text() == "What is the weather like?" })
	if n := len(h.view().Messages); n != 0 {
		t.Errorf("%d messages sent after a stuck key", n)
	}
	h.waitFor(func() bool { return len(h.notes.all()) > 0 })
	if n := h.notes.all(); !strings.Contains(n[0].body, "nothing was sent") {
		t.Errorf("notification %+v", n[0])
	}
	h.keys.press(t, hotkey.Default, false) // the release, late: nothing more happens
	h.drain()
	if n := len(h.view().Messages); n != 0 {
		t.Errorf("%d messages sent after the late release", n)
	}
}

// Through the portal, passing through the key field in Preferences does not give the key back
// and take it again (each time could ask the person); on a Wayland desktop without global
// shortcuts, the field says so for any keys.
func TestGlobalKey_PortalKeyIsKeptWhileTheFieldHasFocus(t *testing.T) {
	keys := newFakeKeys()
	h := startWith(t, newFakeService(), test.NewTempApp(t), func(deps *Deps) {
		deps.Hotkey = keys.register
		deps.HotkeyAsks = true
	})
	h.waitFor(func() bool { return h.u.gkey.ok })
	keys.mu.Lock()
	tries := len(keys.tries)
	keys.mu.Unlock()
	h.u.gkey.pause()
	h.u.gkey.resume()
	h.drain()
	keys.mu.Lock()
	now := len(keys.tries)
	keys.mu.Unlock()
	if now != tries || !keys.holds(hotkey.Default) {
		t.Errorf("focusing the key field registered the key again (%d tries, was %d)", now, tries)
	}

	none := newFakeKeys()
	none.unavail = "this Wayland desktop does not offer global shortcuts to apps"
	h2 := startWith(t, newFakeService(), test.NewTempApp(t), func(deps *Deps) {
		deps.Hotkey = none.register
		deps.HotkeyAsks = true
	})
	h2.waitFor(func() bool { return strings.HasPrefix(h2.u.gkey.state, "Not available here") })
	var said string
	free := true
	h2.u.gkey.check(hotkey.Combo{Mods: hotkey.Ctrl | hotkey.Alt, Key: "K"}, func(s string, f bool) { said, free = s, f })
	if free || !strings.HasPrefix(said, "Not available here") {
		t.Errorf("check on a desktop without global shortcuts: %q, free %v", said, free)
	}
}
