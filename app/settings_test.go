package app

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"parley/app/chatview"
	"parley/app/locale"
	"parley/audio"
	"parley/client"
	"parley/conversation"
	"parley/conversation/conversationtest"
)

// savedConversation is a conversation the service has stored, on screen with its settings
// dialog open.
func savedConversation(t *testing.T, h *harness) *settingsDialog {
	t.Helper()
	h.typeAndSend("Where are we?")
	h.waitFor(func() bool { return h.shown(chatview.RowMessage) == 2 && !h.view().ID.IsZero() })
	h.u.main.showSettings()
	return h.openSettings()
}

// TestSettings_NumbersShownAsSet checks that a temperature moved to 1.15 with the arrows (which
// a slider holds as 1.1500000000000001) is sent, kept and said as 1.15.
func TestSettings_NumbersShownAsSet(t *testing.T) {
	svc := newFakeService()
	h := start(t, svc)
	s := savedConversation(t, h)
	s.tempOn.SetChecked(true)
	s.temp.SetValue(1)
	for range 3 {
		s.temp.TypedKey(&fyne.KeyEvent{Name: fyne.KeyRight})
	}
	s.topOn.SetChecked(true)
	s.top.SetValue(0.9)
	for range 3 {
		s.top.TypedKey(&fyne.KeyEvent{Name: fyne.KeyLeft})
	}
	if s.tempVal.Text != "1.15" || s.topVal.Text != "0.87" {
		t.Errorf("the sliders say %q and %q, want 1.15 and 0.87", s.tempVal.Text, s.topVal.Text)
	}
	test.Tap(s.saveBtn)
	h.waitFor(func() bool { p, _, _ := svc.Recorded(); return len(p) == 1 && h.u.closeDialog == nil })
	p, _, _ := svc.Recorded()
	if p[0].Temperature == nil || *p[0].Temperature != 1.15 || p[0].TopP == nil || *p[0].TopP != 0.87 {
		t.Errorf("sent temperature %s, top p %s; want exactly 1.15 and 0.87", numberOf(p[0].Temperature), numberOf(p[0].TopP))
	}
	msg := h.u.main.status.message.Text
	if !strings.Contains(msg, "temperature 1.15,") || !strings.Contains(msg, "top p 0.87") {
		t.Errorf("the status bar says %q", msg)
	}
	// A value an earlier version stored with float noise is said the short way too.
	noisy := 1.1500000000000001
	if got := describeConfig(client.Config{Temperature: &noisy}); got != "temperature 1.15" {
		t.Errorf("describeConfig(1.1500000000000001) = %q", got)
	}
}

// TestSettings_VoiceMustBeOneTheServiceHas checks that a voice the service does not list
// cannot be saved, that a voice kept earlier that it does not know is pointed out when the
// dialog opens, and that with a service that lists no voices any name goes.
func TestSettings_VoiceMustBeOneTheServiceHas(t *testing.T) {
	svc := newFakeService()
	svc.VoiceList = []client.Voice{{Name: "flite-slt"}, {Name: "en-us"}}
	h := start(t, svc)
	s := savedConversation(t, h)
	h.waitFor(func() bool { return s.listed })
	s.voice.SetText("99999999")
	if !s.saveBtn.Disabled() || !s.errText.Visible() || !strings.Contains(s.errText.Text, "no voice “99999999”") {
		t.Errorf("an unknown voice: save enabled %v, message %q", !s.saveBtn.Disabled(), s.errText.Text)
	}
	s.save() // Enter
	if p, _, _ := svc.Recorded(); len(p) != 0 || h.u.closeDialog == nil {
		t.Fatal("the unknown voice was saved")
	}
	s.voice.SetText("en-us")
	if s.saveBtn.Disabled() || s.errText.Visible() {
		t.Errorf("a listed voice: save enabled %v, message %q", !s.saveBtn.Disabled(), s.errText.Text)
	}
	s.voice.SetText("")
	if s.saveBtn.Disabled() {
		t.Error("no voice (the default) cannot be saved")
	}
	s.voice.SetText("en-us")
	test.Tap(s.saveBtn)
	h.waitFor(func() bool { return h.u.closeDialog == nil })
	if v := h.view().Voice; v != "en-us" {
		t.Errorf("the conversation's voice is %q", v)
	}

	// A voice kept before the check, which this service does not have.
	svc.Mu.Lock()
	svc.VoiceList = []client.Voice{{Name: "flite-slt"}}
	svc.Mu.Unlock()
	h.u.main.showSettings()
	s = h.openSettings()
	h.waitFor(func() bool { return s.listed })
	if !s.errText.Visible() || !strings.Contains(s.errText.Text, "“en-us” kept here is not one of this service's voices") {
		t.Errorf("a kept voice the service does not have: message %q", s.errText.Text)
	}
	h.u.escape()

	// A service that lists no voices: the name is the person's to choose.
	svc.Mu.Lock()
	svc.VoiceList = nil
	svc.Mu.Unlock()
	h.u.main.showSettings()
	s = h.openSettings()
	s.voice.SetText("99999999")
	if s.saveBtn.Disabled() {
		t.Errorf("with no list of voices, a name was refused: %q", s.errText.Text)
	}
}

