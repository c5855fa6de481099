package app

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"parley/app/chatview"
	"parley/audio"
	"parley/audio/playback"
	"parley/audio/playback/playbacktest"
	"parley/client"
	"parley/conversation"
	"parley/conversation/conversationtest"
)

// newFakeService is the scripted service the window's tests talk to.
func newFakeService() *conversationtest.Service { return conversationtest.New() }

// fakeRecorder returns a scripted take.
type fakeRecorder struct {
	take  *audio.Take
	calls chan struct{}
}

func (r *fakeRecorder) Record(ctx context.Context, opts audio.TakeOptions) (*audio.Take, error) {
	r.calls <- struct{}{}
	return r.take, nil
}

func (r *fakeRecorder) Stop() {}

// memSecrets is a keyring in memory.
type memSecrets struct {
	mu   sync.Mutex
	keys map[string]string
	err  error
}

func (m *memSecrets) Get(base string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return "", m.err
	}
	return m.keys[base], nil
}

func (m *memSecrets) Set(base, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return m.err
	}
	m.keys[base] = key
	return nil
}

func (m *memSecrets) Delete(string) error { return nil }

// harness is the app over fakes, with a channel told after every rendered change.
type harness struct {
	t      testing.TB
	u      *UI
	svc    *conversationtest.Service
	rec    *fakeRecorder
	player *playbacktest.Player
	queue  chan func() // updates from background work, run by waitFor on the test goroutine
}

// start builds the app on the fake service, as if PARLEY_BASE_URL and PARLEY_API_KEY were set.
func start(t testing.TB, svc *conversationtest.Service) *harness {
	t.Helper()
	return startWith(t, svc, test.NewTempApp(t), nil)
}

// startWith is start on the app a, with the Deps changed by edit (when not nil) before the
// window is built.
func startWith(t testing.TB, svc *conversationtest.Service, a fyne.App, edit func(*Deps)) *harness {
	t.Helper()
	h := &harness{t: t, svc: svc, queue: make(chan func(), 1000),
		rec:    &fakeRecorder{calls: make(chan struct{}, 10)},
		player: playbacktest.New()}
	env := map[string]string{"PARLEY_BASE_URL": svc.BaseURL(), "PARLEY_API_KEY": "pk_test_0123456789abcdef"}
	deps := Deps{
		Connect:     func(string, client.APIKey) (Service, error) { return svc, nil },
		Secrets:     &memSecrets{keys: map[string]string{}},
		NewRecorder: func() Recorder { return h.rec },
		NewPlayer:   func(on func(playback.Event)) Player { return h.player.Open(on) },
		Getenv:      func(k string) string { return env[k] },
		Version:     "parley test",
		Now:         fixedNow,
		run:         func(fn func()) { h.queue <- fn },
		fillAfter:   -1, // a test that fills the search index says so
	}
	if edit != nil {
		edit(&deps)
	}
	h.u = New(a, deps)
	h.u.win.Resize(fyne.NewSize(1000, 700))
	// Ready: the main window is up and the account's balance (read at start) is shown.
	h.waitFor(func() bool { return h.u.main != nil && h.u.main.status.points.Text != "" })
	t.Cleanup(func() { h.u.shutdown() })
	return h
}

// waitFor runs the window's updates, one by one, until cond holds.
func (h *harness) waitFor(cond func() bool) {
	h.t.Helper()
	deadline := time.After(10 * time.Second)
	for !cond() {
		select {
		case fn := <-h.queue:
			fn()
		case <-time.After(20 * time.Millisecond):
			// Some conditions (clips played) change without a window update.
		case <-deadline:
			h.t.Fatal("the window never reached the expected state")
		}
	}
}

// typeAndSend types text in the composer and presses Enter.
func (h *harness) typeAndSend(text string) {
	test.Type(h.u.main.composer.entry, text)
	h.u.main.composer.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
}

func (h *harness) view() conversation.ThreadView { return h.u.main.sess.Snapshot(h.u.main.current) }

