package talk

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"parley/audio"
	"parley/audio/audiotest"
	"parley/audio/playback"
	"parley/audio/playback/playbacktest"
	"parley/client"
	"parley/conversation"
	"parley/conversation/conversationtest"
	"parley/voice"
)

// rig is a controller with no window: the host's goroutine is the test's, which runs what the
// controller's goroutines post (waitFor), and the events are kept.
type rig struct {
	t      *testing.T
	c      *Controller
	queue  chan func()
	svc    *conversationtest.Service
	sess   *conversation.Session
	th     *conversation.Thread // on screen
	prefs  *prefs
	player *playbacktest.Player
	rec    *recorder
	mic    *audiotest.SpeechMic
	events []Event
	sent   []string // what the host sent, as typed or held
}

type prefs struct {
	autoSpeak, sendSpoken, bargeIn bool
}

func (p *prefs) InputDevice() string     { return "" }
func (p *prefs) Hold() time.Duration     { return 300 * time.Millisecond }
func (p *prefs) AdaptiveHold() bool      { return false }
func (p *prefs) Volume() float64         { return 0.5 }
func (p *prefs) SpeechRate() float64     { return 1.5 }
func (p *prefs) AutoSpeak() bool         { return p.autoSpeak }
func (p *prefs) SendSpoken() bool        { return p.sendSpoken }
func (p *prefs) DefaultVoice() string    { return "" }
func (p *prefs) SpeechLanguage() string  { return "" }
func (p *prefs) WindowLanguage() string  { return "en" }
func (p *prefs) BargeIn() bool           { return p.bargeIn }
func (p *prefs) WakePhrase() string      { return "" }
func (p *prefs) FollowUp() time.Duration { return 0 }
func (p *prefs) SpeakErrors() bool       { return false }

// recorder records until stopped or cancelled, and then gives take.
type recorder struct {
	mu    sync.Mutex
	take  *audio.Take
	err   error
	stop  chan struct{}
	calls int
	opts  audio.TakeOptions
}

func (r *recorder) Record(ctx context.Context, opts audio.TakeOptions) (*audio.Take, error) {
	r.mu.Lock()
	r.calls++
	r.opts = opts
	stop := make(chan struct{})
	r.stop = stop
	r.mu.Unlock()
	select {
	case <-stop:
	case <-ctx.Done():
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.take, r.err
}

func (r *recorder) Stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stop != nil {
		close(r.stop)
		r.stop = nil
	}
}

func (r *recorder) recording() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stop != nil
}

type host struct{ r *rig }

func (h host) OnScreen() *conversation.Thread { return h.r.th }
func (h host) Send(text string) int64 {
	h.r.sent = append(h.r.sent, text)
	key := h.r.sess.Send(h.r.th, text)
	h.r.c.ExpectReply(h.r.th, key)
	return key
}
func (h host) SendHeld(text string) (*conversation.Thread, int64) {
	h.r.sent = append(h.r.sent, "held: "+text)
	return h.r.th, h.r.sess.Send(h.r.th, text)
}

func newRig(t *testing.T) *rig {
	r := &rig{t: t, queue: make(chan func(), 1000), svc: conversationtest.New(), prefs: &prefs{},
		player: playbacktest.New(), rec: &recorder{}, mic: &audiotest.SpeechMic{}}
	r.player.Emit = true
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	r.c = New(Config{
		Ctx: ctx,
		Devices: func() Devices {
			return Devices{
				NewRecorder: func() Recorder { return r.rec },
				OpenMic:     func(string) (Mic, error) { return r.mic, nil },
				NewPlayer:   func(on func(playback.Event)) Player { return r.player.Open(on) },
			}
		},
		Prefs: r.prefs,
		Host:  host{r},
		Do:    func(f func()) { r.queue <- f },
	})
	r.c.Subscribe(func(ev Event) { r.events = append(r.events, ev) })
	r.sess = r.newSession(r.svc)
	t.Cleanup(r.sess.Close)
	r.th = r.sess.NewThread(client.Config{}, "")
	r.c.Attach(Attached{Service: r.svc, Session: r.sess})
	return r
}

