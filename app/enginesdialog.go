package app

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"parley/engine"
	"parley/internal/explain"
	"parley/internal/i18n"
	"parley/keystore"
)

// The options of the engine choices that are not a model found on this computer: what the
// dialog tells them apart by, in English; optionText is how a choice shows them.
const (
	optOffline     = "Offline responder (cannot think)"
	optRemote      = "An OpenAI-compatible service (address below)"
	optPocket      = "On this computer: a Whisper server when one runs, else PocketSphinx"
	optLocalVoices = "Local voices (flite or espeak-ng), on this computer"
)

// optionText is how a choice shows the option opt: in the window's language, and a model found
// on this computer as detectedOption wrote it.
func optionText(opt string) string {
	switch opt {
	case optOffline:
		return lang.L("Offline responder (cannot think)")
	case optRemote:
		return lang.L("An OpenAI-compatible service (address below)")
	case optPocket:
		return lang.L("On this computer: a Whisper server when one runs, else PocketSphinx")
	case optLocalVoices:
		return lang.L("Local voices (flite or espeak-ng), on this computer")
	}
	return opt
}

// enginePane is one engine's part of the Built-in service dialog: the choice, the address,
// model and key of an OpenAI-compatible service, a Test button and its one-line result.
type enginePane struct {
	choice  *selector
	options []string // what each of choice's options stands for: an opt… constant, or detectedOption's
	address *field
	model   *field
	key     *field
	test    *button
	result  *widget.Label
	// storedFor is the address shown when the dialog opened, whose kept key the key field
	// mentions.
	storedFor  string
	cancelTest context.CancelFunc
}

func newEnginePane(keys *dialogKeys, options []string, addressHint, modelHint string) *enginePane {
	p := &enginePane{choice: newSelector(keys, nil, nil), address: newField(keys, false), model: newField(keys, false),
		key: newPasswordField(keys), result: widget.NewLabel("")}
	p.setOptions(options)
	p.address.SetPlaceHolder(addressHint)
	p.model.SetPlaceHolder(modelHint)
	p.key.SetPlaceHolder(lang.L("API key, if it needs one (kept in the system keyring)"))
	p.result.Wrapping = fyne.TextWrapWord
	p.result.SizeName = theme.SizeNameCaptionText
	p.test = newButton(keys, lang.L("Test"), theme.MediaPlayIcon(), nil)
	return p
}

// setOptions makes options the choice's, shown as optionText says.
func (p *enginePane) setOptions(options []string) {
	p.options = options
	shown := make([]string, len(options))
	for i, o := range options {
		shown[i] = optionText(o)
	}
	p.choice.Options = shown
}

// chosen is the option selected ("" for none).
func (p *enginePane) chosen() string {
	if i := p.choice.SelectedIndex(); i >= 0 && i < len(p.options) {
		return p.options[i]
	}
	return ""
}

// choose selects the option opt.
func (p *enginePane) choose(opt string) {
	if i := slices.Index(p.options, opt); i >= 0 {
		p.choice.SetSelectedIndex(i)
	}
}

// remote reports whether the pane's choice is an OpenAI-compatible service.
func (p *enginePane) remote() bool { return p.chosen() == optRemote }

// enableFields lets the address, model and key be edited only for a service of the person's.
func (p *enginePane) enableFields() {
	for _, f := range []*field{p.address, p.model, p.key} {
		if p.remote() {
			f.Enable()
		} else {
			f.Disable()
		}
	}
}

// paneNames are the name of a pane's first row, and the names a screen reader gives its fields
// and its Test button.
type paneNames struct{ label, address, model, key, test string }

// items lays the pane out as form rows.
func (p *enginePane) items(n paneNames) []*widget.FormItem {
	p.address.name, p.model.name, p.key.name, p.test.name = n.address, n.model, n.key, n.test
	addr := border(nil, nil, nil, container.NewGridWrap(fyne.NewSize(170, p.model.MinSize().Height), p.model), p.address)
	return []*widget.FormItem{
		widget.NewFormItem(n.label, p.choice),
		widget.NewFormItem(lang.L("Address, model"), addr),
		widget.NewFormItem(lang.X("engines.api-key", "Key"), border(nil, nil, nil, p.test, p.key)),
		widget.NewFormItem("", p.result),
	}
}