// numberOf prints a setting's number, or "unset".
func numberOf(v *float64) string {
	if v == nil {
		return "unset"
	}
	return strconv.FormatFloat(*v, 'g', -1, 64)
}

// A conversation's speech language, chosen in its settings, goes with each spoken question to
// the built-in service (which takes one) and is kept on this computer for the next start; a
// service that takes none is sent none, and the choice is greyed out with why.
func TestSettings_SpeechLanguageSentAndKept(t *testing.T) {
	svc := newFakeService()
	svc.Heard = "Wie spät ist es"
	path := filepath.Join(t.TempDir(), "conversations.db")
	local := func(h *harness) {
		h.u.attach(&connection{svc: svc, baseURL: svc.BaseURL(), local: true})
	}
	h := startWith(t, svc, test.NewTempApp(t), func(d *Deps) { d.ArchivePath = path })
	local(h)
	s := savedConversation(t, h)
	if s.speechLang.Disabled() || s.speechLang.Selected != "As in Preferences: Told by the recogniser" {
		t.Fatalf("speech language: disabled %v, shows %q", s.speechLang.Disabled(), s.speechLang.Selected)
	}
	german := slices.Index(s.speechLangs, "de")
	s.speechLang.SetSelectedIndex(german)
	if !strings.HasPrefix(s.speechLang.Selected, "Deutsch") {
		t.Errorf("German is offered as %q", s.speechLang.Selected)
	}
	test.Tap(s.saveBtn)
	th := h.u.main.current
	h.waitFor(func() bool { return h.u.main.sess.Snapshot(th).SpeechLanguage == "de" && h.u.closeDialog == nil })
	id := h.view().ID
	if p, _, _ := svc.Recorded(); len(p) != 0 {
		t.Errorf("the speech language went to the service as a setting: %+v", p)
	}

	if asked, _ := sayInto(t, h, svc, 1); asked != "de" {
		t.Errorf("transcribed with language %q, want de", asked)
	}

	// Kept for the next start.
	h.u.shutdown()
	h.u.Wait(5 * time.Second)
	h2 := startWith(t, svc, test.NewTempApp(t), func(d *Deps) { d.ArchivePath = path })
	local(h2)
	h2.u.main.open(id)
	h2.waitFor(func() bool {
		return h2.u.main.current != nil && h2.u.main.sess.Snapshot(h2.u.main.current).SpeechLanguage == "de"
	})

	// Another service takes no language: nothing is sent, the choice is greyed out.
	h3 := start(t, svc)
	s3 := savedConversation(t, h3)
	if !s3.speechLang.Disabled() {
		t.Error("the speech language can be chosen for a service that takes none")
	}
	s3.cancel()
	if asked, expected := sayInto(t, h3, svc, 2); asked != "" || expected != "" {
		t.Errorf("a service that takes no language was sent %q, %q", asked, expected)
	}
}

