package app

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"parley/audio"
	"parley/audio/vad"
	"parley/desktop/hotkey"
	"parley/engine"
)

// defaultDevice is how the preferences name the system's default input.
const defaultDevice = "System default"

// showPreferences opens the preferences: the microphone (with a live level to test it), the
// output volume, spoken replies, the default voice and preset, the silence that ends a
// recording, and what happens to a transcript.
func (u *UI) showPreferences() {
	prefs := u.prefs
	var d *dialog.CustomDialog
	keys := &dialogKeys{}

	device := newSelector(keys, []string{defaultDevice}, nil)
	device.SetSelected(defaultDevice)
	if d := prefs.inputDevice(); d != "" {
		device.Options = append(device.Options, d)
		device.SetSelected(d)
	}
	ids := map[string]string{defaultDevice: ""}
	meterBack := canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))
	meterBack.SetMinSize(fyne.NewSize(200, meterHeight))
	meterBack.CornerRadius = meterHeight / 2
	meter := canvas.NewRectangle(theme.Color(theme.ColorNameSuccess))
	meter.CornerRadius = meterHeight / 2
	var level float32
	// The meter stands in the middle of a line as high as the row's name, inside its row.
	meterBox := container.New(&meterRowLayout{}, container.NewStack(meterBack, container.New(&fractionLayout{value: &level}, meter)))
	testState := widget.NewLabel("")
	testState.SizeName = theme.SizeNameCaptionText
	testState.Wrapping = fyne.TextWrapWord // a long message wraps rather than widening the dialog
	testState.Hide()                       // no empty line under the meter until there is news
	say := func(msg string) {
		testState.SetText(msg)
		testState.Hidden = msg == ""
		testState.Refresh()
	}
	var testCancel context.CancelFunc
	stopTest := func() {
		if testCancel != nil {
			testCancel()
			testCancel = nil
		}
	}
	testBtn := newButton(keys, "Test", theme.MediaRecordIcon(), nil)
	testBtn.OnTapped = func() {
		if testCancel != nil {
			stopTest()
			return
		}
		testCancel = u.testMicrophone(ids[device.Selected], func(l float32, msg string) {
			level = l
			meter.Refresh()
			meterBox.Refresh()
			say(msg)
		}, func() {
			testCancel = nil
			testBtn.SetText("Test")
			level = 0
			meterBox.Refresh()
		})
		testBtn.SetText("Stop test")
	}
	if u.deps.InputDevices != nil {
		go func() {
			ctx, cancel := context.WithTimeout(u.ctx, 5*time.Second)
			defer cancel()
			devs, err := u.deps.InputDevices(ctx)
			u.do(func() {
				if err != nil {
					say(phrase(err).text)
					return
				}
				opts := []string{defaultDevice}
				for _, d := range devs {
					opts = append(opts, d.Name)
					ids[d.Name] = d.ID
				}
				device.Options = opts
				device.Refresh()
			})
		}()
	}

	volume := newSlider(keys, 0, 1)
	volume.Step = 0.05
	volume.SetValue(prefs.volume())
	autoSpeak := newCheck(keys, "Speak replies aloud", nil)
	autoSpeak.SetChecked(prefs.autoSpeak())
	voiceName := newChoiceField(keys)
	voiceName.SetPlaceHolder("the service's default")
	voiceName.SetText(prefs.defaultVoice())
	voiceProblemText := widget.NewLabel("")
	voiceProblemText.Wrapping = fyne.TextWrapWord
	voiceProblemText.Importance = widget.DangerImportance
	voiceProblemText.SizeName = theme.SizeNameCaptionText
	voiceProblemText.Hide()
	var voices []string
	listed := false
	var saveBtn *button
	checkVoice := func() {
		p := voiceProblem(strings.TrimSpace(voiceName.Text), voices, listed, prefs.defaultVoice())
		voiceProblemText.SetText(p)
		voiceProblemText.Hidden = p == ""
		voiceProblemText.Refresh()
		if saveBtn != nil {
			if p != "" {
				saveBtn.Disable()
			} else {
				saveBtn.Enable()
			}
		}
	}
	voiceName.OnChanged = func(string) { checkVoice() }
	if u.conn != nil {
		svc := u.conn.svc // read here: the goroutine must not read the window's state
		go func() {
			ctx, cancel := context.WithTimeout(u.ctx, defaultCallTimeout)
			defer cancel()
			if vs, err := svc.Voices(ctx); err == nil && len(vs) > 0 {
				var names []string
				for _, v := range vs {
					names = append(names, v.Name)
				}
				u.do(func() {
					voices, listed = names, true
					voiceName.SetOptions(names)
					checkVoice()
				})
			}
		}()
	}
	var presetNames []string
	for _, p := range (presetBook{prefs}).all() {
		presetNames = append(presetNames, p.Name)
	}
	preset := newSelector(keys, presetNames, nil)
	preset.SetSelected(prefs.defaultPreset())

	holdLabel := widget.NewLabel("")
	hold := newSlider(keys, float64(vad.MinHold/time.Millisecond), float64(vad.MaxHold/time.Millisecond))
	hold.Step = 100
	hold.OnChanged = func(v float64) { holdLabel.SetText(strconv.FormatFloat(v/1000, 'f', 1, 64) + " s") }
	hold.SetValue(float64(prefs.hold() / time.Millisecond))
	sendSpoken := newSelector(keys, []string{"Put it in the message box to review", "Send it at once"}, nil)
	sendSpoken.SetSelected(sendSpoken.Options[0])
	if prefs.sendSpoken() {
		sendSpoken.SetSelected(sendSpoken.Options[1])
	}

	bargeIn := newCheck(keys, "Speaking over a reply interrupts it (barge-in)", nil)
	bargeIn.SetChecked(prefs.bargeIn())
	adaptiveHold := newCheck(keys, "End a question sooner when it sounds complete, later after \"and\"", nil)
	adaptiveHold.SetChecked(prefs.adaptiveHold())
	speakErrors := newCheck(keys, "Say aloud when something goes wrong", nil)
	speakErrors.SetChecked(prefs.speakErrors())

	talkKey := u.talkKeyRow(keys)
	u.lastTalkKey = talkKey
	keepInTray := newCheck(keys, "Keep running in the tray when the window is closed", nil)
	keepInTray.SetChecked(prefs.keepInTray())
	if u.tray == nil || !u.tray.hostPresent() {
		keepInTray.SetText("Keep running in the tray when the window is closed (no tray on this desktop now)")
	}
	atLogin := newCheck(keys, "Start Parley in the tray when I log in", nil)
	wasAtLogin := false
	if u.deps.Autostart != nil {
		wasAtLogin, _ = u.deps.Autostart.Enabled()
		atLogin.SetChecked(wasAtLogin)
	} else {
		atLogin.Disable()
	}
	atLogin.OnChanged = func(on bool) {
		// Started in the tray, Parley is expected to go back there when its window is
		// closed; the person may still untick that.
		if on {
			keepInTray.SetChecked(true)
		}
	}

	form := widget.NewForm(
		widget.NewFormItem("Microphone", border(nil, nil, nil, testBtn, device)),
		widget.NewFormItem("Level", container.NewVBox(meterBox, testState)),
		widget.NewFormItem("Silence that ends a recording", border(nil, nil, nil, holdLabel, hold)),
		widget.NewFormItem("What you said", sendSpoken),
		widget.NewFormItem("Output volume", volume),
		widget.NewFormItem("Replies", autoSpeak),
		widget.NewFormItem("Default voice", container.NewVBox(voiceName, voiceProblemText)),
		widget.NewFormItem("Voice mode", container.NewVBox(bargeIn, adaptiveHold, speakErrors)),
		widget.NewFormItem("New conversations use", preset),
		widget.NewFormItem("Talk from anywhere", talkKey.box),
		widget.NewFormItem("In the background", container.NewVBox(keepInTray, atLogin)),
	)
	if u.deps.Local != nil {
		summary := widget.NewLabel(u.builtInSummary())
		engines := newButton(keys, "Change…", theme.SettingsIcon(), func() {
			u.showEnginesThen(func(c engine.Chat) { summary.SetText("Answers with " + c.Short()) })
		})
		summary.Wrapping = fyne.TextWrapWord
		form.Append("Built-in service", border(nil, nil, nil, engines, summary))
		u.offerFoundModel(summary)
	}
	save := func() {
		stopTest()
		dev := device.Selected
		if dev == defaultDevice {
			dev = ""
		} else if id := ids[dev]; id != "" {
			dev = id
		}
		prefs.setInputDevice(dev)
		prefs.setVolume(volume.Value)
		prefs.setAutoSpeak(autoSpeak.Checked)
		prefs.setDefaultVoice(strings.TrimSpace(voiceName.Text))
		prefs.setDefaultPreset(preset.Selected)
		prefs.setHold(time.Duration(hold.Value) * time.Millisecond)
		prefs.setSendSpoken(sendSpoken.Selected == sendSpoken.Options[1])
		prefs.setBargeIn(bargeIn.Checked)
		prefs.setAdaptiveHold(adaptiveHold.Checked)
		prefs.setSpeakErrors(speakErrors.Checked)
		u.talk.SetVolume(volume.Value)
		talkKey.save()
		prefs.setKeepInTray(keepInTray.Checked)
		if u.deps.Autostart != nil && atLogin.Checked != wasAtLogin {
			u.setStartAtLogin(atLogin.Checked)
		}
	}
	keys.submit = func() {
		if saveBtn.Disabled() {
			return // Enter in a field while the default voice is refused: it says why
		}
		save()
		d.Hide()
	}
	keys.cancel = func() { stopTest(); talkKey.cancel(); d.Hide() }
	saveBtn = newButton(keys, "Save", theme.ConfirmIcon(), keys.submit)
	saveBtn.Importance = widget.HighImportance
	checkVoice()
	cancel := newButton(keys, "Cancel", theme.CancelIcon(), keys.cancel)
	hint := widget.NewLabel("Enter saves · Esc cancels")
	hint.SizeName = theme.SizeNameCaptionText
	// In a window too short for every row, the rows scroll, following the keyboard; the wheel
	// scrolls them wherever the pointer is (a text field would keep it), and the scroll bar has
	// a margin of its own, off the fields.
	wheel := &wheelToScroll{}
	rows := container.NewStack(container.New(layout.NewCustomPaddedLayout(0, 0, 0, theme.ScrollBarSize()), form), wheel)
	sc := dialogScroll(u.win, keys, rows, 190)
	wheel.to = sc
	onFocus := keys.onFocus
	keys.onFocus = func(o fyne.CanvasObject) {
		if o == talkKey.field {
			o = talkKey.box // the line under the field says how the keys stand: it shows too
		}
		onFocus(o)
	}
	talkKey.onChange = func() {
		if u.win.Canvas().Focused() == talkKey.field {
			sc.Refresh() // the line may have grown: lay the rows out again first
			scrollIntoView(sc, talkKey.box)
		}
	}
	content := container.NewVBox(sc, border(nil, nil, hint, container.NewHBox(cancel, saveBtn)))
	d = dialog.NewCustomWithoutButtons("Preferences", content, u.win)
	d.Resize(fyne.NewSize(600, 0))
	u.showDialog(d, keys, device)
}

