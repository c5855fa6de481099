package app

import (
	"fmt"
	"parley/app/locale"
	"strings"
	"time"

	"fyne.io/fyne/v2/lang"

	"parley/app/talk"
	"parley/conversation"
	"parley/internal/i18n"
)

// recordingLine is the status bar's line while a take records for elapsed; held: the
// hold-to-talk key is held.
func recordingLine(elapsed time.Duration, held bool) string {
	mins, secs := int(elapsed.Minutes()), int(elapsed.Seconds())%60
	if held {
		return fmt.Sprintf(lang.L("Recording %d:%02d · release the keys to send"), mins, secs)
	}
	return fmt.Sprintf(lang.L("Recording %d:%02d"), mins, secs)
}

// newTalk makes the app's talk controller: it lives as long as the app, and the tray, the
// notifications, and each main window follow it.
func (u *UI) newTalk() *talk.Controller {
	ctl := talk.New(talk.Config{
		Ctx: u.ctx,
		Devices: func() talk.Devices {
			return talk.Devices{NewRecorder: u.deps.NewRecorder, OpenMic: u.deps.OpenMic, NewPlayer: u.deps.NewPlayer}
		},
		Prefs: talkPrefs{u.prefs},
		Host:  talkHost{u},
		Do:    u.do,
	})
	ctl.Subscribe(u.talkAway)
	return ctl
}

// talkHost is the window as the talk controller sees it.
type talkHost struct{ u *UI }

func (h talkHost) OnScreen() *conversation.Thread {
	if h.u.main == nil {
		return nil
	}
	return h.u.main.current
}

func (h talkHost) Send(text string) int64 {
	if h.u.main == nil {
		return 0
	}
	return h.u.main.send(text)
}

func (h talkHost) SendHeld(text string) (*conversation.Thread, int64) {
	if h.u.main == nil {
		return nil, 0
	}
	return h.u.main.sendHeld(text)
}

// talkPrefs are the preferences as the talk controller reads them.
type talkPrefs struct{ p prefs }

func (p talkPrefs) InputDevice() string     { return p.p.inputDevice() }
func (p talkPrefs) Hold() time.Duration     { return p.p.hold() }
func (p talkPrefs) AdaptiveHold() bool      { return p.p.adaptiveHold() }
func (p talkPrefs) Volume() float64         { return p.p.volume() }
func (p talkPrefs) SpeechRate() float64     { return p.p.speechRate() }
func (p talkPrefs) AutoSpeak() bool         { return p.p.autoSpeak() }
func (p talkPrefs) SendSpoken() bool        { return p.p.sendSpoken() }
func (p talkPrefs) DefaultVoice() string    { return p.p.defaultVoice() }
func (p talkPrefs) SpeechLanguage() string  { return p.p.speechLanguage() }
func (p talkPrefs) WindowLanguage() string  { return locale.Current().Tag().String() }
func (p talkPrefs) BargeIn() bool           { return p.p.bargeIn() }
func (p talkPrefs) SpeakErrors() bool       { return p.p.speakErrors() }
func (p talkPrefs) FollowUp() time.Duration { return p.p.followUp() }

// WakePhrase is the wake phrase when Preferences asks voice mode to wait for it.
func (p talkPrefs) WakePhrase() string {
	if !p.p.wakeWord() {
		return ""
	}
	return p.p.wakePhrase()
}

// talkAway follows the controller for as long as the app runs: the tray's icon shows what the
// microphone and the speakers do, and a person away from the window (hidden in the tray) is
// told what became of what they said with the hold-to-talk key.
func (u *UI) talkAway(ev talk.Event) {
	switch ev.Kind {
	case talk.Changed:
		u.voiceStateChanged()
	case talk.Problem:
		if ev.Held {
			u.tellAway(lang.L("Parley could not take what you said"), problemText(ev), nil)
		}
	case talk.Notice:
		if title, body := awayNotice(ev.Notice); ev.Held && title != "" {
			u.tellAway(title, body, nil)
		}
	case talk.Answered:
		u.tellAway(ev.Question, ev.Text, ev.Thread)
	case talk.Unanswered:
		u.tellAway(fmt.Sprintf(lang.L("No reply to: %s"), ev.Question), phrase(ev.Err).text, ev.Thread)
	}
}

