package app

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"parley/app/locale"
	"parley/audio"
	"parley/audio/playback"
	"parley/audio/vad"
	"parley/audio/wake"
	"parley/desktop/hotkey"
	"parley/engine"
	"parley/internal/i18n"
	"parley/media"
)

// preferencesDialog is Preferences: the microphone (with a live level to test it), the output
// volume, spoken replies, the default voice and preset, the silence that ends a recording, what
// happens to a transcript, voice mode, the hold-to-talk key, the tray, and the built-in service.
// It has the shape of every dialog of the window: a struct holding its widgets and what it
// needs, with build, save and cancel.
type preferencesDialog struct {
	u    *UI
	keys *dialogKeys
	d    *dialog.CustomDialog

	device     *selector
	ids        map[string]string // device IDs by the names listed, after the first: the system's default
	level      float32           // the microphone test's level, 0–1
	meter      *canvas.Rectangle
	meterBox   *fyne.Container
	testState  *widget.Label
	testBtn    *button
	testCancel context.CancelFunc // ends the microphone test under way

	volume       *slider
	speechRate   *selector
	language     *selector
	autoSpeak    *check
	voiceName    *choiceField
	voiceProblem *widget.Label
	voices       []string // the service's voices
	listed       bool     // the service listed them
	preset       *selector
	// speechLang offers speechLangs, the speech languages' codes in its order.
	speechLang  *selector
	speechLangs []string
	// languages are those the language's choice offers after the system's (locale.Available).
	languages    []locale.Language
	holdLabel    *widget.Label
	hold         *slider
	sendSpoken   *selector
	bargeIn      *check
	adaptiveHold *check
	speakErrors  *check
	wakeWord     *check
	wakePhrase   *selector
	followUp     *selector
	talkKey      *talkKeyRow
	keepInTray   *check
	atLogin      *check
	theme        *selector
	textSize     *selector
	sizes        []int // the text sizes textSize lists, in percent
	wasAtLogin   bool
	saveBtn      *button
}

// showPreferences opens Preferences.
func (u *UI) showPreferences() {
	p := &preferencesDialog{u: u, keys: &dialogKeys{}, ids: map[string]string{}}
	content := p.build()
	p.d = dialog.NewCustomWithoutButtons(lang.L("Preferences"), content, u.win)
	p.d.Resize(fyne.NewSize(600, 0))
	u.showDialogOf(p, p.d, p.keys, p.device)
	p.loadDevices()
	p.loadVoices()
}

// build makes the dialog's widgets, filled from the preferences, and returns its content.
func (p *preferencesDialog) build() fyne.CanvasObject {
	u, keys := p.u, p.keys
	form := newForm(
		widget.NewFormItem(lang.L("Microphone"), border(nil, nil, nil, p.buildMicTest(), p.buildDevice())),
		widget.NewFormItem(lang.L("Level"), container.NewVBox(p.meterBox, p.testState)),
		widget.NewFormItem(lang.L("Silence that ends a recording"), p.buildHold()),
		widget.NewFormItem(lang.L("What you said"), p.buildSendSpoken()),
		widget.NewFormItem(lang.L("Output volume"), p.buildVolume()),
		widget.NewFormItem(lang.L("Speech rate"), p.buildSpeechRate()),
		widget.NewFormItem(lang.L("Replies"), p.buildAutoSpeak()),
		widget.NewFormItem(lang.L("Default voice"), p.buildVoice()),
		widget.NewFormItem(lang.L("Speech language"), p.buildSpeechLanguage()),
		widget.NewFormItem(lang.L("Voice mode"), p.buildVoiceMode()),
		widget.NewFormItem(lang.L("Wake phrase"), p.buildWake()),
		widget.NewFormItem(lang.L("New conversations use"), p.buildPreset()),
		widget.NewFormItem(lang.L("Appearance"), p.buildAppearance()),
		widget.NewFormItem(lang.L("Language"), p.buildLanguage()),
		widget.NewFormItem(lang.L("Talk from anywhere"), p.buildTalkKey()),
		widget.NewFormItem(lang.L("In the background"), p.buildBackground()),
	)
	if u.deps.Local != nil {
		summary := widget.NewLabel(u.builtInSummary())
		engines := newButton(keys, lang.L("Change…"), theme.SettingsIcon(), func() {
			u.showEnginesThen(func(c engine.Chat) { summary.SetText(fmt.Sprintf(lang.L("Answers with %s"), c.Short())) })
		})
		summary.Wrapping = fyne.TextWrapWord
		form.Append(lang.L("Built-in service"), border(nil, nil, nil, engines, summary))
		u.offerFoundModel(summary)
	}
	keys.submit = p.submit
	keys.cancel = p.cancel
	p.saveBtn = newButton(keys, lang.L("Save"), theme.ConfirmIcon(), p.submit)
	p.saveBtn.Importance = widget.HighImportance
	p.checkVoice()
	cancel := newButton(keys, lang.L("Cancel"), theme.CancelIcon(), p.cancel)
	hint := widget.NewLabel(lang.L("Enter saves · Esc cancels"))
	hint.SizeName = theme.SizeNameCaptionText
	return container.NewVBox(p.scrollRows(form), border(nil, nil, hint, container.NewHBox(cancel, p.saveBtn)))
}