// speech is the pane's speech engine, without a key unless one was typed.
func (p *enginePane) speech() engine.Speech {
	if !p.remote() {
		return engine.Speech{}
	}
	return engine.Speech{Remote: true, URL: strings.TrimSpace(p.address.Text), Model: strings.TrimSpace(p.model.Text), Key: strings.TrimSpace(p.key.Text)}
}

// say shows a one-line result: bad in the danger colour.
func (p *enginePane) say(text string, bad bool) {
	p.result.Importance = widget.MediumImportance
	if bad {
		p.result.Importance = widget.DangerImportance
	}
	p.result.SetText(text)
}

// stopTest cancels the pane's test, if one runs.
func (p *enginePane) stopTest() {
	if p.cancelTest != nil {
		p.cancelTest()
		p.cancelTest = nil
	}
}

// enginesDialog is the Built-in service dialog: which chat model, speech recogniser and voices
// the service inside the app uses.
type enginesDialog struct {
	u        *UI
	keys     *dialogKeys
	found    *widget.Label
	chat     *enginePane
	stt      *enginePane
	tts      *enginePane
	detected map[string]engine.Chat // chat options that are models found on this computer
	hears    string                 // what local speech recognition hears with, once looked for
	d        *dialog.CustomDialog
	ctx      context.Context
	cancel   context.CancelFunc
	// onSaved, when set, hears of the chat engine saved (the Preferences' summary).
	onSaved func(engine.Chat)
}

// showEngines opens the Built-in service dialog. It looks for model runtimes on this computer
// as it opens, and fills in what it finds when they answer.
func (u *UI) showEngines() { u.showEnginesThen(nil) }

// showEnginesThen opens the Built-in service dialog; onSaved, when set, hears of the chat engine
// saved.
func (u *UI) showEnginesThen(onSaved func(engine.Chat)) {
	if u.deps.Local == nil {
		return
	}
	set, chosen := u.prefs.engines()
	e := &enginesDialog{u: u, keys: &dialogKeys{}, detected: map[string]engine.Chat{}, onSaved: onSaved}
	e.ctx, e.cancel = context.WithCancel(u.ctx)
	e.found = widget.NewLabel(lang.L("Looking for model runtimes on this computer…"))
	e.found.Wrapping = fyne.TextWrapWord

	e.chat = newEnginePane(e.keys, []string{optOffline, optRemote}, "https://api.openai.com/v1", "gpt-4o-mini")
	e.stt = newEnginePane(e.keys, []string{optPocket, optRemote}, "https://api.openai.com/v1", "whisper-1")
	e.tts = newEnginePane(e.keys, []string{optLocalVoices, optRemote}, "https://api.openai.com/v1", "tts-1")

	// What was chosen before.
	switch set.Chat.Kind {
	case engine.Detected:
		opt := detectedOption(set.Chat, false)
		e.detected[opt] = set.Chat
		e.chat.setOptions([]string{optOffline, opt, optRemote})
		e.chat.choose(opt)
	case engine.Remote:
		e.chat.choose(optRemote)
		e.chat.address.SetText(set.Chat.URL)
		e.chat.model.SetText(set.Chat.Model)
	default:
		e.chat.choose(optOffline)
	}
	for _, x := range []struct {
		p     *enginePane
		s     engine.Speech
		local string
	}{{e.stt, set.STT, optPocket}, {e.tts, set.TTS, optLocalVoices}} {
		if x.s.Remote {
			x.p.choose(optRemote)
			x.p.address.SetText(x.s.URL)
			x.p.model.SetText(x.s.Model)
		} else {
			x.p.choose(x.local)
		}
	}
	for _, p := range []*enginePane{e.chat, e.stt, e.tts} {
		p.storedFor = strings.TrimSpace(p.address.Text)
		p.enableFields()
		p.choice.OnChanged = func(string) {
			e.fillSpeechFromChat(p)
			p.enableFields()
			p.say("", false)
			e.sayHearing()
		}
	}
	e.chat.test.OnTapped = e.testChat
	e.stt.test.OnTapped = e.testSTT
	e.tts.test.OnTapped = e.testTTS
	e.lookForStoredKeys()
	e.detect(set, chosen)
	e.findRecogniser()

	intro := widget.NewLabel(lang.L("The service inside Parley answers with these engines. A change takes effect at once."))
	intro.Wrapping = fyne.TextWrapWord
	if u.conn() != nil && !u.conn().local {
		intro.SetText(fmt.Sprintf(lang.L("Parley uses %s now: these engines answer when it uses the built-in service."), u.conn().host()))
	}
	var items []*widget.FormItem
	items = append(items, e.chat.items(paneNames{lang.L("Chat"), lang.L("Address for chat"), lang.L("Model for chat"),
		lang.L("Key for chat"), lang.L("Test the chat")})...)
	items = append(items, e.stt.items(paneNames{lang.L("Speech recognition"), lang.L("Address for speech recognition"),
		lang.L("Model for speech recognition"), lang.L("Key for speech recognition"), lang.L("Test the speech recognition")})...)
	items = append(items, e.tts.items(paneNames{lang.L("Voices"), lang.L("Address for voices"), lang.L("Model for voices"),
		lang.L("Key for voices"), lang.L("Test the voices")})...)
	form := newForm(items...)

	e.keys.submit = e.save
	e.keys.cancel = e.close
	saveBtn := newButton(e.keys, lang.L("Save"), theme.ConfirmIcon(), e.keys.submit)
	saveBtn.Importance = widget.HighImportance
	cancelBtn := newButton(e.keys, lang.L("Cancel"), theme.CancelIcon(), e.keys.cancel)
	hint := widget.NewLabel(lang.L("Enter saves · Esc cancels"))
	hint.SizeName = theme.SizeNameCaptionText
	content := container.NewVBox(intro, e.found, form, border(nil, nil, hint, container.NewHBox(cancelBtn, saveBtn)))
	e.d = dialog.NewCustomWithoutButtons(lang.L("Built-in service"), content, u.win)
	e.d.Resize(fyne.NewSize(720, 0))
	u.showDialogOf(e, e.d, e.keys, e.chat.choice)
}