// newSession is a session over svc whose turns' ends reach the controller while it is the
// rig's session, as the window's do while the window is the app's.
func (r *rig) newSession(svc conversation.Service) *conversation.Session {
	var s *conversation.Session
	s = conversation.NewSession(svc, func(ch conversation.Change) {
		r.queue <- func() {
			if r.sess != s {
				return // a session left: its window is gone
			}
			for _, o := range ch.Ended {
				r.c.TurnEnded(ch.Thread, o)
			}
		}
	})
	return s
}

// waitFor runs what the controller posts until cond holds.
func (r *rig) waitFor(what string, cond func() bool) {
	r.t.Helper()
	deadline := time.After(20 * time.Second)
	for !cond() {
		select {
		case f := <-r.queue:
			f()
		case <-deadline:
			r.t.Fatalf("waited in vain for %s; events %v", what, r.kinds())
		}
	}
}

// settle runs what was posted until nothing more comes for a moment.
func (r *rig) settle() {
	for {
		select {
		case f := <-r.queue:
			f()
		case <-time.After(100 * time.Millisecond):
			return
		}
	}
}

// last returns the last event of kind k (ok false: none).
func (r *rig) last(k Kind) (Event, bool) {
	for i := len(r.events) - 1; i >= 0; i-- {
		if r.events[i].Kind == k {
			return r.events[i], true
		}
	}
	return Event{}, false
}

func (r *rig) has(k Kind) bool { _, ok := r.last(k); return ok }

func (r *rig) kinds() string {
	var b strings.Builder
	for _, e := range r.events {
		fmt.Fprintf(&b, "%d ", e.Kind)
	}
	return b.String()
}

var speech = &audio.Take{Audio: []byte("webm"), MIME: "audio/webm", Speech: true, Duration: time.Second}

// Push-to-talk: a take records until finished, is transcribed, and its words go to the message
// box for review; with Send spoken on, they are sent and the reply is spoken.
func TestController_PushToTalk(t *testing.T) {
	r := newRig(t)
	r.rec.take = speech
	r.c.Toggle()
	if !r.c.State().Recording || !r.has(Changed) {
		t.Fatalf("after Toggle: %+v, events %s", r.c.State(), r.kinds())
	}
	r.waitFor("the recorder", r.rec.recording)
	if !r.rec.opts.VAD || r.rec.opts.MaxDuration != maxTake {
		t.Errorf("a take's options %+v: want the end at silence and the longest take", r.rec.opts)
	}
	r.c.Toggle() // the second press finishes the take
	r.waitFor("the transcript", func() bool { return r.has(Transcript) })
	// The recogniser's bare words read as a sentence.
	if ev, _ := r.last(Transcript); ev.Text != "What is the weather like?" {
		t.Errorf("transcript %q", ev.Text)
	}
	if st := r.c.State(); st.Recording || st.Transcribing {
		t.Errorf("after the transcript: %+v", st)
	}
	if len(r.sent) != 0 {
		t.Errorf("sent %q: without Send spoken, what was said waits in the message box", r.sent)
	}

	r.prefs.sendSpoken, r.prefs.autoSpeak = true, true
	r.c.Toggle()
	r.waitFor("the recorder", r.rec.recording)
	r.c.FinishRecording()
	r.waitFor("the reply spoken", func() bool { return len(r.player.Clips()) > 0 })
	if len(r.sent) != 1 || r.sent[0] != "What is the weather like?" {
		t.Errorf("sent %q", r.sent)
	}
	r.waitFor("the end of speech", func() bool { return !r.c.State().Speaking })
}