// scrollRows puts the form's rows in a scroll: in a window too short for every row, they scroll,
// following the keyboard; the wheel scrolls them wherever the pointer is (a text field would
// keep it), and the scroll bar has a margin of its own, off the fields.
func (p *preferencesDialog) scrollRows(form *widget.Form) fyne.CanvasObject {
	u, keys, talkKey := p.u, p.keys, p.talkKey
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
	return sc
}

// buildDevice makes the microphone's list, with the one chosen.
func (p *preferencesDialog) buildDevice() fyne.CanvasObject {
	p.device = newSelector(p.keys, []string{lang.L("System default")}, nil)
	p.device.SetSelectedIndex(0)
	if d := p.u.prefs.inputDevice(); d != "" {
		p.device.Options = append(p.device.Options, d)
		p.device.SetSelected(d)
	}
	return p.device
}

// buildMicTest makes the microphone test: its button, and the meter and line it moves.
func (p *preferencesDialog) buildMicTest() fyne.CanvasObject {
	meterBack := canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))
	meterBack.SetMinSize(fyne.NewSize(200, meterHeight))
	meterBack.CornerRadius = meterHeight / 2
	p.meter = canvas.NewRectangle(theme.Color(theme.ColorNameSuccess))
	p.meter.CornerRadius = meterHeight / 2
	// The meter stands in the middle of a line as high as the row's name, inside its row.
	p.meterBox = container.New(&meterRowLayout{}, container.NewStack(meterBack, container.New(&fractionLayout{value: &p.level}, p.meter)))
	p.testState = widget.NewLabel("")
	p.testState.SizeName = theme.SizeNameCaptionText
	p.testState.Wrapping = fyne.TextWrapWord // a long message wraps rather than widening the dialog
	p.testState.Hide()                       // no empty line under the meter until there is news
	p.testBtn = newButton(p.keys, lang.L("Test"), theme.MediaRecordIcon(), p.toggleMicTest)
	p.testBtn.name = lang.L("Test the microphone")
	return p.testBtn
}

// say shows the microphone test's news under the meter.
func (p *preferencesDialog) say(msg string) {
	p.testState.SetText(msg)
	p.testState.Hidden = msg == ""
	p.testState.Refresh()
}

// toggleMicTest starts the microphone test, or stops the one under way.
func (p *preferencesDialog) toggleMicTest() {
	if p.testCancel != nil {
		p.stopMicTest()
		return
	}
	p.testCancel = p.u.testMicrophone(p.chosenDevice(), func(l float32, msg string) {
		p.level = l
		p.meter.Refresh()
		p.meterBox.Refresh()
		p.say(msg)
	}, func() {
		p.testCancel = nil
		p.testBtn.SetText(lang.L("Test"))
		p.testBtn.name = lang.L("Test the microphone")
		p.level = 0
		p.meterBox.Refresh()
	})
	p.testBtn.SetText(lang.L("Stop test"))
	p.testBtn.name = lang.L("Stop the microphone test")
}