// problemText says a problem in a sentence or two: what it is about, then why.
func problemText(ev talk.Event) string {
	why := phrase(ev.Err).text
	switch ev.Lead {
	case talk.NotTranscribed:
		return fmt.Sprintf(lang.L("The recording was not transcribed. %s"), why)
	case talk.NotSpoken:
		return fmt.Sprintf(lang.L("The reply could not be spoken. %s"), why)
	case talk.NeedsMic:
		return fmt.Sprintf(lang.L("Voice mode needs a microphone. %s"), why)
	case talk.VoiceStopped:
		if ev.Failures > 0 {
			return fmt.Sprintf(i18n.N("Voice mode stopped after %[1]s failed turn in a row. %[2]s",
				"Voice mode stopped after %[1]s failed turns in a row. %[2]s", ev.Failures), i18n.Number(ev.Failures), why)
		}
		return fmt.Sprintf(lang.L("Voice mode stopped. %s"), why)
	case talk.MicNotReopened:
		return fmt.Sprintf(lang.L("The microphone could not be opened again. %s"), why)
	}
	return why
}

// noticeText is what the message box says when a take sent nothing ("": it says nothing).
func (m *mainTalk) noticeText(n talk.NoticeKind) string {
	switch n {
	case talk.NoSpeech:
		return lang.L("Didn't catch that: no speech was heard.")
	case talk.NoWords:
		return lang.L("Didn't catch that: the service heard no words.")
	case talk.KeptUnsent:
		return lang.L("The talk key was held for 2 minutes, so Parley stopped listening: what it heard is in the message box, not sent.")
	}
	return ""
}

// awayNotice is what a notification tells a person away from the window of a hold-to-talk
// take that sent nothing.
func awayNotice(n talk.NoticeKind) (title, body string) {
	switch n {
	case talk.NoSpeech:
		return lang.L("Parley didn't catch that"), lang.L("No speech was heard, so nothing was sent.")
	case talk.NoWords:
		return lang.L("Parley didn't catch that"), lang.L("The service heard no words, so nothing was sent.")
	case talk.HeldTooLong:
		return lang.L("Parley stopped listening"), lang.L("The talk key was held for 2 minutes. What was heard is in Parley's message box; nothing was sent.")
	}
	return "", ""
}

// mainTalk follows the controller in one main window: its composer, its voice panel, its
// header and its status bar. It is subscribed when the window is built, and unsubscribed when
// another replaces it.
type mainTalk struct {
	m         *mainWindow
	composer  *composer
	panel     *voicePanel
	status    *statusBar
	recording string // the status bar's line while a take records
}

func (m *mainTalk) event(ev talk.Event) {
	st := m.m.u.talk.State()
	switch ev.Kind {
	case talk.Changed:
		m.composer.showStop(st.Speaking)
		if st.Recording != m.composer.recording.Visible() {
			if st.Recording {
				m.composer.hideNotice() // it was about the take before
				m.composer.setLevel(0, 0, lang.L("Listening…"))
				m.recording = recordingLine(0, st.Held)
			}
			m.composer.showRecording(st.Recording)
		}
		if m.panel.changed(st) {
			m.m.voiceModeShown(st.Mode != talk.Off)
		}
	case talk.Level:
		switch {
		case st.Recording && ev.Take:
			state := lang.L("Listening…")
			if ev.Hearing {
				state = lang.L("Hearing you…")
			}
			m.composer.setLevel(ev.Level, ev.Elapsed, state)
			m.recording = recordingLine(ev.Elapsed, ev.Held)
		case !ev.Take:
			m.panel.level.SetValue(ev.Level)
		}
	case talk.Status:
		m.panel.status(ev.Status, st)
	case talk.Problem:
		m.showProblem(ev)
	case talk.Notice:
		if text := m.noticeText(ev.Notice); text != "" {
			label := ""
			if ev.Retry != nil {
				label = actionRetry.label()
			}
			m.composer.showNotice(text, label, ev.Retry)
		}
	case talk.Transcript:
		m.composer.addSaid(ev.Text)
	case talk.Focus:
		m.m.focusComposer()
	}
	m.status.setVoice(voiceLine(st, m.recording))
}

// showProblem shows a problem in the message box, with the button that helps.
func (m *mainTalk) showProblem(ev talk.Event) {
	var act func()
	switch phrase(ev.Err).action {
	case actionPreferences:
		act = m.m.u.showPreferences
	case actionAccount:
		act = m.m.u.showAccount
	case actionRetry:
		act = ev.Retry
	}
	label := ""
	if act != nil {
		label = phrase(ev.Err).action.label()
	}
	m.composer.showNotice(problemText(ev), label, act)
}

// addSaid puts what was said in the message box, after what it holds, for review.
func (c *composer) addSaid(text string) {
	text = strings.TrimSpace(text)
	if cur := strings.TrimSpace(c.text()); cur != "" {
		text = cur + " " + text
	}
	c.setText(text)
}