// An empty take is never uploaded: the person is told that no speech was heard, with Try
// again; a cancelled one says nothing.
func TestController_EmptyAndCancelledTakes(t *testing.T) {
	r := newRig(t)
	r.rec.take = &audio.Take{}
	r.c.Toggle()
	r.waitFor("the recorder", r.rec.recording)
	r.c.FinishRecording()
	r.waitFor("the notice", func() bool { return r.has(Notice) })
	if ev, _ := r.last(Notice); ev.Notice != NoSpeech || ev.Retry == nil || ev.Held {
		t.Errorf("notice %+v", ev)
	}
	if r.svc.Transcriptions != 0 {
		t.Error("an empty take was transcribed")
	}
	r.events = nil
	r.rec.take = speech
	r.c.Toggle()
	r.waitFor("the recorder", r.rec.recording)
	if !r.c.Escape() {
		t.Fatal("Escape found no take to cancel")
	}
	r.waitFor("the take's end", func() bool { return !r.c.State().Recording })
	r.settle()
	if r.has(Notice) || r.has(Problem) || r.has(Transcript) || r.svc.Transcriptions != 0 {
		t.Errorf("a cancelled take: events %s, %d transcriptions", r.kinds(), r.svc.Transcriptions)
	}
}

// The hold-to-talk key: the take is sent as said, its reply spoken whatever the preference, and
// told (Answered) for a person away; a question with no reply is told too (Unanswered).
func TestController_HoldToTalk(t *testing.T) {
	r := newRig(t)
	r.rec.take = speech
	r.c.HoldStart()
	if st := r.c.State(); !st.Recording || !st.Held {
		t.Fatalf("after HoldStart: %+v", st)
	}
	r.waitFor("the recorder", r.rec.recording)
	if r.rec.opts.VAD || r.rec.opts.MaxDuration != MaxHeldTake {
		t.Errorf("a held take's options %+v: want it to end at the key's release, within MaxHeldTake", r.rec.opts)
	}
	r.c.HoldEnd()
	r.waitFor("the answer", func() bool { return r.has(Answered) })
	ev, _ := r.last(Answered)
	if ev.Question != "What is the weather like?" || !strings.HasPrefix(ev.Text, "Re: What is the weather like?") || ev.Thread != r.th {
		t.Errorf("answered %+v", ev)
	}
	r.waitFor("the reply spoken", func() bool { return len(r.player.Clips()) > 0 })
	if r.c.Awaited() != 0 {
		t.Errorf("%d replies still awaited", r.c.Awaited())
	}

	r.svc.Mu.Lock()
	r.svc.ChatErrs = []error{&client.Error{StatusCode: 402, Message: "no points"}}
	r.svc.Mu.Unlock()
	r.c.HoldStart()
	r.waitFor("the recorder", r.rec.recording)
	r.c.HoldEnd()
	r.waitFor("no reply", func() bool { return r.has(Unanswered) })
	if ev, _ := r.last(Unanswered); ev.Question != "What is the weather like?" || ev.Err == nil {
		t.Errorf("unanswered %+v", ev)
	}
}

// A typed message's reply is spoken with auto-speak while its conversation is on screen, and
// not once the person has left it.
func TestController_TypedRepliesSpokenOnScreenOnly(t *testing.T) {
	r := newRig(t)
	r.prefs.autoSpeak = true
	host{r}.Send("first")
	r.waitFor("the reply spoken", func() bool { return len(r.player.Clips()) > 0 })
	r.waitFor("the end of speech", func() bool { return !r.c.State().Speaking })
	n := len(r.player.Clips())

	r.svc.Gate = make(chan struct{})
	asked := r.th
	host{r}.Send("second")
	<-r.svc.Entered
	<-r.svc.Entered
	r.th = r.sess.NewThread(client.Config{}, "") // the person moved on
	close(r.svc.Gate)
	r.waitFor("the reply", func() bool { return len(r.sess.Snapshot(asked).Messages) == 4 })
	r.settle()
	if len(r.player.Clips()) != n || r.c.Awaited() != 0 {
		t.Errorf("%d more clips and %d awaited after the conversation was left", len(r.player.Clips())-n, r.c.Awaited())
	}
}

