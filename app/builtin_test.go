package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"parley/audio/playback/playbacktest"
	"parley/client"
	"parley/conversation/conversationtest"
	"parley/engine"
)

// engineLocal is a built-in service whose engines the tests see: what was found on this
// computer, what the app chose, and what the Test buttons were asked.
type engineLocal struct {
	svc   *conversationtest.Service
	found []engine.Runtime
	// refused are the ports the search left alone (another user's program listens there).
	refused []*engine.UntrustedError
	mu      sync.Mutex
	sets    []engine.Set
	on      func(engine.Status)
	tried   []engine.Chat
	// hears is the speech recognition server found on this computer, if any.
	hears *engine.Recogniser
}

func (l *engineLocal) FindRecogniser(context.Context) (engine.Recogniser, bool) {
	if l.hears == nil {
		return engine.Recogniser{}, false
	}
	return *l.hears, true
}

func (l *engineLocal) Start(context.Context) (string, client.APIKey, error) {
	return l.svc.BaseURL(), "pk_local_0123456789", nil
}
func (l *engineLocal) Stop()                                   {}
func (l *engineLocal) WarmSpeech()                             {}
func (l *engineLocal) Detect(context.Context) []engine.Runtime { return l.found }
func (l *engineLocal) DetectAll(context.Context) engine.Found {
	return engine.Found{Runtimes: l.found, Refused: l.refused}
}
func (l *engineLocal) OnEngineStatus(f func(engine.Status)) { l.mu.Lock(); l.on = f; l.mu.Unlock() }
func (l *engineLocal) TrySpeechRecognition(context.Context, engine.Speech) (string, error) {
	return "", nil
}
func (l *engineLocal) TryVoices(context.Context, engine.Speech) (string, []byte, error) {
	return "", nil, nil
}

func (l *engineLocal) SetEngines(_ context.Context, s engine.Set) engine.Status {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sets = append(l.sets, s)
	return engine.Status{Chat: s.Chat.Describe(), Short: s.Chat.Short()}
}

func (l *engineLocal) TryChat(_ context.Context, c engine.Chat) (string, error) {
	l.mu.Lock()
	l.tried = append(l.tried, c)
	l.mu.Unlock()
	if c.Key != "sk-typed" && c.Kind == engine.Remote {
		return "", errors.New("The model server refused the API key (401): check the key")
	}
	return engine.ModelName(c.Model) + " answered in 0.1 s: \"Ready.\"", nil
}

func (l *engineLocal) lastSet() engine.Set {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sets[len(l.sets)-1]
}

// ollama is a runtime on this computer with one model.
var ollama = engine.Runtime{Name: "Ollama", BaseURL: "http://127.0.0.1:11434/v1", Models: []engine.Model{{ID: "llama3.2:latest"}}}

// startLocal opens the app with nothing configured, on the welcome screen, with local as its
// built-in service.
func startLocal(t *testing.T, local *engineLocal, secrets *memSecrets) *harness {
	t.Helper()
	a := test.NewTempApp(t)
	local.svc = newFakeService()
	h := &harness{t: t, svc: local.svc, queue: make(chan func(), 1000), player: playbacktest.New()}
	h.u = New(a, Deps{
		Connect: func(string, client.APIKey) (Service, error) { return local.svc, nil },
		Secrets: secrets,
		Local:   local,
		Now:     fixedNow,
		run:     func(fn func()) { h.queue <- fn },
	})
	h.u.win.Resize(fyne.NewSize(1000, 700))
	t.Cleanup(func() { h.u.shutdown() })
	return h
}

// labelWith is the first label whose text has s, nil when none.
func labelWith(o fyne.CanvasObject, s string) *widget.Label {
	var found *widget.Label
	eachObject(o, func(o fyne.CanvasObject) {
		if l, ok := o.(*widget.Label); ok && found == nil && strings.Contains(l.Text, s) {
			found = l
		}
	})
	return found
}

