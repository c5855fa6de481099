package app

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"parley/audio"
	"parley/client"
	"parley/desktop/hotkey"
	"parley/media"
)

// prefsDialog is the Preferences dialog on screen: its scroll and the objects laid out in it.
type prefsDialog struct {
	sc    *container.Scroll
	objs  []fyne.CanvasObject
	key   *keyField
	voice *choiceField
	save  *button
}

func openPreferences(t *testing.T, h *harness) prefsDialog {
	t.Helper()
	h.u.showPreferences()
	top := h.u.win.Canvas().Overlays().Top()
	p := prefsDialog{sc: scrollIn(top), objs: test.LaidOutObjects(top)}
	for _, o := range p.objs {
		switch w := o.(type) {
		case *keyField:
			p.key = w
		case *choiceField:
			p.voice = w
		case *button:
			if w.Text == "Save" {
				p.save = w
			}
		}
	}
	if p.sc == nil || p.key == nil || p.voice == nil || p.save == nil {
		t.Fatalf("Preferences is not as expected: %+v", p)
	}
	return p
}

// abs is o's top-left corner on the canvas.
func abs(o fyne.CanvasObject) fyne.Position {
	return fyne.CurrentApp().Driver().AbsolutePositionForObject(o)
}

// TestPreferences_WheelScrollsOverEveryField checks that the wheel scrolls the rows wherever
// the pointer is, over a text field too.
func TestPreferences_WheelScrollsOverEveryField(t *testing.T) {
	h := start(t, newFakeService())
	p := openPreferences(t, h)
	if p.sc.Content.MinSize().Height <= p.sc.Size().Height {
		t.Fatal("the rows fit without scrolling: the test needs a shorter window")
	}
	for name, o := range map[string]fyne.CanvasObject{"the talk key field": p.key, "the default voice": p.voice} {
		p.sc.ScrollToOffset(fyne.NewPos(0, 0))
		scrollIntoView(p.sc, o)
		before := p.sc.Offset.Y
		test.Scroll(h.u.win.Canvas(), abs(o).Add(fyne.NewPos(o.Size().Width/2, o.Size().Height/2)), 0, -40)
		if p.sc.Offset.Y == before {
			t.Errorf("the wheel over %s does not scroll the rows", name)
		}
	}
}

// TestPreferences_ScrollBarHasARoomOfItsOwn checks that no field, check box or button reaches
// under the scroll bar.
func TestPreferences_ScrollBarHasARoomOfItsOwn(t *testing.T) {
	h := start(t, newFakeService())
	p := openPreferences(t, h)
	edge := abs(p.sc).X + p.sc.Size().Width - theme.ScrollBarSize()
	n := 0
	for _, o := range test.LaidOutObjects(p.sc) {
		switch o.(type) {
		case *check, *button, *selector, *choiceField, *keyField, *slider:
			n++
			if right := abs(o).X + o.Size().Width; right > edge+0.5 {
				t.Errorf("%T ends at %v, under the scroll bar from %v", o, right, edge)
			}
		}
	}
	if n < 10 {
		t.Errorf("only %d controls found", n)
	}
}

// TestPreferences_TalkKeyWarningShows checks that what the line under the talk key field says
// is in view while the field has the keyboard, also when a key pressed makes it longer.
func TestPreferences_TalkKeyWarningShows(t *testing.T) {
	h := start(t, newFakeService())
	p := openPreferences(t, h)
	var state *widget.Label
	for _, o := range test.LaidOutObjects(p.sc) {
		if l, ok := o.(*widget.Label); ok && l.Text == h.u.gkey.state {
			state = l
		}
	}
	if state == nil {
		t.Fatalf("no line says %q", h.u.gkey.state)
	}
	inView := func(when string) {
		t.Helper()
		bottom := abs(state).Y + state.MinSize().Height
		if limit := abs(p.sc).Y + p.sc.Size().Height; bottom > limit+0.5 {
			t.Errorf("%s: the line under the key field ends at %v, below the rows' bottom %v: %q", when, bottom, limit, state.Text)
		}
	}
	h.u.win.Canvas().Focus(p.key)
	inView("focused")
	c, err := hotkey.Parse("Ctrl+Shift+M")
	if err != nil {
		t.Fatal(err)
	}
	p.key.onPressed(c, true)
	if !strings.Contains(state.Text, "Parley uses Ctrl+Shift+M") {
		t.Fatalf("the line says %q", state.Text)
	}
	inView("after a key that collides")
}