// chosenDevice is the ID of the microphone chosen: "" for the system's default, else the ID of
// the one listed, else the one kept (its ID, shown before the list came).
func (p *preferencesDialog) chosenDevice() string {
	if p.device.SelectedIndex() == 0 {
		return ""
	}
	if id := p.ids[p.device.Selected]; id != "" {
		return id
	}
	return p.device.Selected
}

// stopMicTest ends the microphone test under way.
func (p *preferencesDialog) stopMicTest() {
	if p.testCancel != nil {
		p.testCancel()
		p.testCancel = nil
	}
}

// loadDevices lists the microphones, on a goroutine of its own.
func (p *preferencesDialog) loadDevices() {
	u := p.u
	if u.deps.InputDevices == nil {
		return
	}
	list := u.deps.InputDevices
	go func() {
		ctx, cancel := context.WithTimeout(u.ctx, 5*time.Second)
		defer cancel()
		devs, err := list(ctx)
		u.do(func() {
			if err != nil {
				p.say(phrase(err).text)
				return
			}
			opts := []string{lang.L("System default")}
			for _, d := range devs {
				opts = append(opts, d.Name)
				p.ids[d.Name] = d.ID
			}
			p.device.Options = opts
			p.device.Refresh()
		})
	}()
}

func (p *preferencesDialog) buildVolume() fyne.CanvasObject {
	p.volume = newSlider(p.keys, 0, 1)
	p.volume.Step = 0.05
	p.volume.SetValue(p.u.prefs.volume())
	return p.volume
}

func (p *preferencesDialog) buildAutoSpeak() fyne.CanvasObject {
	p.autoSpeak = newCheck(p.keys, lang.L("Speak replies aloud"), nil)
	p.autoSpeak.SetChecked(p.u.prefs.autoSpeak())
	return p.autoSpeak
}

// buildVoice makes the default voice's field, and the line that says what is wrong with it.
func (p *preferencesDialog) buildVoice() fyne.CanvasObject {
	p.voiceName = newChoiceField(p.keys)
	p.voiceName.SetPlaceHolder(lang.L("the service's default"))
	p.voiceName.SetText(p.u.prefs.defaultVoice())
	p.voiceProblem = widget.NewLabel("")
	p.voiceProblem.Wrapping = fyne.TextWrapWord
	p.voiceProblem.Importance = widget.DangerImportance
	p.voiceProblem.SizeName = theme.SizeNameCaptionText
	p.voiceProblem.Hide()
	p.voiceName.OnChanged = func(string) { p.checkVoice() }
	return container.NewVBox(p.voiceName, p.voiceProblem)
}

// buildSpeechLanguage is the language questions are spoken in, unless a conversation's settings
// name another: told by the recogniser, or one.
func (p *preferencesDialog) buildSpeechLanguage() fyne.CanvasObject {
	var options []string
	options, p.speechLangs = speechLanguageOptions(autoSpeechLanguage())
	p.speechLang = newSelector(p.keys, options, nil)
	p.speechLang.SetSelectedIndex(max(slices.Index(p.speechLangs, p.u.prefs.speechLanguage()), 0))
	note := widget.NewLabel(lang.L("Sent to Parley's own service with each spoken question, unless a conversation's settings name another."))
	note.SizeName = theme.SizeNameCaptionText
	note.Wrapping = fyne.TextWrapWord
	return container.NewVBox(p.speechLang, note)
}