// The first run names the model found on this computer, and Enter uses it.
func TestWelcome_NamesTheModelFoundAndUsesIt(t *testing.T) {
	local := &engineLocal{found: []engine.Runtime{ollama}}
	h := startLocal(t, local, &memSecrets{keys: map[string]string{}})
	h.waitFor(func() bool {
		return labelWith(h.u.win.Content(), "answers with llama3.2, from Ollama on this computer") != nil
	})
	h.u.typedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	h.waitFor(func() bool {
		return h.u.main != nil && strings.Contains(h.u.main.status.service.Text, "Built-in service")
	})
	if got := h.u.main.status.service.Text; got != "Built-in service · llama3.2 from Ollama" {
		t.Errorf("status bar: %q", got)
	}
	if s := local.lastSet(); s.Chat != ollama.Chat(ollama.Models[0]) {
		t.Errorf("the service was given %+v", s.Chat)
	}
	if set, chosen := h.u.prefs.engines(); !chosen || set.Chat.Model != "llama3.2:latest" || set.Chat.Runtime != "Ollama" {
		t.Errorf("kept %+v (chosen %v); want the model the welcome screen named", set.Chat, chosen)
	}
}

// fasterWhisper is speaches (faster-whisper-server) on this computer.
var fasterWhisper = engine.Recogniser{Name: "faster-whisper", BaseURL: "http://127.0.0.1:8000/v1", API: engine.OpenAITranscriptions,
	Model: "Systran/faster-whisper-small"}

// A Whisper server on this computer is named on the first-run screen and in the Built-in
// service dialog, which says what hears when there is none.
func TestWelcome_NamesTheRecogniserFound(t *testing.T) {
	local := &engineLocal{found: []engine.Runtime{ollama}, hears: &fasterWhisper}
	h := startLocal(t, local, &memSecrets{keys: map[string]string{}})
	h.waitFor(func() bool {
		return labelWith(h.u.win.Content(), "answers with llama3.2, from Ollama on this computer, hears with whisper-small from faster-whisper, and speaks") != nil
	})
	h.u.typedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	h.waitFor(func() bool { return h.u.main != nil && strings.Contains(h.u.main.status.service.Text, "llama3.2") })
	for _, c := range []struct {
		hears *engine.Recogniser
		want  string
	}{
		{&fasterWhisper, "Hears with whisper-small, from faster-whisper on this computer; with PocketSphinx while it does not answer."},
		{nil, "Hears with PocketSphinx, which gets many words wrong"},
	} {
		local.hears = c.hears
		h.u.showEngines()
		e := openDialogOf[*enginesDialog](t, h.u)
		h.waitFor(func() bool { return strings.HasPrefix(e.stt.result.Text, c.want) })
		// Another choice says nothing of it; back on this computer, it is said again.
		e.stt.choice.SetSelected(optRemote)
		if e.stt.result.Text != "" {
			t.Errorf("with a service of the person's chosen: %q", e.stt.result.Text)
		}
		e.stt.choice.SetSelected(optPocket)
		if !strings.HasPrefix(e.stt.result.Text, c.want) {
			t.Errorf("chosen again: %q", e.stt.result.Text)
		}
		e.close()
	}
}

// With nothing found, the welcome screen says how to get a real model, and the offline
// responder answers.
func TestWelcome_NothingFound(t *testing.T) {
	local := &engineLocal{}
	h := startLocal(t, local, &memSecrets{keys: map[string]string{}})
	h.waitFor(func() bool { return labelWith(h.u.win.Content(), "install Ollama") != nil })
	h.u.typedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	h.waitFor(func() bool {
		return h.u.main != nil && h.u.main.status.service.Text == "Built-in service · offline responder"
	})
	if _, chosen := h.u.prefs.engines(); chosen {
		t.Error("nothing was chosen, yet a choice was kept: a model installed later would not be used")
	}
}