// TestPreferences_DefaultVoiceMustBeListed checks that a default voice the service does not
// have cannot be saved.
func TestPreferences_DefaultVoiceMustBeListed(t *testing.T) {
	svc := newFakeService()
	svc.VoiceList = []client.Voice{{Name: "flite-slt"}, {Name: "en-us"}}
	h := start(t, svc)
	p := openPreferences(t, h)
	p.voice.SetText("99999999")
	h.waitFor(func() bool { return p.save.Disabled() }) // once the service listed its voices
	h.u.topDialog().keys.submit()                       // Enter
	if h.u.prefs.defaultVoice() != "" || h.u.topDialog() == nil {
		t.Errorf("Enter saved %q", h.u.prefs.defaultVoice())
	}
	p.voice.SetText("en-us")
	test.Tap(p.save)
	if h.u.prefs.defaultVoice() != "en-us" {
		t.Errorf("saved %q", h.u.prefs.defaultVoice())
	}
}

// TestLevelMeter_StaysInItsRow checks that the meter's bar is hidden rather than drawn as a
// blob wider than itself at a level near nothing, follows the level, and stands in the middle
// of its line.
func TestLevelMeter_StaysInItsRow(t *testing.T) {
	test.NewTempApp(t)
	bar := widget.NewLabel("") // any object
	var level float32
	f := &fractionLayout{value: &level}
	f.Layout([]fyne.CanvasObject{bar}, fyne.NewSize(300, meterHeight))
	if bar.Visible() {
		t.Error("at level 0 the bar shows")
	}
	level = 0.5
	f.Layout([]fyne.CanvasObject{bar}, fyne.NewSize(300, meterHeight))
	if !bar.Visible() || bar.Size().Width != 150 {
		t.Errorf("at level 0.5: shown %v, width %v", bar.Visible(), bar.Size().Width)
	}
	level = 3 // never more than the row
	f.Layout([]fyne.CanvasObject{bar}, fyne.NewSize(300, meterHeight))
	if bar.Size().Width != 300 {
		t.Errorf("at level 3: width %v", bar.Size().Width)
	}
	row := meterRowLayout{}
	h := row.MinSize([]fyne.CanvasObject{bar}).Height
	row.Layout([]fyne.CanvasObject{bar}, fyne.NewSize(300, h))
	if y := bar.Position().Y; y != (h-meterHeight)/2 || bar.Size().Height != meterHeight {
		t.Errorf("the meter at y %v, %v high, in a line %v high", y, bar.Size().Height, h)
	}
}

// levelRecorder is a microphone test's recorder that delivers levels, then waits to be stopped.
type levelRecorder struct {
	levels []audio.Level
	sent   chan struct{}
	pcm    media.PCM // what the take held, when it is stopped
}

