package app

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"parley/audio"
	"parley/conversation"
	"parley/voice"
)

// scVoiceMode toggles hands-free voice mode.
var scVoiceMode = &desktop.CustomShortcut{KeyName: fyne.KeyM, Modifier: fyne.KeyModifierShortcutDefault | fyne.KeyModifierShift}

// scMute mutes or unmutes the microphone in voice mode (Ctrl+D, as in many call apps).
var scMute = &desktop.CustomShortcut{KeyName: fyne.KeyD, Modifier: fyne.KeyModifierShortcutDefault}

// Mic is a microphone that runs until closed; *audio.Capture is one.
type Mic interface {
	voice.Source
	Close() error
}

// voiceMode is the hands-free conversation in the window: the loop of package voice, shown in
// a panel that takes the composer's place while it runs.
type voiceMode struct {
	ctx    context.Context
	host   voiceModeHost
	deps   *Deps
	prefs  prefs
	do     func(func())
	svc    speechService // the service that transcribes and speaks
	sess   voiceSession  // the session questions are sent through
	status stateLine
	ptt    speechControl

	loop   *atomic.Pointer[voice.Loop] // the loop running, read by the player's event callback
	th     *conversation.Thread        // the conversation it talks in
	active bool
	// stopping: the loop was asked to stop and has not ended yet; restart: the person asked
	// for voice mode again meanwhile (a quick second click), so it starts again once ended.
	stopping bool
	restart  bool
	last     voice.State // the loop's state shown last
	muted    bool
	mic      *muteableMic // the loop's microphone, closed while muted
	bargeIn  bool         // speaking over a reply interrupts it
	// levelShown and levelAt are the meter's value and when it last moved.
	levelMu    sync.Mutex
	levelShown float64
	levelAt    time.Time

	// Waiting for the reply to a question sent through the session.
	pending *voicePending

	state  *canvas.Text
	detail *widget.Label
	level  *widget.ProgressBar
	mute   *widget.Button
	stop   *widget.Button
	box    *fyne.Container
}

type voicePending struct {
	th   *conversation.Thread
	key  int64 // the question's turn
	done chan voiceAnswer
}

type voiceAnswer struct {
	reply string
	err   error
}

// voiceModeHost is what voice mode needs from the window.
type voiceModeHost interface {
	// onScreen is the conversation on screen (nil before there is one).
	onScreen() *conversation.Thread
	focusComposer()
	// voiceModeShown gives the composer's place to voice mode's panel (on), or gives it back,
	// and shows on the header whether voice mode runs.
	voiceModeShown(on bool)
	// voiceStateChanged is called when the loop's state or the mute changes (the tray's icon
	// follows it).
	voiceStateChanged()
}

// speechService is what voice mode needs from the service: speech to text and back.
type speechService interface {
	voice.Transcriber
	voice.Synthesizer
}

// voiceSession is what voice mode needs from the session: a question sent as a typed one is,
// the conversation as it stands, to see the reply arrive, and a failed question taken out of
// the way of the next (a failed turn holds back every later one).
type voiceSession interface {
	Snapshot(th *conversation.Thread) conversation.ThreadView
	Send(th *conversation.Thread, text string) int64
	Dismiss(th *conversation.Thread, key int64) string
}

// speechControl is what voice mode needs from push-to-talk: that it gives way, its audio output,
// and its notices in the composer.
type speechControl interface {
	stopAll()
	forgetAwaited()
	openPlayer() bool
	output() Player
	problem(lead string, err error, retry func())
	warmSpeech()
}

func newVoiceMode(ctx context.Context, host voiceModeHost, deps *Deps, p prefs, do func(func()),
	svc speechService, sess voiceSession, status stateLine, ptt speechControl, loop *atomic.Pointer[voice.Loop]) *voiceMode {
	m := &voiceMode{ctx: ctx, host: host, deps: deps, prefs: p, do: do, svc: svc, sess: sess, status: status, ptt: ptt, loop: loop}
	m.state = canvas.NewText("", theme.Color(theme.ColorNameForeground))
	m.state.TextSize = 2 * theme.TextSize()
	m.state.TextStyle = fyne.TextStyle{Bold: true}
	m.state.Alignment = fyne.TextAlignCenter
	m.detail = widget.NewLabel("")
	m.detail.Alignment = fyne.TextAlignCenter
	m.detail.Wrapping = fyne.TextWrapWord
	m.level = widget.NewProgressBar()
	m.level.TextFormatter = func() string { return "" }
	m.mute = widget.NewButtonWithIcon("Mute", micOffIcon, m.toggleMute)
	m.stop = widget.NewButtonWithIcon("Stop voice mode", theme.MediaStopIcon(), m.end)
	m.stop.Importance = widget.DangerImportance
	m.box = container.NewVBox(
		widget.NewSeparator(),
		m.state,
		m.detail,
		border(nil, nil, widget.NewLabel("Microphone"), nil, m.level),
		container.NewCenter(container.NewHBox(m.mute, m.stop)),
	)
	m.box.Hide()
	return m
}

