package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"parley/client"
	"parley/conversation"
	"parley/internal/i18n"
	"parley/internal/langtag"
	"parley/settings"
)

// settingsForm is what the settings dialog holds, checked with the CLI's ranges.
type settingsForm struct {
	persona   string
	tempSet   bool
	temp      float64
	topPSet   bool
	topP      float64
	maxTokens string // blank: not set
	voice     string
	// speechLanguage is the language questions are spoken in ("" for the recogniser to tell).
	speechLanguage string
}

// formOf fills a form from a conversation's settings.
func formOf(cfg client.Config, voice string) settingsForm {
	f := settingsForm{voice: voice, temp: 1, topP: 1}
	if cfg.Persona != nil {
		f.persona = *cfg.Persona
	}
	if cfg.Temperature != nil {
		f.tempSet, f.temp = true, *cfg.Temperature
	}
	if cfg.TopP != nil {
		f.topPSet, f.topP = true, *cfg.TopP
	}
	if cfg.MaxTokens != nil {
		f.maxTokens = strconv.Itoa(*cfg.MaxTokens)
	}
	return f
}

// config checks the form with the service's ranges (package settings) and returns its settings.
func (f settingsForm) config() (client.Config, error) {
	var c client.Config
	p := f.persona
	c.Persona = &p
	if f.tempSet {
		t := f.temp
		c.Temperature = &t
	}
	if f.topPSet {
		t := f.topP
		c.TopP = &t
	}
	if s := strings.TrimSpace(f.maxTokens); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return client.Config{}, formError(maxTokensSentence())
		}
		c.MaxTokens = &n
	}
	if err := c.Check(); err != nil {
		return client.Config{}, formError(rangeSentence(err))
	}
	if strings.TrimSpace(p) == "" {
		c.Persona = nil
	}
	return c, nil
}

// maxTokensSentence says what max tokens takes.
func maxTokensSentence() string {
	return lang.L("Max tokens must be a whole number, at least 1 (or empty for the service's default).")
}

// rangeSentence phrases a setting out of the service's range for the settings dialog.
func rangeSentence(err error) string {
	var r *settings.RangeError
	if !errors.As(err, &r) {
		return err.Error()
	}
	switch r.Field {
	case settings.FieldPersona:
		return fmt.Sprintf(i18n.N("The persona is %d character long; at most %d are allowed.",
			"The persona is %d characters long; at most %d are allowed.", int(r.Value)), int(r.Value), int(r.Max))
	case settings.FieldTemperature:
		return fmt.Sprintf(lang.L("Temperature must be between %g and %g."), r.Min, r.Max)
	case settings.FieldTopP:
		return fmt.Sprintf(lang.L("Top p must be between %g and %g."), r.Min, r.Max)
	default:
		return maxTokensSentence()
	}
}

// formError is a sentence for the person about what they typed in a dialog, shown as it is.
type formError string

func (e formError) Error() string { return string(e) }

// settingsHost is what the settings dialog needs from the window.
type settingsHost interface {
	// flash shows a short message in the status bar.
	flash(msg string)
	refreshHeader()
	// refreshMenu builds the main menu again (it lists the presets).
	refreshMenu()
	// confirm and askName ask a question in a dialog over this one.
	confirm(title, msg, yes string, danger bool, done func(ok bool))
	askName(title, yes, initial string, apply func(name string) error)
}

// settingsStore saves a conversation's settings; *conversation.Session is one.
type settingsStore interface {
	SaveSettings(th *conversation.Thread, cfg client.Config, sp *conversation.Speech, done func(client.Config, error))
}

// settingsDialog edits the settings of the conversation on screen.
type settingsDialog struct {
	host    settingsHost
	store   settingsStore
	win     fyne.Window
	ctx     context.Context
	do      func(func())
	th      *conversation.Thread
	isNew   bool
	saved   client.Config
	book    presetBook
	d       *dialog.CustomDialog
	keys    *dialogKeys
	preset  *selector
	persona *field
	tempOn  *check
	temp    *slider
	tempVal *widget.Label
	topOn   *check
	top     *slider
	topVal  *widget.Label
	maxTok  *field
	voice   *choiceField
	// speechLang offers speechLangs, the languages' codes in its order; takesLanguage: the
	// service takes one (Parley's own).
	speechLang    *selector
	speechLangs   []string
	takesLanguage bool
	// defaultSpeechLang is Preferences' speech language, which "" stands for.
	defaultSpeechLang string
	// opened is the form as the dialog showed it first: the voice and speech language are
	// saved only when changed from it.
	opened settingsForm
	// voices are the voices the service lists; listed is false until it listed some (a
	// service without the list takes any name, unchecked). savedVoice is the conversation's
	// voice when the dialog opened.
	voices     []string
	listed     bool
	savedVoice string
	errText    *widget.Label
	saveBtn    *button
	rename     *button
	remove     *button
}

