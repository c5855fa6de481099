package app

import (
	"errors"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"parley/app/talk"
	"parley/voice"
)

// scVoiceMode toggles hands-free voice mode.
var scVoiceMode = &desktop.CustomShortcut{KeyName: fyne.KeyM, Modifier: fyne.KeyModifierShortcutDefault | fyne.KeyModifierShift}

// scMute mutes or unmutes the microphone in voice mode (Ctrl+D, as in many call apps).
var scMute = &desktop.CustomShortcut{KeyName: fyne.KeyD, Modifier: fyne.KeyModifierShortcutDefault}

// voicePanel shows hands-free voice mode (run by the talk controller) in the composer's place
// while it runs: what it does, the microphone's level, Mute and Stop.
type voicePanel struct {
	ctl   *talk.Controller
	shown bool // the panel shows (voice mode runs or stops)

	state  *canvas.Text
	detail *widget.Label
	level  *widget.ProgressBar
	mute   *widget.Button
	stop   *widget.Button
	box    *fyne.Container
}

func newVoicePanel(ctl *talk.Controller) *voicePanel {
	p := &voicePanel{ctl: ctl}
	p.state = canvas.NewText("", theme.Color(theme.ColorNameForeground))
	p.state.TextSize = 2 * theme.TextSize()
	p.state.TextStyle = fyne.TextStyle{Bold: true}
	p.state.Alignment = fyne.TextAlignCenter
	p.detail = widget.NewLabel("")
	p.detail.Alignment = fyne.TextAlignCenter
	p.detail.Wrapping = fyne.TextWrapWord
	p.level = widget.NewProgressBar()
	p.level.TextFormatter = func() string { return "" }
	p.mute = widget.NewButtonWithIcon(lang.L("Mute"), micOffIcon, ctl.ToggleMute)
	p.stop = widget.NewButtonWithIcon(lang.L("Stop voice mode"), theme.MediaStopIcon(), ctl.EndVoiceMode)
	p.stop.Importance = widget.DangerImportance
	p.box = container.NewVBox(
		widget.NewSeparator(),
		p.state,
		p.detail,
		border(nil, nil, widget.NewLabel(lang.L("Microphone")), nil, p.level),
		container.NewCenter(container.NewHBox(p.mute, p.stop)),
	)
	p.box.Hide()
	p.showMute(ctl.State().Muted)
	return p
}

func (p *voicePanel) object() fyne.CanvasObject { return p.box }

// changed follows the controller's state; it reports whether the panel was shown or hidden.
func (p *voicePanel) changed(st talk.State) (toggled bool) {
	p.showMute(st.Muted)
	if st.Muted || !p.ctl.Hearing() {
		p.level.SetValue(0) // the microphone is not used now: the meter rests
	}
	switch {
	case st.Mode != talk.Off && !p.shown:
		p.shown = true
		p.box.Show()
		p.setState(lang.L("Starting…"), false)
		p.detail.SetText("")
		return true
	case st.Mode == talk.Off && p.shown:
		p.shown = false
		p.level.SetValue(0)
		p.box.Hide()
		return true
	case st.LoopStopping:
		p.detail.SetText(stoppingText(st.Restart)) // a press meanwhile: whether it starts again
	}
	return false
}

// showMute labels the mute button for the state.
func (p *voicePanel) showMute(muted bool) {
	if muted {
		p.mute.SetText(lang.L("Unmute"))
		p.mute.SetIcon(micIcon)
	} else {
		p.mute.SetText(lang.L("Mute"))
		p.mute.SetIcon(micOffIcon)
	}
}

// stateText is what the panel says for a state.
func stateText(s voice.State) string {
	switch s {
	case voice.Idle:
		return lang.L("Voice mode is off")
	case voice.Listening:
		return lang.L("Listening…")
	case voice.HearingSpeech:
		return lang.L("Hearing you…")
	case voice.Transcribing:
		return lang.L("Transcribing…")
	case voice.Thinking:
		return lang.L("Thinking…")
	case voice.Speaking:
		return lang.L("Speaking…")
	case voice.Muted:
		return lang.L("Muted")
	case voice.Error:
		return lang.L("Something went wrong")
	case voice.Waiting:
		return lang.L("Waiting for the wake phrase")
	}
	return ""
}

// noticeText is what the panel says for the loop's notices ("" for none).
func noticeText(n voice.NoticeKind) string {
	switch n {
	case voice.NoticeSilentMic:
		return lang.L("The microphone delivers only silence: check that it is on and not muted.")
	case voice.NoticeDidNotCatch:
		return lang.L("Didn't catch that.")
	}
	return ""
}

// statusText is the panel's heading for the loop's status; wake is the wake phrase, if any.
func statusText(s voice.Status, wake string) string {
	switch {
	case s.Stopping:
		return lang.L("Stopping…")
	case s.State == voice.Waiting && wake != "":
		return fmt.Sprintf(lang.L("Say “%s”"), wakeTitle(wake))
	case s.State == voice.Listening && s.FollowUp:
		return lang.L("Listening for a follow-up…")
	}
	return stateText(s.State)
}