func (m *voiceMode) object() fyne.CanvasObject { return m.box }

// toggleVoiceMode starts hands-free voice mode in the conversation on screen, or ends it. Quick
// presses end as many presses say: an odd number leaves it on, even while an earlier press's
// stop is still under way (the loop then starts again once it has stopped).
func (u *UI) toggleVoiceMode() {
	m := u.vmode
	if m == nil || u.sess == nil {
		return
	}
	switch {
	case m.stopping:
		m.restart = !m.restart
		m.detail.SetText(m.stoppingDetail())
	case m.active:
		m.end()
	default:
		m.start()
	}
}

// start runs the loop in the conversation on screen.
func (m *voiceMode) start() {
	th := m.host.onScreen()
	if th == nil || m.svc == nil || m.active {
		return
	}
	m.ptt.stopAll()       // push-to-talk and spoken replies give way
	m.ptt.forgetAwaited() // and replies awaited are not spoken over the loop's
	if m.deps.OpenMic == nil {
		m.ptt.problem("Voice mode needs a microphone.", audio.ErrNoDevice, nil)
		return
	}
	if !m.ptt.openPlayer() {
		return
	}
	device := m.prefs.inputDevice()
	mic, err := newMuteableMic(func() (Mic, error) { return m.deps.OpenMic(device) }, m.muted)
	if err != nil {
		m.ptt.problem("Voice mode needs a microphone.", err, m.start)
		return
	}
	m.ptt.warmSpeech()
	snap := m.sess.Snapshot(th)
	m.bargeIn = m.prefs.bargeIn()
	voiceName := snap.Voice
	if voiceName == "" {
		voiceName = m.prefs.defaultVoice()
	}
	loop := voice.New(voice.Config{
		Source:       mic,
		Transcriber:  m.svc,
		Synth:        m.svc,
		Player:       m.ptt.output(),
		Chat:         &appChatter{m: m, th: th},
		Voice:        voiceName,
		Hold:         m.prefs.hold(),
		Speculate:    true,
		AdaptiveHold: m.prefs.adaptiveHold(),
		BargeIn:      m.bargeIn,
		SpeakErrors:  m.prefs.speakErrors(),
		OnStatus:     func(s voice.Status) { m.do(func() { m.show(s) }) },
		OnLevel:      m.levelHeard,
	})
	loop.SetMuted(m.muted)
	m.loop.Store(loop)
	m.th, m.active, m.mic = th, true, mic
	m.levelMu.Lock()
	m.levelShown = 0
	m.levelMu.Unlock()
	m.host.voiceModeShown(true)
	m.box.Show()
	m.state.Text = "Starting…"
	m.state.Refresh()
	m.detail.SetText("")
	go func() {
		err := loop.Run(m.ctx)
		mic.Close()
		m.do(func() { m.ended(loop, err) })
	}()
}

// end stops the loop; a question already sent is answered and stored first.
func (m *voiceMode) end() {
	m.restart = false
	if l := m.loop.Load(); l != nil {
		m.stopping = m.active
		l.Stop()
	}
}

// ended puts the composer back when the loop has stopped, and says why when it failed.
func (m *voiceMode) ended(l *voice.Loop, err error) {
	m.loop.CompareAndSwap(l, nil)
	m.active, m.th, m.pending, m.mic, m.last = false, nil, nil, nil, voice.Idle
	restart := m.restart && m.stopping && (err == nil || errors.Is(err, context.Canceled))
	m.stopping, m.restart = false, false
	m.level.SetValue(0)
	if restart {
		m.start() // asked for again while it stopped
		if m.active {
			return
		}
	}
	m.box.Hide()
	m.host.voiceModeShown(false)
	m.status.setVoice("")
	m.host.voiceStateChanged()
	if err != nil && !errors.Is(err, context.Canceled) {
		lead := "Voice mode stopped."
		var fe *voice.FailuresError
		if errors.As(err, &fe) {
			lead = fmt.Sprintf("Voice mode stopped after %d failed turns in a row.", fe.N)
			err = voice.Cause(fe.Last)
		}
		m.ptt.problem(lead, err, m.start)
	}
	m.host.focusComposer()
}