// showSettings opens the settings dialog of the conversation on screen.
func (m *mainWindow) showSettings() {
	u := m.u
	if m.current == nil {
		return
	}
	v := m.sess.Snapshot(m.current)
	s := &settingsDialog{host: m, store: m.sess, win: u.win, ctx: u.ctx, do: u.do,
		th: m.current, isNew: v.ID.IsZero(), saved: v.Config, book: presetBook{u.prefs}, savedVoice: v.Voice,
		takesLanguage: m.parleys, defaultSpeechLang: u.prefs.speechLanguage()}
	f := formOf(v.Config, v.Voice)
	f.speechLanguage = v.SpeechLanguage
	s.build(f)
	s.opened = s.form()
	u.showDialogOf(s, s.d, s.keys, s.persona)
	go s.loadVoices(m.conn.svc)
}

func (s *settingsDialog) build(f settingsForm) {
	s.keys = &dialogKeys{submit: s.save, cancel: s.cancel}
	s.persona = newField(s.keys, true)
	s.persona.setPlaceholders(lang.L("Who the assistant is, e.g. “a patient maths tutor”"), lang.L("Who the assistant is"), lang.L("Persona"))
	s.persona.SetMinRowsVisible(4)
	s.persona.SetText(f.persona)
	s.persona.OnChanged = func(string) { s.check() }

	s.tempVal = widget.NewLabel("")
	s.temp = newSlider(s.keys, settings.MinTemperature, settings.MaxTemperature)
	s.temp.Step = 0.05
	s.temp.shown = s.tempVal
	s.temp.OnChanged = func(float64) { s.check() }
	s.tempOn = newCheck(s.keys, lang.L("Set"), func(bool) { s.check() })
	s.topVal = widget.NewLabel("")
	s.top = newSlider(s.keys, settings.MinTopP, settings.MaxTopP)
	s.top.Step = 0.01
	s.top.shown = s.topVal
	s.top.OnChanged = func(float64) { s.check() }
	s.topOn = newCheck(s.keys, lang.L("Set"), func(bool) { s.check() })
	s.maxTok = newField(s.keys, false)
	s.maxTok.SetPlaceHolder(lang.L("service default"))
	s.maxTok.OnChanged = func(string) { s.check() }
	s.voice = newChoiceField(s.keys)
	s.voice.SetPlaceHolder(lang.L("the default voice"))
	s.voice.OnChanged = func(string) { s.check() }
	var langOptions []string
	langOptions, s.speechLangs = speechLanguageOptions(fmt.Sprintf(lang.L("As in Preferences: %s"), speechLanguageName(s.defaultSpeechLang)))
	if s.defaultSpeechLang != "" {
		// Preferences name a language: the recogniser may still be left to tell this one's.
		langOptions = slices.Insert(langOptions, 1, autoSpeechLanguage())
		s.speechLangs = slices.Insert(s.speechLangs, 1, conversation.SpeechAuto)
	}
	s.speechLang = newSelector(s.keys, langOptions, func(string) { s.check() })
	s.fill(f)

	s.preset = newSelector(s.keys, presetTitles(s.book.all()), func(string) {
		if p, ok := s.selectedPreset(); ok {
			form := formOf(p.Config(), s.voice.Text)
			form.speechLanguage = s.form().speechLanguage
			s.fill(form)
		}
		s.check()
	})
	s.preset.PlaceHolder = lang.L("Start from a preset…")
	saveAs := newButton(s.keys, lang.L("Save as preset…"), theme.DocumentSaveIcon(), s.saveAsPreset)
	s.rename = newButton(s.keys, lang.L("Rename…"), nil, s.renamePreset)
	s.remove = newIconButton(s.keys, lang.L("Delete the preset"), theme.DeleteIcon(), s.removePreset)

	s.errText = widget.NewLabel("")
	s.errText.Importance = widget.DangerImportance
	s.errText.Wrapping = fyne.TextWrapWord
	note := lang.L("These settings are saved with the conversation when you send its first message.")
	if !s.isNew {
		note = lang.L("Only the settings you change are saved. The service keeps a setting once saved, so it cannot be unset here.")
	}
	hint := widget.NewLabel(note)
	hint.Wrapping = fyne.TextWrapWord
	hint.SizeName = theme.SizeNameCaptionText

	form := newForm(
		widget.NewFormItem(lang.L("Preset"), border(nil, nil, nil, container.NewHBox(saveAs, s.rename, s.remove), s.preset)),
		widget.NewFormItem(lang.L("Persona"), s.persona),
		widget.NewFormItem(lang.L("Temperature"), border(nil, nil, s.tempOn, s.tempVal, s.temp)),
		widget.NewFormItem(lang.L("Top p"), border(nil, nil, s.topOn, s.topVal, s.top)),
		widget.NewFormItem(lang.L("Max tokens"), s.maxTok),
		widget.NewFormItem(lang.L("Voice"), s.voice),
		widget.NewFormItem(lang.L("Speech language"), container.NewVBox(s.speechLang, s.speechLanguageNote())),
	)
	s.saveBtn = newButton(s.keys, lang.L("Save"), theme.ConfirmIcon(), s.save)
	s.saveBtn.Importance = widget.HighImportance
	cancel := newButton(s.keys, lang.L("Cancel"), theme.CancelIcon(), s.cancel)
	keys := widget.NewLabel(lang.L("Enter saves · Shift+Enter: new line · Esc cancels"))
	keys.SizeName = theme.SizeNameCaptionText
	buttons := border(nil, nil, keys, container.NewHBox(cancel, s.saveBtn))
	content := container.NewVBox(form, hint, s.errText, buttons)
	title := lang.L("Conversation settings")
	if s.isNew {
		title = lang.L("Settings for the new conversation")
	}
	s.d = dialog.NewCustomWithoutButtons(title, content, s.win)
	// Checked before it is sized: the error line, hidden by check, would otherwise count in its
	// height (Fyne 2.8 measures an empty wrapped label one line high), an empty band at its foot.
	s.check()
	s.d.Resize(fyne.NewSize(640, 0))
}