// testMicrophone records from device and reports its level until cancelled (or 15 s); done
// is called at the end. Nothing is uploaded.
func (u *UI) testMicrophone(device string, level func(float32, string), done func()) context.CancelFunc {
	ctx, cancel := context.WithTimeout(u.ctx, 15*time.Second)
	if u.deps.NewRecorder == nil {
		level(0, phrase(audio.ErrNoDevice).text)
		cancel()
		done()
		return nil
	}
	rec := u.deps.NewRecorder()
	levels := make(chan audio.Level, 8)
	heard := &micTest{}
	go func() {
		var last time.Time
		for {
			select {
			case <-ctx.Done():
				return
			case l := <-levels:
				if ctx.Err() != nil {
					return // the test ended: its summary is said
				}
				msg := heard.add(l) // every reading counts, shown or not
				// The meter moves at most meterRate times a second: more is not seen, and
				// each change redraws the dialog.
				if time.Since(last) < time.Second/meterRate {
					continue
				}
				last = time.Now()
				v := float32(max(0, min(1, (l.RMS+60)/60)))
				u.do(func() { level(v, msg) })
			}
		}
	}()
	go func() {
		// Through silence: a muted microphone may be unmuted during the test.
		_, err := rec.Record(ctx, audio.TakeOptions{Device: device, Levels: levels, Encoding: audio.EncodingWAV, ThroughSilence: true})
		ended := ctx.Err() != nil
		cancel() // no reading after this one's message
		u.do(func() {
			if err != nil && !ended {
				level(0, phrase(err).text)
			} else if sum := heard.summary(); sum != "" {
				level(0, sum) // what the whole test heard, not its last moment
			}
			done()
		})
	}()
	return cancel
}