// levelHeard moves the meter to a level the loop heard (on the loop's goroutine, for each
// frame): at most meterRate times a second, and only when it moves visibly, since each move
// redraws the window.
func (m *voiceMode) levelHeard(db float64) {
	v := max(0, min(1, (db+60)/60))
	now := time.Now()
	m.levelMu.Lock()
	if now.Sub(m.levelAt) < time.Second/meterRate || math.Abs(v-m.levelShown) < 0.02 {
		m.levelMu.Unlock()
		return
	}
	m.levelShown, m.levelAt = v, now
	m.levelMu.Unlock()
	m.do(func() {
		if m.hearing() {
			m.level.SetValue(v)
			return
		}
		m.levelMu.Lock()
		m.levelShown = 0 // not shown: the next reading is, once the microphone is used
		m.levelMu.Unlock()
	})
}

// hearing reports whether what the microphone hears is used now, so that the meter moves: not
// while muted, nor while Parley speaks without barge-in (the panel says it is ignored), nor
// while a question is transcribed and answered.
func (m *voiceMode) hearing() bool {
	if !m.active || m.muted {
		return false
	}
	switch m.last {
	case voice.Listening, voice.HearingSpeech:
		return true
	case voice.Speaking:
		return m.bargeIn
	}
	return false
}

// toggleMute mutes or unmutes the microphone.
func (m *voiceMode) toggleMute() {
	m.muted = !m.muted
	if l := m.loop.Load(); l != nil {
		l.SetMuted(m.muted)
	}
	if mic := m.mic; mic != nil && m.active {
		// Muted, the microphone is closed; unmuted, it opens again (which takes a moment). The
		// state is recorded here, in the order asked; the device follows on a goroutine.
		mic.want(m.muted)
		go func() {
			if err := mic.apply(); err != nil {
				m.do(func() {
					m.ptt.problem("The microphone could not be opened again.", err, m.toggleMute)
					if !m.muted {
						m.toggleMute()
					}
				})
			}
		}()
	}
	m.host.voiceStateChanged()
	if m.muted {
		m.levelMu.Lock()
		m.levelShown = 0
		m.levelMu.Unlock()
		m.level.SetValue(0)
		m.mute.SetText("Unmute")
		m.mute.SetIcon(micIcon)
	} else {
		m.mute.SetText("Mute")
		m.mute.SetIcon(micOffIcon)
	}
}

// stateText is what the panel says for a state.
var stateText = map[voice.State]string{
	voice.Idle:          "Voice mode is off",
	voice.Listening:     "Listening…",
	voice.HearingSpeech: "Hearing you…",
	voice.Transcribing:  "Transcribing…",
	voice.Thinking:      "Thinking…",
	voice.Speaking:      "Speaking…",
	voice.Muted:         "Muted",
	voice.Error:         "Something went wrong",
}

// noticeText is what the panel says for the loop's notices.
var noticeText = map[voice.NoticeKind]string{
	voice.NoticeSilentMic:   "The microphone delivers only silence: check that it is on and not muted.",
	voice.NoticeDidNotCatch: "Didn't catch that.",
}