// fill shows a form's values.
func (s *settingsDialog) fill(f settingsForm) {
	s.persona.SetText(f.persona)
	s.tempOn.SetChecked(f.tempSet)
	s.temp.SetValue(f.temp)
	s.topOn.SetChecked(f.topPSet)
	s.top.SetValue(f.topP)
	s.maxTok.SetText(f.maxTokens)
	s.voice.SetText(f.voice)
	i := slices.Index(s.speechLangs, f.speechLanguage)
	if i < 0 { // a tag with a region is shown by its language; one not offered, as the first
		i = slices.Index(s.speechLangs, langtag.Base(f.speechLanguage))
	}
	s.speechLang.SetSelectedIndex(max(i, 0))
}

// speechLanguageNote says what the speech language does with the service in use.
func (s *settingsDialog) speechLanguageNote() *widget.Label {
	text := lang.L("Sent with each spoken question. The built-in recogniser hears English only: with another language it says so. A Whisper server on this computer hears them all.")
	if !s.takesLanguage {
		s.speechLang.Disable()
		text = lang.L("This service tells the language of a spoken question itself: it takes none.")
	}
	note := widget.NewLabel(text)
	note.Wrapping = fyne.TextWrapWord
	note.SizeName = theme.SizeNameCaptionText
	return note
}

// form reads the values shown.
func (s *settingsDialog) form() settingsForm {
	return settingsForm{persona: s.persona.Text, tempSet: s.tempOn.Checked, temp: stepped(s.temp.Value, s.temp.Step),
		topPSet: s.topOn.Checked, topP: stepped(s.top.Value, s.top.Step), maxTokens: s.maxTok.Text, voice: strings.TrimSpace(s.voice.Text),
		speechLanguage: s.speechLangs[max(s.speechLang.SelectedIndex(), 0)]}
}

