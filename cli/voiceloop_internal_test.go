package cli

import (
	"bytes"
	"strings"
	"testing"

	"parley/client"
	"parley/voice"
)

// The loop gives notice kinds; the terminal phrases them, one line each.
func TestVoicePrinter_PhrasesTheLoopsNotices(t *testing.T) {
	for kind, want := range map[voice.NoticeKind]string{
		voice.NoNotice:          "[listening (Ctrl-C stops)]",
		voice.NoticeDidNotCatch: "[Didn't catch that.]",
		voice.NoticeSilentMic:   "[The microphone delivers only silence: check that it is on and not muted.]",
	} {
		var errOut bytes.Buffer
		p := &voicePrinter{g: newGlobals(strings.NewReader(""), &bytes.Buffer{}, &errOut, func(string) string { return "" })}
		p.status(voice.Status{State: voice.Listening, Turn: 1, Notice: kind})
		if got := strings.TrimSpace(errOut.String()); got != want {
			t.Errorf("notice %v: stderr %q, want %q", kind, got, want)
		}
	}
}

// A failed turn says which step failed and why, and the line that follows while the loop
// listens again still says it, until the next turn begins.
func TestVoicePrinter_SaysWhyATurnFailedUntilTheNext(t *testing.T) {
	var errOut bytes.Buffer
	p := &voicePrinter{g: newGlobals(strings.NewReader(""), &bytes.Buffer{}, &errOut, func(string) string { return "" })}
	busy := &voice.StepError{Step: "transcribe", Err: &client.Error{StatusCode: 503, Message: "the service is busy"}}
	p.status(voice.Status{State: voice.Error, Turn: 1, Err: busy, Failed: busy})
	p.status(voice.Status{State: voice.Listening, Turn: 2, Failed: busy})
	p.status(voice.Status{State: voice.HearingSpeech, Turn: 2})
	lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("stderr %q, want three lines", errOut.String())
	}
	reason := p.g.phrase(busy.Err)
	for i, want := range []string{
		"[error: Could not transcribe what you said. " + reason + " Listening again in a moment.]",
		"[listening again (Ctrl-C stops); the last turn failed: Could not transcribe what you said. " + reason + "]",
		"[hearing speech]",
	} {
		if lines[i] != want {
			t.Errorf("line %d: %q, want %q", i+1, lines[i], want)
		}
	}
	if !strings.Contains(strings.ToLower(reason), "busy") {
		t.Errorf("the reason %q does not say the service is busy", reason)
	}
}