// With no speech language chosen, a conversation written in another language than English has
// its questions expected in that language (the built-in recogniser, English only, then says it
// cannot hear them instead of guessing English words); one in English, or a service that takes
// no language, gets no hint.
func TestTalk_QuestionsExpectedInTheConversationsLanguage(t *testing.T) {
	svc := newFakeService()
	svc.Heard = "Hallo"
	h := start(t, svc)
	h.u.attach(&connection{svc: svc, baseURL: svc.BaseURL(), local: true})
	h.typeAndSend("Wie spät ist es jetzt in Berlin, und wie wird das Wetter morgen?")
	h.waitFor(func() bool { return h.shown(chatview.RowMessage) == 2 && !h.view().ID.IsZero() })
	if asked, expected := sayInto(t, h, svc, 1); asked != "" || expected != "de" {
		t.Errorf("a German conversation: asked %q, expected %q; want none and de", asked, expected)
	}
	h.u.main.newConversation()
	h.typeAndSend("What is the weather like in Berlin tomorrow, and what time is it?")
	h.waitFor(func() bool { return h.shown(chatview.RowMessage) == 2 && !h.view().ID.IsZero() })
	if asked, expected := sayInto(t, h, svc, 2); asked != "" || expected != "" {
		t.Errorf("an English conversation: asked %q, expected %q; want neither", asked, expected)
	}

	// In a Polish window, a new conversation's questions are expected in Polish; an English one's
	// still in none (its words tell).
	locale.Use("pl")
	t.Cleanup(func() { locale.Use("en") })
	if asked, expected := sayInto(t, h, svc, 3); asked != "" || expected != "" {
		t.Errorf("an English conversation in a Polish window: asked %q, expected %q; want neither", asked, expected)
	}
	h.u.main.newConversation()
	if asked, expected := sayInto(t, h, svc, 4); asked != "" || expected != "pl" {
		t.Errorf("a new conversation in a Polish window: asked %q, expected %q; want none and pl", asked, expected)
	}
}

// The built-in presets show in the window's language and are stored by their English names,
// so that a default preset chosen in German is found in English; the person cannot take a
// built-in one's translated name for their own.
func TestPresets_BuiltInNamesShownInTheWindowsLanguage(t *testing.T) {
	locale.Use("de")
	t.Cleanup(func() { locale.Use("en") })
	plain := builtInPresets[0]
	title := plain.Title()
	if title == plain.Name || title == "" {
		t.Fatalf("%q shows as %q in German", plain.Name, title)
	}
	book := presetBook{prefs{test.NewTempApp(t).Preferences()}}
	// Kept by its English name (the default preset), it is found in the German window.
	if p, ok := book.find(plain.Name); !ok || p.Title() != title {
		t.Errorf("find(%q) = %+v, %v", plain.Name, p, ok)
	}
	if err := book.save(Preset{Name: title}); err != errPresetBuiltIn {
		t.Errorf("saving a preset named %q: %v, want errPresetBuiltIn", title, err)
	}
	if got := presetTitles(book.all()); got[0] != title {
		t.Errorf("titles %v", got)
	}

	// A person's preset called what a built-in one is called in German, saved in an English
	// window: in the German window both are listed, each chosen by its place.
	h := start(t, newFakeService())
	locale.Use("en")
	if err := (presetBook{h.u.prefs}).save(Preset{Name: title, Persona: "mine"}); err != nil {
		t.Fatal(err)
	}
	locale.Use("de")
	s := savedConversation(t, h)
	s.preset.SetSelectedIndex(0)
	if s.persona.Text != "" || !s.rename.Disabled() {
		t.Errorf("the built-in %q chosen: persona %q, rename enabled %v", title, s.persona.Text, !s.rename.Disabled())
	}
	s.preset.SetSelectedIndex(len(builtInPresets))
	if s.preset.Selected != title+" (eigene)" || s.persona.Text != "mine" || s.rename.Disabled() {
		t.Errorf("the person's %q chosen: shows %q, persona %q, rename enabled %v", title, s.preset.Selected, s.persona.Text, !s.rename.Disabled())
	}
}

// parley serve elsewhere, told by the chat engine its account answer names, takes a speech
// language as the built-in service does.
func TestSettings_SpeechLanguageForParleyServeElsewhere(t *testing.T) {
	ref := &namedEngine{Service: newFakeService()}
	h := start(t, newFakeService())
	h.u.attach(&connection{svc: ref, baseURL: ref.BaseURL()})
	h.waitFor(func() bool { return h.u.main.parleys })
	s := savedConversation(t, h)
	if s.speechLang.Disabled() {
		t.Fatal("the speech language cannot be chosen for parley serve")
	}
	s.speechLang.SetSelectedIndex(slices.Index(s.speechLangs, "uk"))
	test.Tap(s.saveBtn)
	h.waitFor(func() bool { return h.u.closeDialog == nil })
	if asked, _ := sayInto(t, h, ref.Service, 1); asked != "uk" {
		t.Errorf("parley serve was asked for %q, want uk", asked)
	}
}