// A runtime that goes away is shown in the status bar, never silently, and Preferences says that
// chat calls fail, at no cost, until it answers.
func TestBuiltIn_RuntimeAwayIsShown(t *testing.T) {
	local := &engineLocal{found: []engine.Runtime{ollama}}
	h := startLocal(t, local, &memSecrets{keys: map[string]string{}})
	h.u.useLocal()
	h.waitFor(func() bool {
		return h.u.main != nil && h.u.main.status.service.Text == "Built-in service · llama3.2 from Ollama"
	})
	local.mu.Lock()
	on := local.on
	local.mu.Unlock()
	go on(engine.Status{Chat: "llama3.2, from Ollama on this computer (not running)", Short: "llama3.2 from Ollama (not running)", Away: true,
		Notice: "Ollama on this computer stopped answering: chat calls fail, and cost nothing, until it is back. Start it again, or choose another engine in Preferences → Built-in service."})
	h.waitFor(func() bool { return strings.Contains(h.u.main.status.message.Text, "stopped answering") })
	if got := h.u.main.status.service.Text; got != "Built-in service · llama3.2 from Ollama (not running)" {
		t.Errorf("status bar: %q", got)
	}
	if got := h.u.builtInSummary(); got != "Chosen: llama3.2 from Ollama (not running). Chat calls fail, and cost nothing, until it answers" {
		t.Errorf("Preferences say %q", got)
	}
}

// The first run keeps, with the model found, the user who runs it; a later start that finds it
// running as another user says so once, and keeps the new one.
func TestBuiltIn_RuntimeOwnerIsKept(t *testing.T) {
	mine := ollama
	mine.Owner = engine.Owner{ID: "1000", Name: "uid 1000", Trusted: true}
	local := &engineLocal{found: []engine.Runtime{mine}}
	h := startLocal(t, local, &memSecrets{keys: map[string]string{}})
	set, notice := h.u.localEngines(t.Context(), true)
	if kept, _ := h.u.prefs.engines(); set.Chat.Owner != "1000" || kept.Chat.Owner != "1000" || notice != "" {
		t.Fatalf("first run: used %+v, kept %+v, notice %q", set.Chat, kept.Chat, notice)
	}

	system := ollama
	system.Owner = engine.Owner{ID: "998", Name: "uid 998", Trusted: true} // Ollama's own service, say
	local.found = []engine.Runtime{system}
	set, notice = h.u.localEngines(t.Context(), false)
	if notice != "Ollama on this computer now runs as uid 998, not as uid 1000 as when you chose it. If you did not change that, check what listens on port 11434." {
		t.Errorf("notice %q", notice)
	}
	if kept, _ := h.u.prefs.engines(); set.Chat.Owner != "998" || kept.Chat.Owner != "998" {
		t.Errorf("used %+v, kept %+v; want the new owner", set.Chat, kept.Chat)
	}
	if _, notice = h.u.localEngines(t.Context(), false); notice != "" {
		t.Errorf("told again: %q", notice)
	}
}

// A port where another user's program listens is not offered, and the first run says why no
// model answers.
func TestBuiltIn_AnotherUsersRuntimeIsRefused(t *testing.T) {
	local := &engineLocal{refused: []*engine.UntrustedError{{Runtime: "Ollama", Port: 11434, Owner: engine.Owner{ID: "1001", Name: "uid 1001"}}}}
	h := startLocal(t, local, &memSecrets{keys: map[string]string{}})
	set, notice := h.u.localEngines(t.Context(), true)
	if set.Chat.Kind != engine.Offline || notice != "Ollama on port 11434 belongs to another user (uid 1001): Parley does not send your conversations to it." {
		t.Errorf("used %+v, notice %q", set.Chat, notice)
	}
	if _, chosen := h.u.prefs.engines(); chosen {
		t.Error("a choice was kept")
	}
	h.u.useLocal()
	h.waitFor(func() bool {
		return h.u.main != nil && strings.Contains(h.u.main.status.message.Text, "belongs to another user")
	})

	h.u.showEngines()
	h.waitFor(func() bool {
		return labelWith(h.u.win.Canvas().Overlays().Top(), "No model runtime of yours answers on this computer. Ollama on port 11434 belongs to another user (uid 1001)") != nil
	})
	openDialogOf[*enginesDialog](t, h.u).close()
}