// checkVoice says what is wrong with the default voice, if anything; Save waits for it.
func (p *preferencesDialog) checkVoice() {
	msg := voiceProblem(strings.TrimSpace(p.voiceName.Text), p.voices, p.listed, p.u.prefs.defaultVoice())
	p.voiceProblem.SetText(msg)
	p.voiceProblem.Hidden = msg == ""
	p.voiceProblem.Refresh()
	if p.saveBtn != nil {
		if msg != "" {
			p.saveBtn.Disable()
		} else {
			p.saveBtn.Enable()
		}
	}
}

// loadVoices lists the service's voices, on a goroutine of its own.
func (p *preferencesDialog) loadVoices() {
	u := p.u
	if u.conn() == nil {
		return
	}
	svc := u.conn().svc // read here: the goroutine must not read the window's state
	go func() {
		ctx, cancel := context.WithTimeout(u.ctx, defaultCallTimeout)
		defer cancel()
		if vs, err := svc.Voices(ctx); err == nil && len(vs) > 0 {
			var names []string
			for _, v := range vs {
				names = append(names, v.Name)
			}
			u.do(func() {
				p.voices, p.listed = names, true
				p.voiceName.SetOptions(names)
				p.checkVoice()
			})
		}
	}()
}

func (p *preferencesDialog) buildPreset() fyne.CanvasObject {
	book := presetBook{p.u.prefs}
	p.preset = newSelector(p.keys, presetTitles(book.all()), nil)
	if i := presetIndex(book.all(), p.u.prefs.defaultPreset()); i >= 0 {
		p.preset.SetSelectedIndex(i)
	}
	return p.preset
}

func (p *preferencesDialog) buildHold() fyne.CanvasObject {
	p.holdLabel = widget.NewLabel("")
	p.hold = newSlider(p.keys, float64(vad.MinHold/time.Millisecond), float64(vad.MaxHold/time.Millisecond))
	p.hold.Step = 100
	p.hold.shown = p.holdLabel
	p.hold.OnChanged = func(v float64) {
		p.holdLabel.SetText(fmt.Sprintf(lang.L("%s s"), i18n.Decimal(v/1000, 1)))
	}
	p.hold.SetValue(float64(p.u.prefs.hold() / time.Millisecond))
	return border(nil, nil, nil, p.holdLabel, p.hold)
}

func (p *preferencesDialog) buildSendSpoken() fyne.CanvasObject {
	p.sendSpoken = newSelector(p.keys, []string{lang.L("Put it in the message box to review"), lang.L("Send it at once")}, nil)
	p.sendSpoken.SetSelectedIndex(0)
	if p.u.prefs.sendSpoken() {
		p.sendSpoken.SetSelectedIndex(1)
	}
	return p.sendSpoken
}

func (p *preferencesDialog) buildVoiceMode() fyne.CanvasObject {
	prefs := p.u.prefs
	p.bargeIn = newCheck(p.keys, lang.L("Speaking over a reply interrupts it (barge-in)"), nil)
	p.bargeIn.SetChecked(prefs.bargeIn())
	p.adaptiveHold = newCheck(p.keys, lang.L("End a question when it sounds complete"), nil)
	p.adaptiveHold.SetChecked(prefs.adaptiveHold())
	p.speakErrors = newCheck(p.keys, lang.L("Say aloud when something goes wrong"), nil)
	p.speakErrors.SetChecked(prefs.speakErrors())
	echoNote := widget.NewLabel(p.u.echoNote())
	echoNote.Wrapping = fyne.TextWrapWord
	echoNote.SizeName = theme.SizeNameCaptionText
	return container.NewVBox(p.bargeIn, echoNote, p.adaptiveHold, p.speakErrors)
}

// echoNote says what the echo canceller does for voice mode, and how loud a person must speak
// to interrupt a reply.
func (u *UI) echoNote() string {
	err := errors.New("none")
	if u.deps.EchoCancel != nil {
		err = u.deps.EchoCancel()
	}
	switch {
	case err == nil:
		return lang.L("Parley removes its own voice from what the microphone records, so a question asked over a reply is heard clearly. To interrupt a reply, speak over it in a normal voice: it need not be louder.")
	case runtime.GOOS == "linux":
		return lang.L("Without an echo canceller (install the libspeexdsp1 package), a question asked over a reply is recorded with Parley's voice under it. To interrupt a reply, speak clearly louder than it.")
	}
	return lang.L("Without an echo canceller (this build of Parley has none), a question asked over a reply is recorded with Parley's voice under it. To interrupt a reply, speak clearly louder than it.")
}