// Voice mode: the loop runs over the microphone and the one output; a question said is sent
// through the session, its reply spoken; Mute and the meter follow; ending waits for the loop.
func TestController_VoiceMode(t *testing.T) {
	r := newRig(t)
	r.svc.Heard = "What is the capital of France?"
	r.c.ToggleVoiceMode()
	if r.c.State().Mode != On {
		t.Fatalf("after ToggleVoiceMode: %+v (events %s)", r.c.State(), r.kinds())
	}
	r.waitFor("listening", func() bool { return r.c.State().Loop == voice.Listening })
	r.mic.Say(1500 * time.Millisecond)
	r.waitFor("the level meter", func() bool { return r.has(Level) })
	if ev, _ := r.last(Level); ev.Take || ev.Level <= 0 {
		t.Errorf("voice mode's level %+v", ev)
	}
	r.waitFor("the reply spoken", func() bool { return len(r.player.Clips()) > 0 })
	if v := r.sess.Snapshot(r.th); len(v.Messages) != 2 || v.Messages[0].Text != "What is the capital of France?" {
		t.Errorf("the conversation holds %+v", v.Messages)
	}
	r.waitFor("listening again", func() bool { return r.c.State().Loop == voice.Listening })

	r.c.ToggleMute()
	if !r.c.State().Muted || r.c.Hearing() {
		t.Errorf("muted: %+v, hearing %v", r.c.State(), r.c.Hearing())
	}
	r.waitFor("muted", func() bool { return r.c.State().Loop == voice.Muted })
	r.events = nil
	r.c.levelHeard(-6)
	r.settle()
	if r.has(Level) {
		t.Error("the meter moved while muted")
	}
	r.c.ToggleMute()

	r.c.ToggleVoiceMode()
	if r.c.State().Mode != Stopping {
		t.Errorf("after the second toggle: %+v", r.c.State())
	}
	r.waitFor("the loop's end", func() bool { return r.c.State().Mode == Off })
	r.waitFor("the microphone closed", r.mic.Closed)
	if !r.has(Focus) {
		t.Error("the message box was not given the keyboard back")
	}
}

// While Parley speaks in voice mode, the microphone is heard only with barge-in.
func TestController_HearingWhileSpeaking(t *testing.T) {
	for _, bargeIn := range []bool{false, true} {
		r := newRig(t)
		r.prefs.bargeIn = bargeIn
		r.c.StartVoiceMode()
		r.waitFor("listening", func() bool { return r.c.State().Loop == voice.Listening })
		r.c.loopStatus(r.c.voice.loop, voice.Status{State: voice.Speaking, Turn: 1})
		if r.c.Hearing() != bargeIn {
			t.Errorf("barge-in %v: hearing %v while speaking", bargeIn, r.c.Hearing())
		}
		r.events = nil
		r.c.voice.levelAt = time.Time{}
		r.c.levelHeard(-6)
		r.settle()
		if r.has(Level) != bargeIn {
			t.Errorf("barge-in %v: the meter moved %v while speaking", bargeIn, r.has(Level))
		}
		r.c.EndVoiceMode()
		r.waitFor("the loop's end", func() bool { return r.c.State().Mode == Off })
	}
}

// Quick presses of voice mode end as their number says: odd on, even off.
func TestController_QuickVoiceModePressesCount(t *testing.T) {
	for _, presses := range []int{5, 4, 3, 2} {
		r := newRig(t)
		for range presses {
			r.c.ToggleVoiceMode() // nothing posted runs between them: the loop has not stopped
		}
		want := Off
		if presses%2 == 1 {
			want = On
		}
		r.waitFor(fmt.Sprintf("%d presses to settle", presses), func() bool {
			return r.c.State().Mode == want && (want == Off || r.c.State().Loop == voice.Listening)
		})
		r.c.EndVoiceMode()
		r.waitFor("the loop's end", func() bool { return r.c.State().Mode == Off })
	}
}

