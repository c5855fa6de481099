package app

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/lang"

	"parley/app/talk"
	"parley/assets"
	"parley/voice"
)

// trayState is what the tray's icon shows.
type trayState int

const (
	trayIdle trayState = iota
	trayListening
	traySpeaking
	trayMuted
)

func (s trayState) String() string {
	return [...]string{"idle", "listening", "speaking", "muted"}[s]
}

// tooltip is what the tray host shows over the icon in this state.
func (s trayState) tooltip() string {
	switch s {
	case trayListening:
		return lang.L("Parley — listening")
	case traySpeaking:
		return lang.L("Parley — speaking")
	case trayMuted:
		return lang.L("Parley — microphone muted")
	}
	return lang.L("Parley — ready")
}

// tray is Parley's icon in the system tray, with its menu; nil where the app has none.
type tray struct {
	u     *UI
	d     desktop.App
	shown trayState // the icon set last
	// labels are the menu's labels set last: the menu is built again only when one changes.
	labels [3]string
	built  bool
	// waiting: no tray host ran at start; the icon is put there when one starts (until then
	// fyne.io/systray would only log that it could not register).
	waiting   bool
	stopWatch func()
}

// newTray gives the app its tray icon, when the app can have one.
func newTray(u *UI) *tray {
	d, ok := u.app.(desktop.App)
	if !ok {
		return nil
	}
	t := &tray{u: u, d: d, shown: -1}
	if u.deps.TrayHost != nil && u.deps.WatchTrayHost != nil {
		// Watching first, then asking: a host that starts in between is seen either way.
		t.stopWatch = u.deps.WatchTrayHost(func() { u.do(t.hostAppeared) })
		if !u.deps.TrayHost() {
			t.waiting = true
			return t
		}
		t.stop()
	}
	t.refresh()
	return t
}

// hostAppeared puts the icon in the tray that has just started (Fyne starts the tray then, and
// fyne.io/systray registers it again with any host that starts after).
func (t *tray) hostAppeared() {
	if !t.waiting {
		return
	}
	t.waiting = false
	t.stop()
	t.refresh()
}

// stop stops watching for a tray host.
func (t *tray) stop() {
	if t != nil && t.stopWatch != nil {
		t.stopWatch()
		t.stopWatch = nil
	}
}

// hostPresent reports whether the desktop shows the tray icon now.
func (t *tray) hostPresent() bool {
	if t == nil || t.waiting {
		return false
	}
	if t.u.deps.TrayHost == nil {
		return true
	}
	return t.u.deps.TrayHost()
}

// menuLabels are the labels of the items whose words follow the state.
func (t *tray) menuLabels() [3]string {
	u := t.u
	show := lang.L("Hide Parley")
	if u.hidden {
		show = lang.L("Show Parley")
	}
	vm := lang.L("Start voice mode")
	if u.voiceModeActive() {
		vm = lang.L("Stop voice mode")
	}
	mute := lang.L("Mute the microphone")
	if u.talk.State().Muted {
		mute = lang.L("Unmute the microphone")
	}
	return [3]string{show, vm, mute}
}

// menu is the tray's menu for the state the app is in.
func (t *tray) menu() *fyne.Menu {
	u := t.u
	l := t.menuLabels()
	quit := fyne.NewMenuItem(lang.L("Quit"), u.quit)
	quit.IsQuit = true
	return fyne.NewMenu("Parley",
		fyne.NewMenuItem(l[0], u.toggleShown),
		fyne.NewMenuItem(lang.L("New conversation"), func() {
			u.Present()
			if u.main != nil && u.topDialog() == nil {
				u.main.newConversation()
			}
		}),
		fyne.NewMenuItem(l[1], func() {
			if u.main == nil {
				u.Present() // the welcome screen: nothing to talk to yet
				return
			}
			u.toggleVoiceMode()
		}),
		fyne.NewMenuItem(l[2], u.toggleMute),
		fyne.NewMenuItemSeparator(),
		quit,
	)
}

// refresh sets the tray's menu and icon for the app's state (the menu only when its words
// changed: setting it rebuilds it over D-Bus).
func (t *tray) refresh() {
	if t == nil || t.waiting {
		return
	}
	// The icon before the first menu: Fyne starts the tray with the first menu, and shows the
	// icon set by then, else the app's own (which, set from another goroutine, could land after
	// this one and stay).
	t.setIcon()
	if l := t.menuLabels(); !t.built || l != t.labels {
		t.labels, t.built = l, true
		t.d.SetSystemTrayMenu(t.menu())
	}
}