// show renders the loop's status.
func (m *voiceMode) show(s voice.Status) {
	if !m.active {
		return
	}
	m.last = s.State
	defer m.host.voiceStateChanged()
	text := stateText[s.State]
	detail := ""
	switch {
	case s.Stopping:
		text = "Stopping…"
		detail = m.stoppingDetail()
	case s.State == voice.Error && s.Err != nil:
		detail = failedText(s.Err) + " Listening again in a moment."
	case s.State == voice.Listening && s.Failed != nil:
		detail = failedText(s.Failed) + " Listening again: speak when you are ready."
	case s.State == voice.Listening:
		detail = "Speak when you are ready. Parley answers when you pause."
	case s.State == voice.Speaking && !s.Muted && m.bargeIn:
		detail = "Speak to interrupt."
	case s.State == voice.Speaking && !s.Muted:
		detail = "The microphone is ignored while Parley speaks."
	case s.Muted:
		detail = "The microphone is muted: nothing you say is heard."
	}
	if n, ok := noticeText[s.Notice]; ok && !s.Muted && !s.Stopping && s.State != voice.Muted {
		// A notice is about listening: once muted, "Didn't catch that" is old news under
		// "Muted".
		detail = n
	}
	m.state.Text = text
	m.state.Color = theme.Color(theme.ColorNameForeground)
	if s.State == voice.Error {
		m.state.Color = theme.Color(theme.ColorNameError)
	}
	m.state.Refresh()
	m.detail.SetText(detail)
	if !m.hearing() {
		m.levelMu.Lock()
		m.levelShown = 0
		m.levelMu.Unlock()
		m.level.SetValue(0) // the microphone is not used now: the meter rests
	}
	m.status.setVoice("Voice mode: " + strings.TrimSuffix(text, "…"))
}

// stoppingDetail is what the panel says while the loop stops.
const stoppingDetail = "Waiting for the reply to what you asked, so that it is kept."

// stoppingDetail says what happens while the loop stops: and whether it starts again.
func (m *voiceMode) stoppingDetail() string {
	if m.restart {
		return stoppingDetail + " Then voice mode starts again."
	}
	return stoppingDetail
}

// stepLead opens the reason a step of a turn failed, by the step.
var stepLead = map[string]string{
	"record":     "Could not record what you said.",
	"transcribe": "Could not transcribe what you said.",
	"chat":       "Could not get a reply.",
	"speak":      "Could not speak the reply.",
}

// failedText says why a step of a turn failed: the step, then the reason.
func failedText(err error) string {
	text := phrase(voice.Cause(err)).text
	var se *voice.StepError
	if errors.As(err, &se) && stepLead[se.Step] != "" {
		text = stepLead[se.Step] + " " + text
	}
	return text
}

// waitsFor reports whether voice mode waits for a reply in th.
func (m *voiceMode) waitsFor(th *conversation.Thread) bool {
	return m.pending != nil && m.pending.th == th
}

// turnEnded sees the question sent end: with its reply, or without.
func (m *voiceMode) turnEnded(th *conversation.Thread, o conversation.Outcome) {
	p := m.pending
	if p == nil || p.th != th || p.key != o.Key {
		return
	}
	m.pending = nil
	if o.End == conversation.Replied {
		p.done <- voiceAnswer{reply: o.Reply.Text}
		return
	}
	// Voice mode says why and listens again; the failed turn would hold back the next question,
	// which the person says rather than retrying this one.
	m.sess.Dismiss(th, o.Key)
	p.done <- voiceAnswer{err: o.Err}
}

// chatWaitLimit bounds how long voice mode waits for a reply through the session.
const chatWaitLimit = 5 * time.Minute

// appChatter asks through the window's session, so that the question and the reply appear in
// the chat view as they happen, exactly as typed ones do.
type appChatter struct {
	m  *voiceMode
	th *conversation.Thread
}

func (c *appChatter) Chat(ctx context.Context, q string) (string, error) {
	m := c.m
	done := make(chan voiceAnswer, 1)
	m.do(func() {
		v := m.sess.Snapshot(c.th)
		if v.Deleted {
			done <- voiceAnswer{err: errors.New("the conversation was deleted")}
			return
		}
		key := m.sess.Send(c.th, q)
		if key == 0 {
			done <- voiceAnswer{err: errors.New("nothing was heard to send")}
			return
		}
		m.pending = &voicePending{th: c.th, key: key, done: done}
	})
	// The session's own timeout ends the call; this only keeps voice mode from waiting for
	// ever on a reply it cannot see.
	limit := time.NewTimer(chatWaitLimit)
	defer limit.Stop()
	select {
	case a := <-done:
		return a.reply, a.err
	case <-ctx.Done():
		return "", ctx.Err()
	case <-m.ctx.Done():
		return "", m.ctx.Err()
	case <-limit.C:
		m.do(func() {
			if m.pending != nil && m.pending.done == done {
				m.pending = nil
			}
		})
		return "", errors.New("no reply came: look for it in the conversation")
	}
}