func (r *levelRecorder) Record(ctx context.Context, opts audio.TakeOptions) (*audio.Take, error) {
	for _, l := range r.levels {
		select {
		case opts.Levels <- l:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	close(r.sent)
	<-ctx.Done()
	return &audio.Take{PCM: r.pcm, Reason: audio.StopCancelled}, nil
}

// voiced is a second of 16 kHz sound with harmonics up to top Hz, as a voice has.
func voiced(top float64) media.PCM {
	s := make([]int16, 16000)
	for i := range s {
		x := 0.0
		for f := 200.0; f <= top; f += 200 {
			x += 800 * math.Sin(2*math.Pi*f*float64(i)/16000) * 400 / f
		}
		s[i] = int16(x)
	}
	return media.PCM{Rate: 16000, Channels: 1, Samples: s}
}

func (r *levelRecorder) Stop() {}

// TestMicrophoneTest_JudgesTheWholeTest checks that a microphone that heard a voice and then
// silence is said to work, after the test too, and one that heard only silence is not.
func TestMicrophoneTest_JudgesTheWholeTest(t *testing.T) {
	speech := audio.Level{RMS: -22, Peak: -6}
	silence := audio.Level{RMS: -120, Peak: -120}
	for _, tc := range []struct {
		name   string
		levels []audio.Level
		want   string
		pcm    media.PCM
	}{
		{"a voice, then silence", append([]audio.Level{silence, speech, speech}, repeat(silence, 40)...),
			"The microphone works: the loudest sound was -22 dB.", voiced(7800)},
		{"a voice through a headset's hands-free mode", append([]audio.Level{silence, speech, speech}, repeat(silence, 40)...),
			"The microphone works (the loudest sound was -22 dB)." + narrowNote, voiced(3400)},
		{"only silence", repeat(silence, 40), "The microphone delivered only silence: check that it is on and not muted.", media.PCM{}},
		{"a voice cut off", append([]audio.Level{speech, {RMS: -3, Peak: 0}}, repeat(silence, 40)...),
			"The microphone works, but some sound was so loud that it was cut off (up to -3 dB): lower the input volume.", voiced(7800)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := start(t, newFakeService())
			rec := &levelRecorder{levels: tc.levels, sent: make(chan struct{}), pcm: tc.pcm}
			h.u.deps.NewRecorder = func() Recorder { return rec }
			var msg string
			ended := false
			stop := h.u.testMicrophone("", func(_ float32, m string) { msg = m }, func() { ended = true })
			h.waitFor(func() bool {
				select {
				case <-rec.sent:
					return true
				default:
					return false
				}
			})
			stop() // the person presses Stop
			h.waitFor(func() bool { return ended })
			if msg != tc.want {
				t.Errorf("after the test it says\n\t%q\nwant\n\t%q", msg, tc.want)
			}
		})
	}
	// While it runs: quiet after a voice is not "only silence".
	m := &micTest{}
	m.add(speech)
	if got := m.add(silence); !strings.HasPrefix(got, "The microphone works") {
		t.Errorf("silence after a voice: %q", got)
	}
}

func repeat(l audio.Level, n int) []audio.Level {
	out := make([]audio.Level, n)
	for i := range out {
		out[i] = l
	}
	return out
}

// selectorWith finds the selector of the dialog's objects that offers option.
func (p prefsDialog) selectorWith(t *testing.T, option string) *selector {
	t.Helper()
	for _, o := range p.objs {
		if s, ok := o.(*selector); ok && slices.Contains(s.Options, option) {
			return s
		}
	}
	t.Fatalf("no choice offers %q", option)
	return nil
}

// The speech rate chosen is kept, and the replies spoken from then on play at it; the window's
// language chosen is kept for the next start.
func TestPreferences_SpeechRateAndLanguage(t *testing.T) {
	h := start(t, newFakeService())
	p := openPreferences(t, h)
	rate := p.selectorWith(t, "1.5×")
	if rate.Selected != "1×" {
		t.Errorf("speech rate %q before any choice, want 1×", rate.Selected)
	}
	if want := []string{"0.75×", "1×", "1.25×", "1.5×", "1.75×", "2×"}; !slices.Equal(rate.Options, want) {
		t.Errorf("speech rates %q, want %q", rate.Options, want)
	}
	rate.SetSelected("1.5×")
	language := p.selectorWith(t, "Deutsch")
	if !strings.HasPrefix(language.Selected, "The system's (") {
		t.Errorf("language %q before any choice, want the system's", language.Selected)
	}
	language.SetSelected("Українська")
	test.Tap(p.save)
	if got := h.u.prefs.speechRate(); got != 1.5 {
		t.Errorf("speech rate kept: %v, want 1.5", got)
	}
	if got := h.u.prefs.language(); got != "uk" {
		t.Errorf("language kept: %q, want uk", got)
	}
	h.u.app.Preferences().SetBool(prefAutoSpeak, true)
	h.typeAndSend("Where to")
	h.waitFor(func() bool { return len(h.player.Added) > 0 })
	if got := h.player.Speed(); got != 1.5 {
		t.Errorf("the reply plays at %v×, want 1.5×", got)
	}
	p = openPreferences(t, h)
	if got := p.selectorWith(t, "1.5×").Selected; got != "1.5×" {
		t.Errorf("Preferences shows %q, want the rate chosen", got)
	}
}