// followUpSecs are the follow-up windows offered, in seconds.
var followUpSecs = []int{0, 3, 6, 10, 20}

// followUpText is a follow-up window as shown.
func followUpText(secs int) string {
	if secs == 0 {
		return lang.L("No follow-up: always the wake phrase")
	}
	return fmt.Sprintf(lang.L("%d s after a reply without it"), secs)
}

// buildWake makes the wake phrase's row: whether voice mode waits for one, which, and for how
// long after a reply a question needs none; or why it cannot.
func (p *preferencesDialog) buildWake() fyne.CanvasObject {
	prefs := p.u.prefs
	p.wakeWord = newCheck(p.keys, lang.L("Wait for a wake phrase before each question"), nil)
	p.wakeWord.SetChecked(prefs.wakeWord())
	var phrases []string
	for _, w := range wake.WakePhrases {
		phrases = append(phrases, wakeTitle(w.Text))
	}
	p.wakePhrase = newSelector(p.keys, phrases, nil)
	p.wakePhrase.SetSelected(wakeTitle(prefs.wakePhrase()))
	var windows []string
	shown := 0
	for i, secs := range followUpSecs {
		windows = append(windows, followUpText(secs))
		if time.Duration(secs)*time.Second <= prefs.followUp() {
			shown = i
		}
	}
	p.followUp = newSelector(p.keys, windows, nil)
	p.followUp.SetSelectedIndex(shown)
	note := widget.NewLabel(lang.L("Parley listens for it on this computer: nothing you say is recorded or sent before it hears the phrase. Saying \"stop\" or \"cancel\" stops a reply."))
	if err := p.u.wakeAvailable(); err != nil {
		note.SetText(fmt.Sprintf(lang.L("Not available here: %s."), err.Error()))
		p.wakeWord.SetChecked(false)
		p.wakeWord.Disable()
		p.wakePhrase.Disable()
		p.followUp.Disable()
	}
	note.Wrapping = fyne.TextWrapWord
	note.SizeName = theme.SizeNameCaptionText
	return container.NewVBox(p.wakeWord, container.NewGridWithColumns(2, p.wakePhrase, p.followUp), note)
}

// wakeTitle is a wake phrase as shown: "Hey Parley".
func wakeTitle(text string) string {
	words := strings.Fields(text)
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(words, " ")
}

// wakeAvailable reports why the wake phrase cannot be listened for here, or nil.
func (u *UI) wakeAvailable() error {
	if u.deps.WakeWord == nil {
		return errors.New(lang.L("this build of Parley has no wake-phrase spotter"))
	}
	return u.deps.WakeWord()
}

func (p *preferencesDialog) buildTalkKey() fyne.CanvasObject {
	p.talkKey = p.u.talkKeyRow(p.keys)
	return p.talkKey.box
}

// buildBackground makes the tray's and the login's checks.
func (p *preferencesDialog) buildBackground() fyne.CanvasObject {
	u := p.u
	p.keepInTray = newCheck(p.keys, lang.L("Keep running in the tray when the window is closed"), nil)
	p.keepInTray.SetChecked(u.prefs.keepInTray())
	// Said under the checks, in a line that wraps: a check's own text does not.
	noTray := widget.NewLabel(lang.L("There is no tray on this desktop now."))
	noTray.SizeName = theme.SizeNameCaptionText
	noTray.Wrapping = fyne.TextWrapWord
	noTray.Hidden = u.tray != nil && u.tray.hostPresent()
	p.atLogin = newCheck(p.keys, lang.L("Start Parley in the tray when I log in"), nil)
	if u.deps.Autostart != nil {
		p.wasAtLogin, _ = u.deps.Autostart.Enabled()
		p.atLogin.SetChecked(p.wasAtLogin)
	} else {
		p.atLogin.Disable()
	}
	p.atLogin.OnChanged = func(on bool) {
		// Started in the tray, Parley is expected to go back there when its window is
		// closed; the person may still untick that.
		if on {
			p.keepInTray.SetChecked(true)
		}
	}
	return container.NewVBox(p.keepInTray, p.atLogin, noTray)
}