// detectedOption is how the chat choice lists a model found on this computer.
func detectedOption(c engine.Chat, missing bool) string {
	if missing {
		return fmt.Sprintf(lang.L("%s from %s on this computer (not running now)"), engine.ModelName(c.Model), c.Runtime)
	}
	return fmt.Sprintf(lang.L("%s from %s on this computer"), engine.ModelName(c.Model), c.Runtime)
}

// detect looks for runtimes and adds their models to the chat choice.
func (e *enginesDialog) detect(set engine.Set, chosen bool) {
	local := e.u.deps.Local
	go func() {
		all := detectAll(e.ctx, local)
		found := all.Runtimes
		e.u.do(func() {
			if e.ctx.Err() != nil {
				return
			}
			opts := []string{optOffline}
			var names []string
			seen := false
			for _, r := range found {
				for _, m := range r.Models {
					c := r.Chat(m)
					opt := detectedOption(c, false)
					e.detected[opt] = c
					opts = append(opts, opt)
					names = append(names, engine.ModelName(m.ID)+" ("+r.Name+")")
					if set.Chat.Kind == engine.Detected && c.URL == set.Chat.URL && c.Model == set.Chat.Model {
						seen = true
					}
				}
			}
			sel := e.chat.chosen()
			if set.Chat.Kind == engine.Detected && !seen {
				// Chosen before, not running now: it stays a choice, marked so.
				opt := detectedOption(set.Chat, true)
				e.detected[opt] = set.Chat
				opts = append(opts, opt)
				if sel == detectedOption(set.Chat, false) {
					sel = opt
				}
			}
			e.chat.setOptions(append(opts, optRemote))
			e.chat.choice.Selected = optionText(sel) // as chosen: not a change of the person's
			e.chat.choice.Refresh()
			var text string
			switch {
			case len(names) == 0 && len(all.Refused) > 0:
				text = lang.L("No model runtime of yours answers on this computer.")
			case len(names) == 0:
				text = lang.L("No model runtime answers on this computer (Ollama, LM Studio, llama.cpp, vLLM).") + " " + installHint()
			case len(names) <= 3:
				text = fmt.Sprintf(lang.L("Found on this computer: %s."), strings.Join(names, ", "))
			default:
				more := len(names) - 3
				text = fmt.Sprintf(i18n.N("Found on this computer: %s and %s more.", "Found on this computer: %s and %s more.", more),
					strings.Join(names[:3], ", "), i18n.Number(more))
			}
			for _, r := range all.Refused {
				text += " " + sentence(r.Error())
			}
			e.found.SetText(text)
			if !chosen && len(found) > 0 && e.u.conn() != nil && e.u.conn().local && sel == optOffline {
				// Never chosen: the first model found is what answers.
				e.chat.choose(detectedOption(found[0].Chat(found[0].Models[0]), false))
			}
		})
	}()
}

