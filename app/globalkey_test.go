package app

import (
	"strings"
	"testing"

	"parley/voice/speakable"
)

// TestGlobalKey_NotificationShowsTheReplyAsText checks that the notification of a reply to a
// question said with the window hidden shows the reply as a person reads it, not its Markdown.
func TestGlobalKey_NotificationShowsTheReplyAsText(t *testing.T) {
	h := startDesktop(t, newFakeKeys())
	h.svc.Mu.Lock()
	h.svc.Reply = func(string) string {
		return "## About\n\n**First**, the *tide* turns at six; see [the table](https://tides.example.com/today).\n\n| Hour | Height |\n|---|---|\n| 6 | 2 m |\n\n- `west` wind"
	}
	h.svc.Mu.Unlock()
	h.u.prefs.setKeepInTray(true)
	h.u.closeRequested()
	body := h.askHeldUntilTold(t).body
	for _, raw := range []string{"#", "**", "*tide*", "](", "|", "`"} {
		if strings.Contains(body, raw) {
			t.Errorf("the notification shows %q: %q", raw, body)
		}
	}
	for _, said := range []string{"About", "First, the tide turns at six; see the table.", "west wind"} {
		if !strings.Contains(body, said) {
			t.Errorf("the notification does not say %q: %q", said, body)
		}
	}
}

// TestNoteText_PlainSentencesUnchangedLongRepliesCut checks that the window's own sentences
// reach a notification as they are, and that a long reply is cut at a word with an ellipsis.
func TestNoteText_PlainSentencesUnchangedLongRepliesCut(t *testing.T) {
	for _, s := range []string{
		"Open Parley and choose a service: then the key talks to it.",
		"The talk key was held for 2 minutes. What was heard is in Parley's message box; nothing was sent.",
		"The connection to 127.0.0.1:8780 failed. Check your connection and try again.",
	} {
		if got := noteText(s); got != s {
			t.Errorf("noteText(%q) = %q", s, got)
		}
	}
	long := strings.Repeat("The tide turns at six and the wind backs west. ", 20)
	got := noteText(long)
	if r := []rune(got); len(r) > maxNoteRunes+1 || !strings.HasSuffix(got, "…") || strings.HasSuffix(got, " …") {
		t.Errorf("a long reply: %d characters, %q", len(r), got)
	}
	if !strings.HasPrefix(strings.TrimSpace(speakable.Text(long)), strings.TrimSuffix(got, "…")) {
		t.Errorf("a long reply is not cut at its end: %q", got)
	}
}