// buildAppearance makes the theme's and the text size's choices, applied at once to be seen
// (Cancel takes back the ones kept).
func (p *preferencesDialog) buildAppearance() fyne.CanvasObject {
	u := p.u
	var names, sizes []string
	for _, t := range themeNames() {
		names = append(names, t.name)
	}
	p.sizes = append([]int(nil), textSizes...)
	if !slices.Contains(p.sizes, u.prefs.textSize()) {
		p.sizes = append(p.sizes, u.prefs.textSize())
	}
	for _, pct := range p.sizes {
		sizes = append(sizes, textSizeName(pct))
	}
	preview := func(string) {
		if p.theme != nil && p.textSize != nil {
			u.applyTheme(p.chosenTheme(), p.chosenTextSize())
		}
	}
	p.theme = newSelector(p.keys, names, nil)
	p.textSize = newSelector(p.keys, sizes, nil)
	for i, t := range themeNames() {
		if t.key == u.prefs.theme() {
			p.theme.SetSelectedIndex(i)
		}
	}
	p.textSize.SetSelectedIndex(slices.Index(p.sizes, u.prefs.textSize()))
	p.theme.OnChanged, p.textSize.OnChanged = preview, preview
	return container.NewGridWithColumns(2, p.theme, p.textSize)
}

// speechRates are the speeds Preferences offers for spoken replies.
var speechRates = []float64{0.75, 1, 1.25, 1.5, 1.75, 2}

// speechRateName is a speed as Preferences shows it: "1.5×", "1,5×".
func speechRateName(s float64) string {
	prec := 0
	switch {
	case s*10 != math.Trunc(s*10):
		prec = 2
	case s != math.Trunc(s):
		prec = 1
	}
	return fmt.Sprintf(lang.L("%s×"), i18n.Decimal(s, prec))
}

// buildSpeechRate is the speed of spoken replies, from whichever service made them; where
// libsonic cannot be loaded it says why, and replies play as made.
func (p *preferencesDialog) buildSpeechRate() fyne.CanvasObject {
	var names []string
	for _, s := range speechRates {
		names = append(names, speechRateName(s))
	}
	p.speechRate = newSelector(p.keys, names, nil)
	cur := p.u.prefs.speechRate()
	best := 1
	for i, s := range speechRates {
		if math.Abs(s-cur) < math.Abs(speechRates[best]-cur) {
			best = i
		}
	}
	p.speechRate.SetSelectedIndex(best)
	if err := playback.SpeedAvailable(); err != nil {
		p.speechRate.Disable()
		note := widget.NewLabel(lang.L("Replies are spoken at the speed the service makes them: the library that changes it (libsonic0) is not installed."))
		note.Wrapping = fyne.TextWrapWord
		note.SizeName = theme.SizeNameCaptionText
		return container.NewVBox(p.speechRate, note)
	}
	return p.speechRate
}

// chosenSpeechRate is what the speech rate's choice holds.
func (p *preferencesDialog) chosenSpeechRate() float64 {
	if i := p.speechRate.SelectedIndex(); i >= 0 {
		return speechRates[i]
	}
	return 1
}