// shown counts the chat view's rendered rows of a kind.
func (h *harness) shown(kind chatview.RowKind) int {
	n := 0
	for _, r := range h.u.main.chat.Rows() {
		if r.Kind == kind {
			n++
		}
	}
	return n
}

// failedShown reports whether a failed (or lost) message is rendered.
func (h *harness) failedShown() bool {
	for _, r := range h.u.main.chat.Rows() {
		if r.Kind == chatview.RowTurn && (r.Turn.State == conversation.Failed || r.Turn.State == conversation.Lost) {
			return true
		}
	}
	return false
}

func TestApp_FirstSendCreatesConversationSecondContinues(t *testing.T) {
	h := start(t, newFakeService())
	if h.u.win.Canvas().Focused() != h.u.main.composer.entry {
		t.Error("the composer does not have the keyboard when the window opens")
	}
	h.typeAndSend("Hello there")
	h.waitFor(func() bool { return h.shown(chatview.RowMessage) == 2 })
	if h.u.main.composer.text() != "" || h.u.win.Canvas().Focused() != h.u.main.composer.entry {
		t.Errorf("after sending: composer %q, focus %v", h.u.main.composer.text(), h.u.win.Canvas().Focused())
	}
	h.waitFor(func() bool { return len(h.u.main.sidebar.items) == 1 })
	if h.u.main.sidebar.items[0].DisplayTitle() != "Hello there" || h.u.main.currentEntry().ID.String() != "c1" {
		t.Errorf("sidebar %+v, current %v", h.u.main.sidebar.items, h.u.main.currentEntry().ID)
	}
	if h.u.main.header.title.Text != "Hello there" {
		t.Errorf("header %q", h.u.main.header.title.Text)
	}
	h.typeAndSend("And again")
	h.waitFor(func() bool { return h.shown(chatview.RowMessage) == 4 })
	reqs := h.svc.ChatRequests()
	if len(reqs) != 2 || reqs[1].ConversationID.String() != "c1" {
		t.Errorf("requests %+v", reqs)
	}
	if len(h.u.main.sidebar.items) != 1 {
		t.Errorf("the second send made another conversation: %+v", h.u.main.sidebar.items)
	}
	if got := h.u.main.status.points.Text; !strings.Contains(got, "1 point") || !strings.Contains(got, "99 points") {
		t.Errorf("status bar points %q", got)
	}
}

func TestApp_ShiftEnterAddsALine(t *testing.T) {
	h := start(t, newFakeService())
	e := h.u.main.composer.entry
	test.Type(e, "line one")
	e.KeyDown(&fyne.KeyEvent{Name: "LeftShift"})
	e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	e.KeyUp(&fyne.KeyEvent{Name: "LeftShift"})
	test.Type(e, "line two")
	if e.Text != "line one\nline two" || len(h.svc.ChatRequests()) != 0 {
		t.Errorf("composer %q after Shift+Enter, %d calls", e.Text, len(h.svc.ChatRequests()))
	}
}

func TestApp_SwitchingWhileReplyPendingLandsInItsConversation(t *testing.T) {
	svc := newFakeService()
	svc.Histories["old"] = &client.History{ConversationID: conversationtest.ID("old"), Messages: []client.Message{{Role: "user", Content: "earlier"}}}
	svc.List = []client.Conversation{{ID: conversationtest.ID("old"), Title: "Earlier talk"}}
	svc.Gate = make(chan struct{})
	h := start(t, svc)
	h.typeAndSend("Question")
	<-svc.Entered
	pending := h.u.main.current
	h.waitFor(func() bool { return h.shown(chatview.RowThinking) == 1 })
	if rows := h.u.main.chat.Rows(); len(rows) != 2 || rows[1].Kind != chatview.RowThinking {
		t.Fatalf("while waiting: rows %+v, want the message and a thinking bubble", rows)
	}
	// The composer stays usable: type a draft, then switch away.
	test.Type(h.u.main.composer.entry, "half-typed")
	h.waitFor(func() bool {
		for _, e := range h.u.main.sidebar.items {
			if e.ID.String() == "old" {
				return true
			}
		}
		return false
	})
	h.u.main.open(conversationtest.ID("old"))
	h.waitFor(func() bool { return h.shown(chatview.RowMessage) == 1 })
	if h.u.main.composer.text() != "" {
		t.Errorf("the draft followed to the other conversation: %q", h.u.main.composer.text())
	}
	svc.Gate <- struct{}{}
	h.waitFor(func() bool {
		return len(h.u.main.sess.Snapshot(pending).Messages) == 2 && len(h.u.main.sidebar.items) == 2
	})
	if len(h.view().Messages) != 1 {
		t.Errorf("the reply landed in the conversation on screen: %+v", h.view().Messages)
	}
	h.u.main.show(pending)
	if h.u.main.composer.text() != "half-typed" {
		t.Errorf("the draft was lost: %q", h.u.main.composer.text())
	}
}