// micTest is what a microphone test heard over its whole length: once it heard a voice's level,
// the microphone works, whatever silence follows.
type micTest struct {
	mu       sync.Mutex
	readings int
	loudest  audio.Level // the reading with the highest RMS
	sound    bool        // anything but digital silence
	works    bool        // a voice's level, not cut off
	clipped  bool        // a reading cut off at full scale
}

// add counts a reading and says what the test has found so far.
func (t *micTest) add(l audio.Level) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.readings++
	if t.readings == 1 || l.RMS > t.loudest.RMS {
		t.loudest = l
	}
	t.sound = t.sound || l.Peak > -120
	t.clipped = t.clipped || l.Peak >= -1
	t.works = t.works || (l.Peak > -120 && l.Peak < -1 && l.RMS >= -65)
	now := micTestMessage(l)
	if t.works && (l.Peak <= -120 || l.RMS < -65) {
		// Quiet now, after a voice was heard: that proves nothing against the microphone.
		return fmt.Sprintf("The microphone works: it heard sound at %.0f dB. Quiet now.", t.loudest.RMS)
	}
	return now
}

// summary says what the whole test heard ("" before any reading).
func (t *micTest) summary() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.readings == 0:
		return ""
	case t.works && t.clipped:
		return fmt.Sprintf("The microphone works, but some sound was so loud that it was cut off (up to %.0f dB): lower the input volume.", t.loudest.RMS)
	case t.works:
		return fmt.Sprintf("The microphone works: the loudest sound was %.0f dB.", t.loudest.RMS)
	case t.clipped:
		return fmt.Sprintf("The microphone heard sound so loud that it was cut off (%.0f dB): lower the input volume.", t.loudest.RMS)
	case t.sound:
		return fmt.Sprintf("The microphone heard only very quiet sound (at most %.0f dB): speak closer, or raise the input volume.", t.loudest.RMS)
	}
	return "The microphone delivered only silence: check that it is on and not muted."
}