// check validates as the person types, and shows the sliders' values.
func (s *settingsDialog) check() {
	if s.saveBtn == nil {
		return
	}
	f := s.form()
	s.tempVal.SetText(sliderText(f.tempSet, f.temp, s.temp.Step))
	s.topVal.SetText(sliderText(f.topPSet, f.topP, s.top.Step))
	enable := func(on bool, w fyne.Disableable) {
		if on {
			w.Enable()
		} else {
			w.Disable()
		}
	}
	enable(f.tempSet, s.temp)
	enable(f.topPSet, s.top)
	if !s.isNew {
		// A saved setting cannot be unset through the API.
		enable(s.saved.Temperature == nil, s.tempOn)
		enable(s.saved.TopP == nil, s.topOn)
	}
	p, chosen := s.selectedPreset()
	own := chosen && !p.BuiltIn
	enable(own, s.rename)
	enable(own, s.remove)
	problem := ""
	if _, err := f.config(); err != nil {
		problem = err.Error()
	} else if p := voiceProblem(f.voice, s.voices, s.listed, s.savedVoice); p != "" {
		problem = p
	}
	if problem != "" {
		s.errText.SetText(problem)
		s.errText.Show()
		s.saveBtn.Disable()
		return
	}
	s.errText.Hide()
	s.saveBtn.Enable()
}

// voiceProblem says what is wrong with the voice name typed, "" when nothing is: a service
// that lists its voices speaks only those (the built-in one silently speaks any other name
// with its default voice; another refuses it). saved is the voice kept so far, which may
// predate the check. With no list, any name goes: the service is asked when it speaks.
func voiceProblem(name string, voices []string, listed bool, saved string) string {
	if name == "" || !listed || slices.Contains(voices, name) {
		return ""
	}
	if name == saved {
		return fmt.Sprintf(lang.L("The voice “%s” kept here is not one of this service's voices, so replies are spoken with its default voice. Pick one from the list, or leave the field empty."), name)
	}
	return fmt.Sprintf(lang.L("This service has no voice “%s”. Pick one from the list, or leave the field empty for the default voice."), name)
}

// sliderText is a slider's value as a person reads it (the digits of its step), or "unset".
func sliderText(set bool, v, step float64) string {
	if !set {
		return lang.L("unset")
	}
	return i18n.Decimal(v, decimals(step)) // 0.7, 0,7 in German
}

// stepped is a slider's value rounded to the digits of its step, as it is shown: a slider
// moved by 0.05 from 1 stands at 1.1500000000000001, which is kept, sent and shown as 1.15.
func stepped(v, step float64) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'f', decimals(step), 64), 64)
	if err != nil {
		return v
	}
	return r
}

// decimals is how many digits a step has after the point (0.05: 2; 100: 0).
func decimals(step float64) int {
	_, frac, _ := strings.Cut(strconv.FormatFloat(step, 'f', -1, 64), ".")
	return len(frac)
}

// save applies the settings: kept for a new conversation's first call, or PATCHed.
func (s *settingsDialog) save() {
	f := s.form()
	cfg, err := f.config()
	if err != nil {
		s.errText.SetText(err.Error())
		s.errText.Show()
		return
	}
	s.saveBtn.Disable()
	var sp *conversation.Speech
	if f.voice != s.opened.voice || f.speechLanguage != s.opened.speechLanguage {
		sp = &conversation.Speech{Voice: f.voice, Language: f.speechLanguage}
	}
	s.store.SaveSettings(s.th, cfg, sp, func(saved client.Config, err error) {
		s.do(func() {
			if err != nil {
				s.errText.SetText(fmt.Sprintf(lang.L("Not saved. %s"), phrase(err).text))
				s.errText.Show()
				s.saveBtn.Enable()
				return
			}
			s.close()
			if !s.isNew {
				s.host.flash(fmt.Sprintf(lang.L("Saved: %s"), describeConfig(saved)))
			}
			s.host.refreshHeader()
		})
	})
}

func (s *settingsDialog) cancel() { s.close() }

func (s *settingsDialog) close() {
	s.d.Hide()
}

// loadVoices offers svc's voices, where it lists them. It runs on a goroutine of its own, so it
// is given the service rather than reading the window's state.
func (s *settingsDialog) loadVoices(svc Service) {
	ctx, cancel := context.WithTimeout(s.ctx, defaultCallTimeout)
	defer cancel()
	voices, err := svc.Voices(ctx)
	if err != nil || len(voices) == 0 {
		return // the names typed are not checked: the service says when it refuses one
	}
	var names []string
	for _, v := range voices {
		names = append(names, v.Name)
	}
	s.do(func() { s.setVoices(names) })
}