func TestApp_ErrorThenRetryKeepsTheText(t *testing.T) {
	svc := newFakeService()
	svc.ChatErrs = []error{&client.Error{StatusCode: 503, Message: "overloaded"}}
	h := start(t, svc)
	h.typeAndSend("Do not lose me")
	h.waitFor(h.failedShown)
	row := h.u.main.chat.Rows()[0]
	if row.Kind != chatview.RowTurn || row.Text != "Do not lose me" {
		t.Fatalf("the failed message is not shown with its text: %+v", row)
	}
	b := h.u.main.chat.Draw(0)
	if !strings.Contains(b.Meta(), "unavailable") || b.Retry().Hidden {
		t.Errorf("failed bubble: %q, retry hidden %v", b.Meta(), b.Retry().Hidden)
	}
	test.Tap(b.Retry())
	h.waitFor(func() bool { return h.shown(chatview.RowMessage) == 2 })
	if got := h.view().Messages[0].Text; got != "Do not lose me" {
		t.Errorf("retried message %q", got)
	}
}

func TestApp_401OpensAccount(t *testing.T) {
	svc := newFakeService()
	svc.ChatErrs = []error{&client.Error{StatusCode: 401, Message: "Unknown API key."}}
	h := start(t, svc)
	h.typeAndSend("hi")
	h.waitFor(h.failedShown)
	if h.u.closeDialog == nil || !strings.Contains(test.RenderToMarkup(h.u.win.Canvas()), "Account") {
		t.Error("a refused key did not open the account dialog")
	}
	if h.view().Turns[0].Text != "hi" {
		t.Error("the message was lost")
	}
}

func TestApp_DeleteWithUndo(t *testing.T) {
	svc := newFakeService()
	h := start(t, svc)
	h.typeAndSend("Plan a trip")
	h.waitFor(func() bool { return len(h.u.main.sidebar.items) == 1 && len(h.view().Messages) == 2 })
	h.u.main.deleteConversation(h.u.main.currentEntry())
	h.waitFor(func() bool { return len(h.u.main.sidebar.items) == 0 && h.view().ID.IsZero() })
	if msg := h.u.main.status.message.Text; msg != "Deleted “Plan a trip”." || !h.u.main.status.action.Visible() || h.u.main.status.action.Text != "Undo" {
		t.Fatalf("the status bar says %q, Undo shown %v", msg, h.u.main.status.action.Visible())
	}
	if _, d, _ := svc.Recorded(); len(d) != 0 {
		t.Fatal("deleted before Undo ran out")
	}
	test.Tap(h.u.main.status.action)
	h.waitFor(func() bool { return len(h.u.main.sidebar.items) == 1 && h.view().ID.String() == "c1" })
	if h.u.main.status.action.Visible() || !strings.Contains(h.u.main.status.message.Text, "is back") {
		t.Errorf("after Undo the status bar says %q", h.u.main.status.message.Text)
	}

	// Deleted again, and Undo runs out: the service deletes it.
	old := undoFor
	undoFor = 50 * time.Millisecond
	t.Cleanup(func() { undoFor = old })
	h.u.main.deleteConversation(h.u.main.currentEntry())
	h.waitFor(func() bool { _, d, _ := svc.Recorded(); return len(d) == 1 })
	if _, d, _ := svc.Recorded(); d[0] != "c1" {
		t.Errorf("deletes %v", d)
	}
	h.waitFor(func() bool { return !h.u.main.status.action.Visible() })
}