// meterRate is how many times a second a level meter moves, at most.
const meterRate = 15

// micTestMessage says what a reading of the microphone test means.
func micTestMessage(l audio.Level) string {
	switch {
	case l.Peak <= -120:
		return "Only silence so far: check that the microphone is on and not muted."
	case l.Peak >= -1:
		return fmt.Sprintf("Sound at %.0f dB, so loud that it is cut off: lower the input volume.", l.RMS)
	case l.RMS < -65:
		return fmt.Sprintf("Sound at %.0f dB, very quiet: speak, or move closer.", l.RMS)
	}
	return fmt.Sprintf("Sound at %.0f dB: the microphone works.", l.RMS)
}

// meterHeight is the height of the microphone test's level meter.
const meterHeight = 8

// fractionLayout sizes its one object to a fraction of the width; an object narrower than it is
// high is hidden, since its rounded corners would draw outside it.
type fractionLayout struct{ value *float32 }

func (f *fractionLayout) MinSize([]fyne.CanvasObject) fyne.Size { return fyne.NewSize(0, meterHeight) }

func (f *fractionLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	w := size.Width * max(0, min(1, *f.value))
	objs[0].Move(fyne.NewPos(0, 0))
	objs[0].Resize(fyne.NewSize(w, size.Height))
	if w < size.Height {
		objs[0].Hide()
	} else {
		objs[0].Show()
	}
}

// meterRowLayout gives its one object, the meter, the whole width and meterHeight, in the middle
// of a line as high as a label, so that it lines up with the name of its row.
type meterRowLayout struct{}

func (meterRowLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	return fyne.NewSize(objs[0].MinSize().Width, max(meterHeight, widget.NewLabel("").MinSize().Height))
}

