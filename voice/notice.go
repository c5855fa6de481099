package voice

import (
	"errors"
	"fmt"

	"parley/audio/playback"
	"parley/internal/i18n"
)

// NoticeKind is something the loop tells the person besides its state: shown (Status.Notice),
// or spoken after a failed turn (Config.SpeakErrors). The loop gives kinds; the app and the CLI
// phrase them, and Config.SpokenNotice phrases the spoken ones.
type NoticeKind int

// The notices.
const (
	// NoNotice: nothing to tell.
	NoNotice NoticeKind = iota
	// NoticeSilentMic: the microphone has delivered only digital silence for a while. The loop
	// listens on: a sound server's idle source does this too.
	NoticeSilentMic
	// NoticeDidNotCatch: the transcript was empty or only noise, so nothing was sent; the loop
	// listens again.
	NoticeDidNotCatch
	// NoticeTranscribeFailed is spoken when the take could not be recorded or transcribed.
	NoticeTranscribeFailed
	// NoticeChatFailed is spoken when the chat call failed.
	NoticeChatFailed
	// NoticeStepFailed is spoken when another step failed.
	NoticeStepFailed
)

var noticeNames = [...]string{"none", "silent microphone", "did not catch", "transcription failed", "chat failed", "step failed"}

// String names the kind, for logs and tests; it is not a sentence for people.
func (k NoticeKind) String() string {
	if k < 0 || int(k) >= len(noticeNames) {
		return fmt.Sprintf("notice(%d)", int(k))
	}
	return noticeNames[k]
}

// EnglishNotice is the plain sentence for a notice, short enough to be said aloud: what the loop
// speaks after a failed turn when Config.SpokenNotice is nil. It is English unless the window
// installed its language (i18n.T).
func EnglishNotice(k NoticeKind) string {
	switch k {
	case NoNotice:
		return ""
	case NoticeSilentMic:
		return i18n.T("The microphone delivers only silence.")
	case NoticeDidNotCatch:
		return i18n.T("Didn't catch that.")
	case NoticeTranscribeFailed:
		return i18n.T("Sorry, I couldn't make that out. Please say it again.")
	case NoticeChatFailed:
		return i18n.T("Sorry, I couldn't get a reply. Please try again.")
	}
	return i18n.T("Sorry, something went wrong.")
}

// failureNotice is the notice spoken after err failed a turn.
func failureNotice(err error) NoticeKind {
	var se *StepError
	if errors.As(err, &se) {
		switch se.Step {
		case "transcribe", "record":
			return NoticeTranscribeFailed
		case "chat":
			return NoticeChatFailed
		}
	}
	return NoticeStepFailed
}

// noticeTurn is the turn number a spoken notice goes by.
const noticeTurn = -1

// spokenNotice follows the notice spoken after a failed turn like a reply, so that the loop
// does not take it for a question: it listens again only once the notice has been heard.
type spokenNotice struct {
	saying  bool // its sentences are still being asked for and queued
	queued  int  // its clips queued
	ended   int  // and ended
	waiting bool // the error pause is over: listen once the notice has been heard
}

// heard reports whether the notice, if any, has been said to its end.
func (n *spokenNotice) heard() bool { return !n.saying && n.ended >= n.queued }

// speakNotice says the notice for the failure err, unless speaking is what failed.
func (r *run) speakNotice(err error) {
	var se *StepError
	if errors.As(err, &se) && se.Step == "speak" {
		return
	}
	text := r.cfg.SpokenNotice(failureNotice(err))
	r.spoken.saying, r.spoken.queued, r.spoken.ended = true, 0, 0
	ctx, sp := r.turnCtx, r.speaking.speaker
	r.calls.Go(func() {
		err := sp.say(ctx, noticeTurn, text, r.cfg.Voice, func(index int, id playback.ClipID) {
			r.l.post(clipQueued{noticeTurn, index, id})
		})
		r.l.post(said{noticeTurn, err})
	})
}

// noticeDone notes that the notice has been said; listening waits for it after the pause.
func (r *run) noticeDone() error {
	if !r.spoken.heard() || !r.spoken.waiting {
		return nil
	}
	r.spoken.waiting = false
	r.listening.ignoreEcho(r.cfg)
	return r.listenNext()
}