// status renders the loop's status.
func (p *voicePanel) status(s voice.Status, st talk.State) {
	if !p.shown {
		return
	}
	detail := ""
	switch {
	case s.Stopping:
		detail = stoppingText(st.Restart)
	case s.State == voice.Error && s.Err != nil:
		detail = fmt.Sprintf(lang.L("%s Listening again in a moment."), failedText(s.Err))
	case s.State == voice.Listening && s.Failed != nil:
		detail = fmt.Sprintf(lang.L("%s Listening again: speak when you are ready."), failedText(s.Failed))
	case s.State == voice.Listening && s.FollowUp:
		detail = lang.L("Ask on without the wake phrase, or wait and Parley waits for it again.")
	case s.State == voice.Listening:
		detail = lang.L("Speak when you are ready. Parley answers when you pause.")
	case s.State == voice.Waiting && !s.Muted:
		detail = lang.L("Nothing is recorded or sent until Parley hears it, on this computer.")
	case s.State == voice.Speaking && !s.Muted && st.Wake != "" && st.BargeIn:
		detail = lang.L("Speak to interrupt, or say “stop”.")
	case s.State == voice.Speaking && !s.Muted && st.Wake != "":
		detail = lang.L("Say “stop” to stop it.")
	case s.State == voice.Speaking && !s.Muted && st.BargeIn:
		detail = lang.L("Speak to interrupt.")
	case s.State == voice.Speaking && !s.Muted:
		detail = lang.L("The microphone is ignored while Parley speaks.")
	case s.Muted:
		detail = lang.L("The microphone is muted: nothing you say is heard.")
	}
	if n := noticeText(s.Notice); n != "" && !s.Muted && !s.Stopping && s.State != voice.Muted {
		// A notice is about listening: once muted, "Didn't catch that" is old news under
		// "Muted".
		detail = n
	}
	p.setState(statusText(s, st.Wake), s.State == voice.Error)
	p.detail.SetText(detail)
}

// setState sets the panel's heading.
func (p *voicePanel) setState(text string, failed bool) {
	p.state.Text = text
	p.state.Color = theme.Color(theme.ColorNameForeground)
	if failed {
		p.state.Color = theme.Color(theme.ColorNameError)
	}
	p.state.Refresh()
}

// stoppingText says what happens while the loop stops: and whether it starts again.
func stoppingText(restart bool) string {
	if restart {
		return lang.L("Waiting for the reply to what you asked, so that it is kept. Then voice mode starts again.")
	}
	return lang.L("Waiting for the reply to what you asked, so that it is kept.")
}

// failedText says why a step of a turn failed: the step, then the reason.
func failedText(err error) string {
	text := phrase(voice.Cause(err)).text
	var se *voice.StepError
	if !errors.As(err, &se) {
		return text
	}
	switch se.Step {
	case "record":
		return fmt.Sprintf(lang.L("Could not record what you said. %s"), text)
	case "transcribe":
		return fmt.Sprintf(lang.L("Could not transcribe what you said. %s"), text)
	case "chat":
		return fmt.Sprintf(lang.L("Could not get a reply. %s"), text)
	case "speak":
		return fmt.Sprintf(lang.L("Could not speak the reply. %s"), text)
	}
	return text
}

// voiceModeLine is what the status bar says in voice mode for the loop's state.
func voiceModeLine(s voice.State) string {
	switch s {
	case voice.Listening:
		return lang.L("Voice mode: Listening")
	case voice.HearingSpeech:
		return lang.L("Voice mode: Hearing you")
	case voice.Transcribing:
		return lang.L("Voice mode: Transcribing")
	case voice.Thinking:
		return lang.L("Voice mode: Thinking")
	case voice.Speaking:
		return lang.L("Voice mode: Speaking")
	case voice.Muted:
		return lang.L("Voice mode: Muted")
	case voice.Error:
		return lang.L("Voice mode: Something went wrong")
	case voice.Waiting:
		return lang.L("Voice mode: Waiting for the wake phrase")
	}
	return lang.L("Voice mode")
}

// voiceLine is what the status bar says of the microphone and the speakers.
func voiceLine(st talk.State, recording string) string {
	switch {
	case st.Mode != talk.Off && st.LoopStopping:
		return lang.L("Voice mode: Stopping")
	case st.Mode != talk.Off && st.Loop == voice.Idle:
		return "" // until the loop's first status
	case st.Mode != talk.Off:
		return voiceModeLine(st.Loop)
	case st.Recording:
		return recording
	case st.Transcribing:
		return lang.L("Transcribing…")
	case st.Speaking:
		return lang.L("Speaking")
	}
	return ""
}

// toggleVoiceMode starts hands-free voice mode in the conversation on screen, or ends it.
func (u *UI) toggleVoiceMode() { u.talk.ToggleVoiceMode() }