// Attaching another service ends voice mode and what was recorded or spoken; replies awaited
// from the service before are forgotten.
func TestController_AttachEndsEverything(t *testing.T) {
	r := newRig(t)
	r.c.StartVoiceMode()
	r.waitFor("listening", func() bool { return r.c.State().Loop == voice.Listening })
	next := conversationtest.New()
	sess := conversation.NewSession(next, nil)
	t.Cleanup(sess.Close)
	r.c.Attach(Attached{Service: next, Session: sess})
	r.waitFor("the loop's end", func() bool { return r.c.State().Mode == Off })
	r.mic.Say(1500 * time.Millisecond)
	r.settle()
	if r.svc.Transcriptions != 0 || next.Transcriptions != 0 {
		t.Errorf("transcriptions after the switch: %d and %d", r.svc.Transcriptions, next.Transcriptions)
	}
}

// Without devices, each use says so, and nothing runs.
func TestController_NoDevices(t *testing.T) {
	r := newRig(t)
	r.c.cfg.Devices = func() Devices { return Devices{} }
	r.c.Toggle()
	if ev, ok := r.last(Problem); !ok || !errors.Is(ev.Err, audio.ErrNoDevice) || r.c.State().Recording {
		t.Errorf("push-to-talk without a microphone: %+v", ev)
	}
	r.c.StartVoiceMode()
	if ev, _ := r.last(Problem); ev.Lead != NeedsMic || r.c.State().Mode != Off {
		t.Errorf("voice mode without a microphone: %+v", ev)
	}
	r.c.out.speaker = nil
	r.c.Speak("hello")
	if ev, _ := r.last(Problem); !errors.Is(ev.Err, playback.ErrNoDevice) || r.c.State().Speaking {
		t.Errorf("speaking without an output: %+v", ev)
	}
}

// Another service attached while voice mode waits for a reply: voice mode ends at once (the
// question's session is closed, and its end is told to no window), and push-to-talk works.
func TestController_AttachWhileThinking(t *testing.T) {
	r := newRig(t)
	r.svc.Gate = make(chan struct{}) // the reply never comes
	r.c.StartVoiceMode()
	r.waitFor("listening", func() bool { return r.c.State().Loop == voice.Listening })
	r.mic.Say(1500 * time.Millisecond)
	r.waitFor("thinking", func() bool { return r.c.State().Loop == voice.Thinking })
	next := conversationtest.New()
	old := r.sess
	r.sess = r.newSession(next) // as the window does: the old session goes, its ends untold
	t.Cleanup(r.sess.Close)
	old.Close()
	r.c.Attach(Attached{Service: next, Session: r.sess})
	r.waitFor("voice mode to end", func() bool { return r.c.State().Mode == Off })
	r.rec.take = speech
	r.c.Toggle()
	if !r.c.State().Recording {
		t.Error("push-to-talk does nothing after the switch")
	}
}

// A typed message's reply comes after the person stopped waiting for it: still spoken, as the
// reply to a message sent again after a failure is.
func TestController_ReplyAfterStopOrRetryIsSpoken(t *testing.T) {
	r := newRig(t)
	r.prefs.autoSpeak = true
	r.svc.Gate = make(chan struct{})
	host{r}.Send("a long question")
	<-r.svc.Entered
	r.sess.StopWaiting(r.th)
	r.waitFor("the stop", func() bool { return len(r.sess.Snapshot(r.th).Turns) == 1 })
	r.settle()
	close(r.svc.Gate)
	r.waitFor("the reply after the stop spoken", func() bool { return len(r.player.Clips()) > 0 })

	r.svc.Mu.Lock()
	r.svc.Gate = nil
	r.svc.ChatErrs = []error{&client.Error{StatusCode: 503, Message: "busy"}}
	r.svc.Mu.Unlock()
	r.waitFor("the end of speech", func() bool { return !r.c.State().Speaking })
	n := len(r.player.Clips())
	key := host{r}.Send("again")
	r.waitFor("the failure", func() bool {
		v := r.sess.Snapshot(r.th)
		return len(v.Turns) == 1 && v.Turns[0].State == conversation.Failed
	})
	r.sess.Retry(r.th, key)
	r.c.ExpectReply(r.th, key) // as the window does
	r.waitFor("the retried reply spoken", func() bool { return len(r.player.Clips()) > n })
}
