package cli

import (
	"bytes"
	"strings"
	"testing"

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