func TestApp_QuittingWithinUndoDeletes(t *testing.T) {
	svc := newFakeService()
	h := start(t, svc)
	h.typeAndSend("Plan a trip")
	h.waitFor(func() bool { return len(h.u.main.sidebar.items) == 1 && len(h.view().Messages) == 2 })
	h.u.main.deleteConversation(h.u.main.currentEntry())
	h.u.shutdown()
	if !h.u.Wait(10 * time.Second) {
		t.Fatal("the delete was not waited for")
	}
	if _, d, _ := svc.Recorded(); len(d) != 1 || d[0] != "c1" {
		t.Errorf("deletes %v; quitting within Undo deletes as asked", d)
	}
}

func TestApp_SearchFilters(t *testing.T) {
	svc := newFakeService()
	svc.List = []client.Conversation{{ID: conversationtest.ID("a"), Title: "Lisbon trip"}, {ID: conversationtest.ID("b"), Title: "Sourdough"}}
	svc.Histories["b"] = &client.History{ConversationID: conversationtest.ID("b"), Messages: []client.Message{{Role: "user", Content: "How long to proof the lighthouse loaf?"}}}
	h := start(t, svc)
	h.waitFor(func() bool { return len(h.u.main.sidebar.items) == 2 })
	h.u.main.open(conversationtest.ID("b"))
	h.waitFor(func() bool { return h.shown(chatview.RowMessage) == 1 })
	test.Type(h.u.main.sidebar.search, "lighthouse")
	if len(h.u.main.sidebar.items) != 1 || h.u.main.sidebar.items[0].ID.String() != "b" {
		t.Errorf("searching the text: %+v", h.u.main.sidebar.items)
	}
	h.u.main.sidebar.search.SetText("lisbon")
	if len(h.u.main.sidebar.items) != 1 || h.u.main.sidebar.items[0].ID.String() != "a" {
		t.Errorf("searching titles: %+v", h.u.main.sidebar.items)
	}
	h.u.main.sidebar.search.SetText("nothing like this")
	if len(h.u.main.sidebar.items) != 0 || h.u.main.sidebar.noMatch.Hidden {
		t.Errorf("a search that finds nothing: %+v, 'no match' hidden %v", h.u.main.sidebar.items, h.u.main.sidebar.noMatch.Hidden)
	}
	h.u.main.sidebar.search.SetText("")
	if len(h.u.main.sidebar.items) != 2 || !h.u.main.sidebar.noMatch.Hidden {
		t.Errorf("clearing the search: %+v", h.u.main.sidebar.items)
	}
	h.u.main.sidebar.search.SetText("lisbon")
	h.u.main.sidebar.search.OnSubmitted("lisbon")
	h.waitFor(func() bool { return h.view().ID.String() == "a" })
}