// An OpenAI-compatible service chosen in the dialog: the key goes to the keyring and to the
// service, never to the preferences; the engines change at once.
func TestEnginesDialog_RemoteWithKey(t *testing.T) {
	local := &engineLocal{found: []engine.Runtime{ollama}}
	secrets := &memSecrets{keys: map[string]string{}}
	h := startLocal(t, local, secrets)
	h.u.useLocal()
	h.waitFor(func() bool { return h.u.main != nil && strings.Contains(h.u.main.status.service.Text, "llama3.2") })

	h.u.showEngines()
	top := h.u.topDialog()
	if top == nil {
		t.Fatal("no dialog")
	}
	// The dialog looks for runtimes as it opens: the model found becomes a choice.
	h.waitFor(func() bool {
		return labelWith(h.u.win.Canvas().Overlays().Top(), "Found on this computer: llama3.2 (Ollama).") != nil
	})
	e := openDialogOf[*enginesDialog](t, h.u)
	if !slices.Contains(e.chat.choice.Options, "llama3.2 from Ollama on this computer") || e.chat.choice.Selected != "llama3.2 from Ollama on this computer" {
		t.Fatalf("chat options %q, selected %q", e.chat.choice.Options, e.chat.choice.Selected)
	}
	if !e.chat.address.Disabled() {
		t.Error("the address can be typed for a model found on this computer")
	}
	e.chat.choice.SetSelected(optRemote)
	if e.chat.address.Disabled() {
		t.Fatal("the address cannot be typed for a service of the person's")
	}
	test.Type(e.chat.address, "http://example.com/v1")
	test.Type(e.chat.model, "gpt-4o-mini")
	test.Type(e.chat.key, "sk-typed")
	e.save()
	if !strings.Contains(e.chat.result.Text, "use https") || h.u.topDialog() == nil {
		t.Fatalf("saved plain http to another machine (result %q)", e.chat.result.Text)
	}
	e.chat.address.SetText("https://api.example.com/v1")
	e.testChat()
	h.waitFor(func() bool { return strings.Contains(e.chat.result.Text, "gpt-4o-mini answered") })

	// Test on the Voices pane: the speech choice takes the chat's address as a start.
	e.tts.choice.SetSelected(optRemote)
	if e.tts.address.Text != "https://api.example.com/v1" || e.tts.model.Text != "tts-1" {
		t.Errorf("voices start at %q, %q", e.tts.address.Text, e.tts.model.Text)
	}
	e.tts.choice.SetSelected(optLocalVoices)

	h.u.topDialog().keys.submit()
	h.waitFor(func() bool { return strings.Contains(h.u.main.status.service.Text, "gpt-4o-mini") })
	if got := secrets.keys["engine+https://api.example.com/v1"]; got != "sk-typed" {
		t.Errorf("keyring holds %q for the address", got)
	}
	s := local.lastSet()
	if s.Chat.Kind != engine.Remote || s.Chat.URL != "https://api.example.com/v1" || s.Chat.Model != "gpt-4o-mini" || s.Chat.Key != "sk-typed" || s.TTS.Remote {
		t.Errorf("the service was given %+v", s)
	}
	if got := h.u.main.status.service.Text; got != "Built-in service · gpt-4o-mini from api.example.com" {
		t.Errorf("status bar: %q", got)
	}
	// Nothing of the key in the preferences.
	all, ok := h.u.app.Preferences().(interface{ ReadValues(func(map[string]any)) })
	if !ok {
		t.Fatal("the test app's preferences cannot be listed")
	}
	all.ReadValues(func(values map[string]any) {
		if len(values) == 0 {
			t.Error("no preferences")
		}
		for k, v := range values {
			if strings.Contains(fmt.Sprint(v), "sk-typed") {
				t.Errorf("preference %s holds the key", k)
			}
		}
	})
	set, _ := h.u.prefs.engines()
	if set.Chat.Key != "" || set.Chat.URL != "https://api.example.com/v1" {
		t.Errorf("kept %+v", set.Chat)
	}

	// Opened again, the dialog says a key is kept, and the test uses it.
	h.u.showEngines()
	e = openDialogOf[*enginesDialog](t, h.u)
	h.waitFor(func() bool { return strings.Contains(e.chat.key.PlaceHolder, "A key is kept") })
	e.testChat()
	h.waitFor(func() bool { return strings.Contains(e.chat.result.Text, "gpt-4o-mini answered") })
	e.close()
}