// buildLanguage is the window's language: the system's (named), or one of those Parley is
// translated into. It is shown from the next start: the window's words are made once.
func (p *preferencesDialog) buildLanguage() fyne.CanvasObject {
	names := []string{fmt.Sprintf(lang.L("The system's (%s)"), locale.System().Name)}
	p.languages = locale.Available()
	for _, l := range p.languages {
		names = append(names, l.Name)
	}
	p.language = newSelector(p.keys, names, nil)
	p.language.SetSelectedIndex(0)
	for i, l := range p.languages {
		if l.Code == p.u.prefs.language() {
			p.language.SetSelectedIndex(i + 1)
		}
	}
	note := widget.NewLabel(lang.L("A new language shows when Parley starts again."))
	note.SizeName = theme.SizeNameCaptionText
	note.Wrapping = fyne.TextWrapWord
	return container.NewVBox(p.language, note)
}

// chosenLanguage is the language code chosen, "" for the system's.
func (p *preferencesDialog) chosenLanguage() string {
	if i := p.language.SelectedIndex(); i > 0 {
		return p.languages[i-1].Code
	}
	return ""
}

// textSizeName is a text size as Preferences shows it.
func textSizeName(pct int) string { return fmt.Sprintf(lang.L("Text %d%%"), pct) }

// chosenTheme and chosenTextSize are what the appearance's choices hold.
func (p *preferencesDialog) chosenTheme() string {
	if i := p.theme.SelectedIndex(); i >= 0 {
		return themeNames()[i].key
	}
	return themeSystem
}

func (p *preferencesDialog) chosenTextSize() int {
	if i := p.textSize.SelectedIndex(); i >= 0 {
		return p.sizes[i]
	}
	return 100
}

// save keeps what the dialog holds.
func (p *preferencesDialog) save() {
	u, prefs := p.u, p.u.prefs
	p.stopMicTest()
	prefs.setInputDevice(p.chosenDevice())
	prefs.setVolume(p.volume.Value)
	prefs.setSpeechRate(p.chosenSpeechRate())
	prefs.setLanguage(p.chosenLanguage())
	prefs.setAutoSpeak(p.autoSpeak.Checked)
	prefs.setDefaultVoice(strings.TrimSpace(p.voiceName.Text))
	prefs.setSpeechLanguage(p.speechLangs[max(p.speechLang.SelectedIndex(), 0)])
	// By its place in the list: a built-in one is kept by its English name, whatever the
	// window's language, and told from a person's preset called as it is in another.
	if all, i := (presetBook{prefs}).all(), p.preset.SelectedIndex(); i >= 0 && i < len(all) {
		prefs.setDefaultPreset(all[i].Name)
	}
	prefs.setHold(time.Duration(p.hold.Value) * time.Millisecond)
	prefs.setSendSpoken(p.sendSpoken.SelectedIndex() == 1)
	prefs.setBargeIn(p.bargeIn.Checked)
	prefs.setAdaptiveHold(p.adaptiveHold.Checked)
	prefs.setSpeakErrors(p.speakErrors.Checked)
	if p.wakeWord.Disabled() {
		prefs.setWakeWord(false) // it cannot be listened for here: voice mode must not wait for it
	} else {
		prefs.setWakeWord(p.wakeWord.Checked)
		if i := p.wakePhrase.SelectedIndex(); i >= 0 {
			prefs.setWakePhrase(wake.WakePhrases[i].Text)
		}
		if i := p.followUp.SelectedIndex(); i >= 0 {
			prefs.setFollowUp(time.Duration(followUpSecs[i]) * time.Second)
		}
	}
	u.talk.SetVolume(p.volume.Value)
	u.talk.SetSpeed(p.chosenSpeechRate())
	p.talkKey.save()
	prefs.setKeepInTray(p.keepInTray.Checked)
	prefs.setTheme(p.chosenTheme())
	prefs.setTextSize(p.chosenTextSize())
	u.applyChosenTheme()
	if u.deps.Autostart != nil && p.atLogin.Checked != p.wasAtLogin {
		u.setStartAtLogin(p.atLogin.Checked)
	}
}

// submit saves and closes (Save, Enter); a default voice the service refuses holds it, saying
// why.
func (p *preferencesDialog) submit() {
	if p.saveBtn.Disabled() {
		return
	}
	p.save()
	p.d.Hide()
}