func TestApp_SettingsFirstCallThenPatchOnlyChanges(t *testing.T) {
	svc := newFakeService()
	h := start(t, svc)
	// A new conversation: the settings travel on its first call.
	h.u.main.showSettings()
	s := h.openSettings()
	if h.u.win.Canvas().Focused() != s.persona {
		t.Error("the settings dialog does not open with the persona focused")
	}
	test.Type(s.persona, "a ship's navigator")
	s.tempOn.SetChecked(true)
	s.temp.SetValue(0.4)
	s.persona.TypedShortcut(scSubmit) // Ctrl+Enter
	h.waitFor(func() bool { return h.u.closeDialog == nil })
	h.typeAndSend("Where are we?")
	h.waitFor(func() bool { return h.shown(chatview.RowMessage) == 2 })
	first := h.svc.ChatRequests()[0]
	if first.Persona == nil || *first.Persona != "a ship's navigator" || first.Temperature == nil || *first.Temperature != 0.4 {
		t.Errorf("first call %+v: want the persona and temperature", first)
	}
	if p, _, _ := svc.Recorded(); len(p) != 0 {
		t.Error("a new conversation's settings were PATCHed")
	}

	// An existing one: only the changed field is sent.
	h.u.main.sess.Reload(h.u.main.current)
	h.waitFor(func() bool { return h.view().Config.Persona != nil && !h.view().Loading })
	h.u.main.showSettings()
	s = h.openSettings()
	s.maxTok.SetText("64")
	test.Tap(s.saveBtn)
	h.waitFor(func() bool { p, _, _ := svc.Recorded(); return len(p) == 1 && h.u.closeDialog == nil })
	patches, _, _ := svc.Recorded()
	p := patches[0]
	if p.MaxTokens == nil || *p.MaxTokens != 64 || p.Persona != nil || p.Temperature != nil || p.TopP != nil {
		t.Errorf("PATCH sent %+v; want only max_tokens", p)
	}

	// Inline validation.
	h.u.main.showSettings()
	s = h.openSettings()
	s.maxTok.SetText("zero")
	if !s.saveBtn.Disabled() || !strings.Contains(s.errText.Text, "Max tokens") {
		t.Errorf("an invalid max tokens: save enabled %v, message %q", !s.saveBtn.Disabled(), s.errText.Text)
	}
	h.u.escape()
	if h.u.closeDialog != nil {
		t.Error("Esc did not close the dialog")
	}
}

// openSettings returns the settings dialog on screen.
func (h *harness) openSettings() *settingsDialog {
	h.t.Helper()
	s, ok := dialogOf[*settingsDialog](h.u)
	if !ok {
		h.t.Fatal("no settings dialog")
	}
	return s
}

func TestApp_PresetsSaveRenameDeleteAndStart(t *testing.T) {
	h := start(t, newFakeService())
	h.u.main.showSettings()
	s := h.openSettings()
	s.preset.SetSelected("Tutor")
	if !strings.Contains(s.persona.Text, "patient tutor") || !s.tempOn.Checked {
		t.Fatalf("picking Tutor filled %q (temperature set %v)", s.persona.Text, s.tempOn.Checked)
	}
	s.persona.SetText("You are a sailing instructor.")
	book := presetBook{h.u.prefs}
	if err := book.save(Preset{Name: "Sailing", Persona: s.persona.Text}); err != nil {
		t.Fatal(err)
	}
	if err := book.save(Preset{Name: "tutor"}); !errors.Is(err, errPresetBuiltIn) {
		t.Errorf("overwriting a built-in: %v", err)
	}
	if err := book.rename("Sailing", "Sailing school"); err != nil {
		t.Fatal(err)
	}
	p, ok := book.find("Sailing school")
	if !ok || p.Persona != "You are a sailing instructor." {
		t.Fatalf("renamed preset %+v %v", p, ok)
	}
	h.u.escape()
	h.u.main.newFromPreset(p)
	if v := h.view(); v.Config.Persona == nil || *v.Config.Persona != p.Persona || !v.ID.IsZero() {
		t.Errorf("a new conversation from the preset: %+v", v.Config)
	}
	if err := book.remove("Sailing school"); err != nil || len(book.own()) != 0 {
		t.Errorf("remove: %v, left %+v", err, book.own())
	}
}

func TestApp_RecordingPutsTranscriptInComposer(t *testing.T) {
	svc := newFakeService()
	h := start(t, svc)
	h.rec.take = &audio.Take{Audio: []byte("webm"), MIME: "audio/webm", Speech: true, Duration: time.Second}
	h.u.toggleRecording()
	<-h.rec.calls
	h.waitFor(func() bool { return h.u.main.composer.text() == "What is the weather like?" })
	if len(svc.ChatRequests()) != 0 {
		t.Error("the transcript was sent without review")
	}
	if h.u.talk.State().Recording || !h.u.main.composer.recording.Hidden {
		t.Error("still shown as recording")
	}
}