// findRecogniser looks for a Whisper server on this computer and says, under local speech
// recognition, what it hears with.
func (e *enginesDialog) findRecogniser() {
	local := e.u.deps.Local
	go func() {
		r, ok := findRecogniser(e.ctx, local)
		e.u.do(func() {
			if e.ctx.Err() != nil {
				return
			}
			e.hears = lang.L("Hears with PocketSphinx, which gets many words wrong: a Whisper server on this computer hears far better, and is used once it runs (the README says how to start one).")
			if ok {
				e.hears = fmt.Sprintf(lang.L("Hears with %s; with PocketSphinx while it does not answer."), r.Describe())
			}
			e.sayHearing()
		})
	}()
}

// sayHearing says under local speech recognition what it hears with, when it is chosen.
func (e *enginesDialog) sayHearing() {
	if e.hears != "" && e.stt.chosen() == optPocket && e.stt.result.Text == "" {
		e.stt.say(e.hears, false)
	}
}

// fillSpeechFromChat starts a speech pane switched to a service of the person's with the chat's
// address, which is often the same (OpenAI, or a server that does all three).
func (e *enginesDialog) fillSpeechFromChat(p *enginePane) {
	if p == e.chat || !p.remote() || strings.TrimSpace(p.address.Text) != "" || !e.chat.remote() {
		return
	}
	p.address.SetText(e.chat.address.Text)
	if p.model.Text == "" {
		p.model.SetText(p.model.PlaceHolder)
	}
}

// lookForStoredKeys says, in each key field, whether a key is kept for its address.
func (e *enginesDialog) lookForStoredKeys() {
	panes := []*enginePane{e.chat, e.stt, e.tts}
	var urls []string
	for _, p := range panes {
		urls = append(urls, p.storedFor)
	}
	go func() {
		have := make([]bool, len(urls))
		for i, u := range urls {
			have[i] = u != "" && e.u.engineKey(u) != ""
		}
		e.u.do(func() {
			for i, p := range panes {
				if have[i] {
					p.key.SetPlaceHolder(lang.L("A key is kept in the keyring; type another to replace it"))
				}
			}
		})
	}()
}

// chatChoice is the chat engine the dialog shows, without a key unless one was typed.
func (e *enginesDialog) chatChoice() engine.Chat {
	switch sel := e.chat.chosen(); {
	case sel == optRemote:
		return engine.Chat{Kind: engine.Remote, URL: strings.TrimSpace(e.chat.address.Text), Model: strings.TrimSpace(e.chat.model.Text),
			Key: strings.TrimSpace(e.chat.key.Text)}
	case e.detected[sel].Kind == engine.Detected:
		return e.detected[sel]
	}
	return engine.Chat{Kind: engine.Offline}
}

// keyFor is the key to use for an address: the one typed, else the one kept for it. It runs
// off the UI goroutine.
func (e *enginesDialog) keyFor(typed, url string) string {
	if typed != "" || url == "" {
		return typed
	}
	return e.u.engineKey(url)
}

// runTest runs a pane's test off the UI goroutine and shows its line.
func (e *enginesDialog) runTest(p *enginePane, check error, try func(ctx context.Context) (string, []byte, error)) {
	if p.cancelTest != nil {
		return // one at a time: the line will say
	}
	if check != nil {
		p.say(sentence(check.Error()), true)
		return
	}
	ctx, cancel := context.WithCancel(e.ctx)
	p.cancelTest = cancel
	p.say(lang.L("Testing…"), false)
	go func() {
		line, mp3, err := try(ctx)
		e.u.do(func() {
			if ctx.Err() != nil {
				return
			}
			cancel()
			p.cancelTest = nil
			if err != nil {
				p.say(sentence(err.Error()), true)
				return
			}
			p.say(line, false)
			if len(mp3) > 0 {
				e.u.talk.PlayClip(mp3)
			}
		})
	}()
}

func (e *enginesDialog) testChat() {
	c := e.chatChoice()
	e.runTest(e.chat, c.Check(), func(ctx context.Context) (string, []byte, error) {
		if c.Kind == engine.Remote {
			c.Key = e.keyFor(c.Key, c.URL)
		}
		line, err := e.u.deps.Local.TryChat(ctx, c)
		return line, nil, err
	})
}