// setVoices offers names, the service's voices, and checks the voice typed against them.
func (s *settingsDialog) setVoices(names []string) {
	s.voices, s.listed = names, true
	s.voice.SetOptions(names)
	s.check()
}

// askPresetName asks for a preset's name, starting from initial, and runs apply with it; a
// failure is shown in the name's dialog as failed says it, a format whose %s is why ("The preset
// was not saved: %s."), else the list shows the preset under its name.
func (s *settingsDialog) askPresetName(title, confirm, failed, initial string, apply func(name string) error) {
	s.host.askName(title, confirm, initial, func(name string) error {
		if err := apply(name); err != nil {
			return formError(fmt.Sprintf(failed, err.Error()))
		}
		s.refreshPresets(strings.TrimSpace(name))
		return nil
	})
}

// saveAsPreset asks for a name and saves the form as the person's preset.
func (s *settingsDialog) saveAsPreset() {
	initial := ""
	if p, ok := s.selectedPreset(); ok && !p.BuiltIn {
		initial = p.Name
	}
	s.askPresetName(lang.L("Save as preset"), lang.L("Save"), lang.L("The preset was not saved: %s."), initial, func(name string) error {
		cfg, err := s.form().config()
		if err != nil {
			return err
		}
		p := Preset{Name: name, Temperature: cfg.Temperature, TopP: cfg.TopP, MaxTokens: cfg.MaxTokens}
		if cfg.Persona != nil {
			p.Persona = *cfg.Persona
		}
		return s.book.save(p)
	})
}

// renamePreset renames the person's selected preset.
func (s *settingsDialog) renamePreset() {
	p, ok := s.selectedPreset()
	if !ok || p.BuiltIn {
		return
	}
	old := p.Name
	s.askPresetName(lang.L("Rename preset"), lang.L("Rename"), lang.L("The preset was not renamed: %s."), old, func(name string) error {
		return s.book.rename(old, name)
	})
}

// removePreset deletes the person's selected preset.
func (s *settingsDialog) removePreset() {
	p, ok := s.selectedPreset()
	if !ok || p.BuiltIn {
		return
	}
	name := p.Name
	s.host.confirm(lang.L("Delete preset"), fmt.Sprintf(lang.L("Delete the preset “%s”?"), name), lang.L("Delete"), true, func(ok bool) {
		if ok && s.book.remove(name) == nil {
			s.refreshPresets("")
		}
	})
}

// selectedPreset is the preset chosen, by its place in the list: a person's preset may be
// called what a built-in one is called in another language.
func (s *settingsDialog) selectedPreset() (Preset, bool) {
	all := s.book.all()
	if i := s.preset.SelectedIndex(); i >= 0 && i < len(all) {
		return all[i], true
	}
	return Preset{}, false
}

// refreshPresets lists the presets again (here and in the menu), selecting name without
// applying it.
func (s *settingsDialog) refreshPresets(name string) {
	s.host.refreshMenu()
	s.preset.Options = presetTitles(s.book.all())
	onChanged := s.preset.OnChanged
	s.preset.OnChanged = nil
	s.preset.ClearSelected()
	for i, p := range s.book.all() {
		if name != "" && !p.BuiltIn && p.Name == name {
			s.preset.SetSelectedIndex(i)
		}
	}
	s.preset.OnChanged = onChanged
	s.check()
}

// describeConfig lists saved settings briefly.
func describeConfig(c client.Config) string {
	var parts []string
	if c.Persona != nil {
		parts = append(parts, fmt.Sprintf(lang.L("persona “%s”"), personaChip(c.Persona)))
	}
	if c.Temperature != nil {
		parts = append(parts, fmt.Sprintf(lang.L("temperature %s"), settings.Number(*c.Temperature)))
	}
	if c.TopP != nil {
		parts = append(parts, fmt.Sprintf(lang.L("top p %s"), settings.Number(*c.TopP)))
	}
	if c.MaxTokens != nil {
		parts = append(parts, fmt.Sprintf(lang.L("max tokens %s"), strconv.Itoa(*c.MaxTokens)))
	}
	if len(parts) == 0 {
		return lang.L("the service's defaults")
	}
	return strings.Join(parts, ", ")
}