func TestApp_EmptyTakeMakesNoCalls(t *testing.T) {
	svc := newFakeService()
	h := start(t, svc)
	h.rec.take = &audio.Take{Speech: false, Duration: 2 * time.Second}
	h.u.toggleRecording()
	<-h.rec.calls
	h.waitFor(func() bool { return !h.u.talk.State().Recording })
	if _, _, n := svc.Recorded(); n != 0 || len(svc.ChatRequests()) != 0 {
		t.Errorf("an empty take made %d transcribe and %d chat calls", n, len(svc.ChatRequests()))
	}
	if c := h.u.main.composer; c.notice.Hidden || !strings.Contains(c.noticeText.Text, "Didn't catch that") {
		t.Errorf("composer notice %q (hidden %v)", c.noticeText.Text, c.notice.Hidden)
	}
}

func TestApp_AutoSpeakRequestsFirstSentenceFirst(t *testing.T) {
	svc := newFakeService()
	h := start(t, svc)
	h.u.app.Preferences().SetBool(prefAutoSpeak, true)
	h.typeAndSend("Where to")
	h.waitFor(func() bool { return len(h.player.Added) == 3 })
	if first := <-h.player.Added; first != "Re: Where to." {
		t.Errorf("first clip %q, want the reply's first sentence", first)
	}
	if h.u.main.status.voice.Text != "Speaking" || h.u.main.composer.stop.Hidden {
		t.Errorf("while speaking: status %q, stop hidden %v", h.u.main.status.voice.Text, h.u.main.composer.stop.Hidden)
	}
	svc.Mu.Lock()
	defer svc.Mu.Unlock()
	if len(svc.Speech) != 3 || !contains(svc.Speech, "Re: Where to.") {
		t.Errorf("speech asked for %q", svc.Speech)
	}
}

// A reply in German is spoken by the service's German voice, where the person's voice is
// English; a conversation's own voice is kept.
func TestApp_ReplySpokenByAVoiceOfItsLanguage(t *testing.T) {
	svc := newFakeService()
	svc.VoiceList = []client.Voice{{Name: "flite-slt", Language: "en-US", Default: true}, {Name: "de", Language: "de"}}
	svc.Reply = func(string) string { return "Morgen wird es sonnig, mit einer leichten Brise aus Westen." }
	h := start(t, svc)
	h.u.app.Preferences().SetBool(prefAutoSpeak, true)
	h.u.prefs.setDefaultVoice("flite-slt")
	h.waitFor(func() bool { return len(h.u.talk.ServiceVoices()) == 2 }) // read as the service was attached
	h.typeAndSend("Wie wird das Wetter?")
	h.waitFor(func() bool { svc.Mu.Lock(); defer svc.Mu.Unlock(); return len(svc.SpeechVoices) > 0 })
	svc.Mu.Lock()
	defer svc.Mu.Unlock()
	if svc.SpeechVoices[0] != "de" {
		t.Errorf("the German reply was spoken with %q, want the German voice", svc.SpeechVoices)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// findButton finds a button with text label under o.
func findButton(o fyne.CanvasObject, label string) *widget.Button {
	for _, obj := range test.LaidOutObjects(o) {
		if b, ok := obj.(*widget.Button); ok && b.Text == label {
			return b
		}
		if b, ok := obj.(*button); ok && b.Text == label {
			return &b.Button
		}
	}
	return nil
}

// openDialogOf returns the open dialog of type T, failing the test when none is open.
func openDialogOf[T any](t testing.TB, u *UI) T {
	t.Helper()
	d, ok := dialogOf[T](u)
	if !ok {
		t.Fatalf("no %T dialog is open", d)
	}
	return d
}

// isOpen reports whether a dialog of type T is open.
func isOpen[T any](u *UI) bool {
	_, ok := dialogOf[T](u)
	return ok
}
