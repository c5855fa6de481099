package app

import (
	"context"
	"errors"
	"image/color"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"parley/app/chatview"
	"parley/audio"
	"parley/client"
	"parley/engine"
	"parley/internal/testenv"
)

// The main states of the window, as markup. A changed rendering fails with the new markup in
// testdata/failed/ to review; copy it over the master when the change is right.

func TestGolden_Welcome(t *testing.T) {
	a := test.NewTempApp(t)
	queue := make(chan func(), 10)
	u := New(a, Deps{Connect: func(string, client.APIKey) (Service, error) { return newFakeService(), nil },
		Secrets: &memSecrets{keys: map[string]string{}}, Local: fakeLocal{}, Now: fixedNow, run: func(fn func()) { queue <- fn }})
	u.win.Resize(fyne.NewSize(1000, 700))
	// The screen looks for a model on this computer as it opens; nothing is found here.
	(<-queue)()
	test.AssertRendersToMarkup(t, "welcome.xml", u.win.Canvas())
}

func TestGolden_EmptyConversation(t *testing.T) {
	h := start(t, newFakeService())
	test.AssertRendersToMarkup(t, "empty-conversation.xml", h.u.win.Canvas())
}

func TestGolden_ConversationWaitingAndError(t *testing.T) {
	svc := newFakeService()
	svc.Gate = make(chan struct{})
	h := start(t, svc)
	h.typeAndSend("What is the tallest lighthouse?")
	<-svc.Entered
	h.waitFor(func() bool { return h.shown(chatview.RowThinking) == 1 })
	restartSpinners(h.u.win.Content())
	test.AssertRendersToMarkup(t, "waiting.xml", h.u.win.Canvas())

	svc.Gate <- struct{}{}
	h.waitFor(func() bool { return h.shown(chatview.RowMessage) == 2 && len(h.u.main.sidebar.items) == 1 })
	test.AssertRendersToMarkup(t, "conversation.xml", h.u.win.Canvas())

	svc.Mu.Lock()
	svc.Gate = nil
	svc.ChatErrs = []error{&client.Error{StatusCode: 503, Message: "overloaded"}}
	svc.Mu.Unlock()
	h.typeAndSend("And the second tallest?")
	h.waitFor(h.failedShown)
	test.AssertRendersToMarkup(t, "error.xml", h.u.win.Canvas())
}

func TestGolden_RecordingAndSettings(t *testing.T) {
	h := start(t, newFakeService())
	blocked := make(chan struct{})
	h.rec.take = &audio.Take{Speech: false}
	h.u.deps.NewRecorder = func() Recorder { return blockingRecorder{release: blocked} }
	h.u.toggleRecording()
	h.u.main.composer.setLevel(0.6, 3*time.Second, "Hearing you…")
	h.u.main.status.setVoice("Recording 0:03")
	test.AssertRendersToMarkup(t, "recording.xml", h.u.win.Canvas())
	h.u.talk.CancelRecording()
	close(blocked)
	h.waitFor(func() bool { return !h.u.talk.State().Recording })

	h.u.main.showSettings()
	test.AssertRendersToMarkup(t, "settings.xml", h.u.win.Canvas())
}

// blockingRecorder records until cancelled.
type blockingRecorder struct{ release chan struct{} }

func (r blockingRecorder) Record(ctx context.Context, _ audio.TakeOptions) (*audio.Take, error) {
	select {
	case <-ctx.Done():
	case <-r.release:
	}
	return &audio.Take{}, ctx.Err()
}

func (blockingRecorder) Stop() {}

// fakeLocal is a built-in service that is never started in these tests.
type fakeLocal struct{}

func (fakeLocal) Start(context.Context) (string, client.APIKey, error) {
	return "http://127.0.0.1:1", "pk_local_0123456789", nil
}
func (fakeLocal) Stop()                                   {}
func (fakeLocal) WarmSpeech()                             {}
func (fakeLocal) Detect(context.Context) []engine.Runtime { return nil }
func (fakeLocal) SetEngines(_ context.Context, s engine.Set) engine.Status {
	return engine.Status{Chat: s.Chat.Describe(), Short: s.Chat.Short()}
}
func (fakeLocal) OnEngineStatus(func(engine.Status)) {}
func (fakeLocal) TryChat(context.Context, engine.Chat) (string, error) {
	return "", errors.New("not started")
}
func (fakeLocal) TrySpeechRecognition(context.Context, engine.Speech) (string, error) {
	return "", errors.New("not started")
}
func (fakeLocal) TryVoices(context.Context, engine.Speech) (string, []byte, error) {
	return "", nil, errors.New("not started")
}

func fixedNow() time.Time { return time.Date(2026, 11, 23, 15, 0, 0, 0, time.UTC) }

// restartSpinners starts again the spinner of each row showing "Thinking…", now that the row is
// laid out. The test driver draws an animation once, when it starts: a row's spinner started
// before its first layout has dots of no size, one started after has its first frame, and
// which comes first depends on how the list happened to reuse its rows.
func restartSpinners(o fyne.CanvasObject) {
	eachObject(o, func(o fyne.CanvasObject) {
		if x, ok := o.(*chatview.Bubble); ok && x.Row().Kind == chatview.RowThinking {
			eachObject(x, func(o fyne.CanvasObject) {
				if a, ok := o.(*widget.Activity); ok {
					a.Stop()
					a.Start()
				}
			})
		}
	})
}

// eachObject calls fn for o and every object drawn inside it.
func eachObject(o fyne.CanvasObject, fn func(fyne.CanvasObject)) {
	fn(o)
	switch x := o.(type) {
	case *fyne.Container:
		for _, c := range x.Objects {
			eachObject(c, fn)
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(x).Objects() {
			eachObject(c, fn)
		}
	}
}

// forcedVariant is the default theme in one variant, for goldens of light and dark.
type forcedVariant struct {
	fyne.Theme
	variant fyne.ThemeVariant
}

func (f forcedVariant) Color(n fyne.ThemeColorName, _ fyne.ThemeVariant) color.Color {
	return f.Theme.Color(n, f.variant)
}

// TestGolden_RichReply renders a reply with every block kind, in the light and the dark theme.
func TestGolden_RichReply(t *testing.T) {
	for name, v := range map[string]fyne.ThemeVariant{"light": theme.VariantLight, "dark": theme.VariantDark} {
		t.Run(name, func(t *testing.T) {
			svc := newFakeService()
			svc.Reply = func(string) string { return testenv.EveryBlock }
			h := start(t, svc)
			h.u.app.Settings().SetTheme(forcedVariant{theme.DefaultTheme(), v})
			h.typeAndSend("Show me everything")
			h.waitFor(func() bool {
				return h.shown(chatview.RowMessage) == 2 && strings.HasPrefix(h.u.main.status.points.Text, "Last message") &&
					h.u.main.chat.Settled()
			})
			test.AssertRendersToMarkup(t, "rich-reply-"+name+".xml", h.u.win.Canvas())
		})
	}
}