func (e *enginesDialog) testSTT() {
	s := e.stt.speech()
	e.runTest(e.stt, s.Check(), func(ctx context.Context) (string, []byte, error) {
		if s.Remote {
			s.Key = e.keyFor(s.Key, s.URL)
		}
		line, err := e.u.deps.Local.TrySpeechRecognition(ctx, s)
		return line, nil, err
	})
}

func (e *enginesDialog) testTTS() {
	s := e.tts.speech()
	e.runTest(e.tts, s.Check(), func(ctx context.Context) (string, []byte, error) {
		if s.Remote {
			s.Key = e.keyFor(s.Key, s.URL)
		}
		return e.u.deps.Local.TryVoices(ctx, s)
	})
}

// save checks the choices, keeps them (the keys in the keyring) and, when the built-in service
// is in use, switches its engines at once.
func (e *enginesDialog) save() {
	set := engine.Set{Chat: e.chatChoice(), STT: e.stt.speech(), TTS: e.tts.speech()}
	for _, c := range []struct {
		p   *enginePane
		err error
		key string
	}{{e.chat, set.Chat.Check(), set.Chat.Key}, {e.stt, set.STT.Check(), set.STT.Key}, {e.tts, set.TTS.Check(), set.TTS.Key}} {
		if c.err != nil {
			c.p.say(sentence(c.err.Error()), true)
			if c.p.remote() {
				bad := c.p.model // the address is right: the model's name is missing
				if engine.CheckURL(c.p.address.Text) != nil {
					bad = c.p.address
				}
				e.u.win.Canvas().Focus(bad)
			}
			return
		}
		if c.key != "" {
			if err := keystore.ValidateKey(c.key); err != nil {
				c.p.say(sentence(err.Error()), true)
				e.u.win.Canvas().Focus(c.p.key)
				return
			}
		}
	}
	typed := []struct{ url, key string }{{set.Chat.URL, set.Chat.Key}, {set.STT.URL, set.STT.Key}, {set.TTS.URL, set.TTS.Key}}
	kept := set
	kept.Chat.Key, kept.STT.Key, kept.TTS.Key = "", "", ""
	e.u.prefs.setEngines(kept)
	if e.onSaved != nil {
		e.onSaved(set.Chat)
	}
	e.close()
	u := e.u
	apply := u.conn() != nil && u.conn().local
	go func() {
		var problems []string
		for _, t := range typed {
			if t.key == "" {
				continue
			}
			sessionOnly, err := u.keepEngineKey(t.url, t.key)
			switch {
			case err != nil:
				problems = append(problems, fmt.Sprintf(lang.L("the key for %s was not kept: %s"), engine.WhereURL(t.url), err.Error()))
			case sessionOnly:
				problems = append(problems, fmt.Sprintf(lang.L("no keyring: the key for %s is kept until Parley closes"), engine.WhereURL(t.url)))
			}
		}
		if !apply {
			u.do(func() {
				u.flash(fmt.Sprintf(lang.L("Saved: the built-in service will answer with %s."), set.Chat.Describe()))
			})
			return
		}
		full := kept
		u.addEngineKeys(&full)
		st := u.deps.Local.SetEngines(u.ctx, full)
		u.do(func() {
			m := u.main
			if m == nil || !m.conn.local {
				return
			}
			m.conn.engine = st
			m.status.refresh()
			msg := fmt.Sprintf(lang.L("The built-in service answers with %s now."), st.Chat)
			if st.Notice != "" {
				msg = st.Notice
			}
			if len(problems) > 0 {
				msg += " (" + sentence(strings.Join(problems, "; ")) + ")"
			}
			u.flash(msg)
		})
	}()
}

// close ends the dialog and its tests.
func (e *enginesDialog) close() {
	for _, p := range []*enginePane{e.chat, e.stt, e.tts} {
		p.stopTest()
	}
	e.cancel()
	e.d.Hide()
}

// sentence is msg with a capital first letter, ending in a full stop unless it ends in a
// question or exclamation mark already ("running?", not "running?."), without the HTTP status
// codes a runtime's failure names ("refused the API key (401)").
func sentence(msg string) string {
	msg = strings.TrimRight(explain.WithoutStatusCodes(msg), ".")
	if msg == "" {
		return msg
	}
	msg = explain.Capitalize(msg)
	if strings.HasSuffix(msg, "?") || strings.HasSuffix(msg, "!") {
		return msg
	}
	return msg + "."
}