func (meterRowLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	objs[0].Move(fyne.NewPos(0, (size.Height-meterHeight)/2))
	objs[0].Resize(fyne.NewSize(size.Width, meterHeight))
}

// wheelToScroll lies over a dialog's rows and hands the wheel to the dialog's scroll wherever
// the pointer is: a text field would otherwise take it and do nothing with it, so that the rows
// stop scrolling under the pointer. Taps and the keyboard pass through to the rows.
type wheelToScroll struct {
	widget.BaseWidget
	to *container.Scroll
}

func (w *wheelToScroll) CreateRenderer() fyne.WidgetRenderer {
	w.ExtendBaseWidget(w)
	return widget.NewSimpleRenderer(layout.NewSpacer())
}

// Scrolled scrolls the dialog's rows.
func (w *wheelToScroll) Scrolled(ev *fyne.ScrollEvent) {
	if w.to != nil {
		w.to.Scrolled(ev)
	}
}

// talkKeyRow is Preferences' row for the hold-to-talk key: the field that takes new keys, and
// a line that says how they stand.
type talkKeyRow struct {
	u     *UI
	field *keyField
	state *widget.Label
	box   fyne.CanvasObject
	// changed: a combination was pressed; combo and on are the last valid one.
	changed bool
	combo   hotkey.Combo
	on      bool
	checks  int // counts the checks started: a late one's answer is dropped
	// onChange, when set, is told each time the line under the field changes.
	onChange func()
}

func (u *UI) talkKeyRow(keys *dialogKeys) *talkKeyRow {
	c, on := u.prefs.hotkey()
	r := &talkKeyRow{u: u, combo: c, on: on}
	r.field = newKeyField(keys, c, on)
	r.state = widget.NewLabel(u.gkey.state)
	r.state.SizeName = theme.SizeNameCaptionText
	r.state.Wrapping = fyne.TextWrapWord
	u.gkey.onState = func() {
		if !r.changed {
			r.say(u.gkey.state)
		}
	}
	r.field.onFocus = func(focused bool) {
		if focused {
			u.gkey.pause()
		} else if !r.changed {
			u.gkey.resume()
		}
	}
	r.field.onPressed = r.pressed
	r.box = container.NewVBox(r.field, r.state)
	return r
}

// say shows how the keys stand, under the field.
func (r *talkKeyRow) say(text string) {
	r.state.SetText(text)
	if r.onChange != nil {
		r.onChange()
	}
}

// pressed says what a combination pressed in the field collides with, and whether another
// program holds it.
func (r *talkKeyRow) pressed(c hotkey.Combo, on bool) {
	r.checks++
	if !on {
		r.changed, r.on = true, false
		r.say("Off: no key will talk to Parley from other programs. Save to keep it.")
		return
	}
	conflicts := keyConflicts(c)
	if c.Valid() != nil {
		r.say(conflicts)
		return
	}
	r.changed, r.combo, r.on = true, c, true
	r.say(strings.TrimSpace(fmt.Sprintf("Checking %s… %s", c, conflicts)))
	n := r.checks
	r.u.gkey.check(c, func(state string, free bool) {
		if n == r.checks {
			r.say(strings.TrimSpace(state + " " + conflicts))
		}
	})
}

// save keeps the key chosen, and registers it.
func (r *talkKeyRow) save() {
	r.u.gkey.onState = nil
	if !r.changed {
		r.u.gkey.resume()
		return
	}
	r.u.prefs.setHotkey(r.combo, r.on)
	r.u.gkey.paused = false
	r.u.gkey.set(r.combo, r.on)
}

// cancel takes the key in use back.
func (r *talkKeyRow) cancel() {
	r.u.gkey.onState = nil
	r.u.gkey.resume()
}

// setStartAtLogin writes or removes the entry that starts Parley at login.
func (u *UI) setStartAtLogin(on bool) {
	a := u.deps.Autostart
	go func() {
		var err error
		if on {
			err = a.Enable()
		} else {
			err = a.Disable()
		}
		if err != nil {
			u.do(func() { u.flash("Parley could not change how it starts at login: " + err.Error()) })
		}
	}()
}