// cancel closes without saving (Cancel, Esc).
func (p *preferencesDialog) cancel() {
	p.u.applyChosenTheme() // what was tried is taken back
	p.stopMicTest()
	p.talkKey.cancel()
	p.d.Hide()
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
		take, err := rec.Record(ctx, audio.TakeOptions{Device: device, Levels: levels, Encoding: audio.EncodingWAV, ThroughSilence: true})
		ended := ctx.Err() != nil
		cancel() // no reading after this one's message
		if take != nil {
			heard.narrowband(take.PCM)
		}
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
	narrow   bool        // what it heard had nothing above 4 kHz: an 8 kHz microphone
}

// narrowband notes whether the test's recording sounds like an 8 kHz microphone's.
func (t *micTest) narrowband(p media.PCM) {
	narrow := media.Narrowband(p)
	t.mu.Lock()
	t.narrow = narrow
	t.mu.Unlock()
}

// narrowNote is the English of what the microphone test adds when the microphone sends
// telephone-quality sound (summary says it, translated, in one sentence with what precedes it).
const narrowNote = " It sends telephone-quality sound (nothing above 4 kHz, as a headset's hands-free mode does), of which the built-in service's recogniser hears next to nothing: choose another microphone, or run a Whisper server (see the README)."

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
		return fmt.Sprintf(lang.L("The microphone works: it heard sound at %.0f dB. Quiet now."), t.loudest.RMS)
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
	case t.works && t.narrow:
		return fmt.Sprintf(lang.L("The microphone works (the loudest sound was %.0f dB). It sends telephone-quality sound (nothing above 4 kHz, as a headset's hands-free mode does), of which the built-in service's recogniser hears next to nothing: choose another microphone, or run a Whisper server (see the README)."), t.loudest.RMS)
	case t.works && t.clipped:
		return fmt.Sprintf(lang.L("The microphone works, but some sound was so loud that it was cut off (up to %.0f dB): lower the input volume."), t.loudest.RMS)
	case t.works:
		return fmt.Sprintf(lang.L("The microphone works: the loudest sound was %.0f dB."), t.loudest.RMS)
	case t.clipped:
		return fmt.Sprintf(lang.L("The microphone heard sound so loud that it was cut off (%.0f dB): lower the input volume."), t.loudest.RMS)
	case t.sound:
		return fmt.Sprintf(lang.L("The microphone heard only very quiet sound (at most %.0f dB): speak closer, or raise the input volume."), t.loudest.RMS)
	}
	return lang.L("The microphone delivered only silence: check that it is on and not muted.")
}

// meterRate is how many times a second a level meter moves, at most.
const meterRate = 15

// micTestMessage says what a reading of the microphone test means.
func micTestMessage(l audio.Level) string {
	switch {
	case l.Peak <= -120:
		return lang.L("Only silence so far: check that the microphone is on and not muted.")
	case l.Peak >= -1:
		return fmt.Sprintf(lang.L("Sound at %.0f dB, so loud that it is cut off: lower the input volume."), l.RMS)
	case l.RMS < -65:
		return fmt.Sprintf(lang.L("Sound at %.0f dB, very quiet: speak, or move closer."), l.RMS)
	}
	return fmt.Sprintf(lang.L("Sound at %.0f dB: the microphone works."), l.RMS)
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
		r.say(lang.L("Off: no key will talk to Parley from other programs. Save to keep it."))
		return
	}
	conflicts := keyConflicts(c)
	if c.Valid() != nil {
		r.say(conflicts)
		return
	}
	r.changed, r.combo, r.on = true, c, true
	r.say(strings.TrimSpace(fmt.Sprintf(lang.L("Checking %s…"), c) + " " + conflicts))
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
			u.do(func() {
				u.flash(fmt.Sprintf(lang.L("Parley could not change how it starts at login: %s"), err.Error()))
			})
		}
	}()
}