// Preferences' speech language goes with the questions of every conversation that names none;
// a conversation's own wins.
func TestPreferences_SpeechLanguageForConversationsThatNameNone(t *testing.T) {
	svc := newFakeService()
	svc.Heard = "Hello"
	h := start(t, svc)
	h.u.attach(&connection{svc: svc, baseURL: svc.BaseURL(), local: true})
	h.u.showPreferences()
	p := h.u.topDialog().owner.(*preferencesDialog)
	p.speechLang.SetSelectedIndex(slices.Index(p.speechLangs, "fr"))
	p.keys.submit()
	h.waitFor(func() bool { return h.u.prefs.speechLanguage() == "fr" && h.u.closeDialog == nil })

	if got, _ := sayInto(t, h, svc, 1); got != "fr" {
		t.Errorf("a new conversation's question asked in %q, want fr (Preferences)", got)
	}
	s := savedConversation(t, h)
	if s.speechLang.Selected != "As in Preferences: Français (French)" {
		t.Errorf("the conversation's choice says %q", s.speechLang.Selected)
	}
	s.speechLang.SetSelectedIndex(slices.Index(s.speechLangs, "en"))
	test.Tap(s.saveBtn)
	h.waitFor(func() bool { return h.u.closeDialog == nil })
	if got, _ := sayInto(t, h, svc, 2); got != "en" {
		t.Errorf("a conversation set to English asked in %q", got)
	}
	// Left to the recogniser, whatever Preferences say.
	h.u.main.showSettings()
	s = h.openSettings()
	s.speechLang.SetSelectedIndex(slices.Index(s.speechLangs, conversation.SpeechAuto))
	if s.speechLang.Selected != "Told by the recogniser" {
		t.Errorf("the automatic choice reads %q", s.speechLang.Selected)
	}
	test.Tap(s.saveBtn)
	h.waitFor(func() bool { return h.u.closeDialog == nil })
	if got, _ := sayInto(t, h, svc, 3); got != "" {
		t.Errorf("a conversation left to the recogniser asked in %q", got)
	}
}

// A settings dialog opened before the conversation's speech settings were read from the archive
// (they are read in the background at the start) does not blank them when it saves something
// else.
func TestSettings_SaveKeepsSpeechReadAfterTheDialogOpened(t *testing.T) {
	svc := newFakeService()
	h := start(t, svc)
	h.u.attach(&connection{svc: svc, baseURL: svc.BaseURL(), local: true})
	s := savedConversation(t, h)
	id := h.view().ID
	h.u.main.sess.SetSpeeches(map[string]conversation.Speech{id.String(): {Voice: "flite-awb", Language: "de"}})
	s.maxTok.SetText("64")
	test.Tap(s.saveBtn)
	h.waitFor(func() bool { p, _, _ := svc.Recorded(); return len(p) == 1 && h.u.closeDialog == nil })
	if v := h.view(); v.SpeechLanguage != "de" || v.Voice != "flite-awb" {
		t.Errorf("after saving the max tokens: voice %q, speech language %q", v.Voice, v.SpeechLanguage)
	}
}

// sayInto records a take with push-to-talk in h and waits for svc's n-th transcription: it
// returns the language it was asked in and the one it was expected in.
func sayInto(t *testing.T, h *harness, svc *conversationtest.Service, n int) (asked, expected string) {
	t.Helper()
	h.rec.take = &audio.Take{Audio: []byte("webm"), MIME: "audio/webm", Speech: true, Duration: time.Second}
	h.u.toggleRecording()
	<-h.rec.calls
	h.waitFor(func() bool { svc.Mu.Lock(); defer svc.Mu.Unlock(); return len(svc.Expecting) == n })
	svc.Mu.Lock()
	defer svc.Mu.Unlock()
	return svc.TranscribedIn[n-1], svc.Expecting[n-1]
}