// refreshIcon shows the voice state on the icon, and the menu's words for it.
func (t *tray) refreshIcon() {
	if t == nil || t.waiting {
		return
	}
	if l := t.menuLabels(); t.built && l != t.labels {
		t.refresh()
		return
	}
	t.setIcon()
}

// setIcon shows the voice state on the icon and in its tooltip, when it changed.
func (t *tray) setIcon() {
	s := t.u.voiceState()
	if s == t.shown {
		return
	}
	t.shown = s
	t.d.SetSystemTrayIcon(trayIcon(s))
	if t.u.deps.TrayTooltip != nil {
		t.u.deps.TrayTooltip(s.tooltip())
	}
}

// voiceState is what the microphone and the speakers do.
func (u *UI) voiceState() trayState {
	st := u.talk.State()
	switch {
	case st.Muted:
		return trayMuted
	case st.Speaking, st.Mode != talk.Off && st.Loop == voice.Speaking:
		return traySpeaking
	case st.Recording:
		return trayListening
	case st.Mode != talk.Off && st.Loop == voice.Waiting:
		// The microphone is open, and heard on this computer alone: the badge shows once a
		// question is listened for.
		return trayIdle
	case st.Mode != talk.Off:
		return trayListening
	}
	return trayIdle
}

// toggleMute mutes or unmutes the microphone: voice mode hears nothing and the hold-to-talk
// key records nothing until unmuted.
func (u *UI) toggleMute() {
	u.talk.ToggleMute()
}

var (
	trayIconsOnce sync.Once
	trayIcons     [4]fyne.Resource
)

// trayIcon is the tray's icon for a state: the app's icon with a badge (red while listening,
// green while speaking), or greyed with a slash when muted.
func trayIcon(s trayState) fyne.Resource {
	trayIconsOnce.Do(func() {
		base, err := png.Decode(bytes.NewReader(assets.Icon48PNG))
		if err != nil {
			panic("the embedded tray icon does not decode: " + err.Error())
		}
		for _, st := range []trayState{trayIdle, trayListening, traySpeaking, trayMuted} {
			img := image.NewRGBA(base.Bounds())
			draw.Draw(img, img.Bounds(), base, base.Bounds().Min, draw.Src)
			switch st {
			case trayListening:
				badge(img, color.RGBA{0xe5, 0x39, 0x35, 0xff})
			case traySpeaking:
				badge(img, color.RGBA{0x2e, 0x9d, 0x4f, 0xff})
			case trayMuted:
				grey(img)
				slash(img, color.RGBA{0xe5, 0x39, 0x35, 0xff})
			}
			var b bytes.Buffer
			png.Encode(&b, img)
			trayIcons[st] = fyne.NewStaticResource("parley-tray-"+st.String()+".png", b.Bytes())
		}
	})
	return trayIcons[s]
}

// badge draws a filled circle with a white ring at the icon's lower right corner.
func badge(img *image.RGBA, c color.RGBA) {
	b := img.Bounds()
	r := float64(b.Dx()) * 0.2
	cx, cy := float64(b.Max.X)-r-1, float64(b.Max.Y)-r-1
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			d := math.Hypot(float64(x)+0.5-cx, float64(y)+0.5-cy)
			switch {
			case d <= r-1.5:
				img.SetRGBA(x, y, c)
			case d <= r:
				img.SetRGBA(x, y, color.RGBA{0xff, 0xff, 0xff, 0xff})
			}
		}
	}
}

// grey takes the colour out of the icon and dims it.
func grey(img *image.RGBA) {
	for i := 0; i+3 < len(img.Pix); i += 4 {
		p := img.Pix[i : i+4]
		l := uint8((uint32(p[0])*30 + uint32(p[1])*59 + uint32(p[2])*11) / 100)
		p[0], p[1], p[2], p[3] = l, l, l, p[3]*6/10
	}
}

// slash draws a diagonal bar across the icon.
func slash(img *image.RGBA, c color.RGBA) {
	b := img.Bounds()
	w := float64(b.Dx())
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			// distance from the line x = y
			if d := math.Abs(float64(x-b.Min.X)-float64(y-b.Min.Y)) / math.Sqrt2; d <= w*0.06 {
				img.SetRGBA(x, y, c)
			}
		}
	}
}
