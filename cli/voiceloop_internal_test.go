package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
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

// A first call whose 2xx answer cannot be read made a conversation the loop does not know, and
// was charged: the loop ends (the next question would start yet another conversation) and the
// command ends with that error, exit 3. A later call's lost reply only fails its turn.
func TestCLIChatter_LostFirstReplyEndsTheLoop(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"conversation_id": "c_1", "reply": `) // cut short
	}))
	defer srv.Close()
	c, err := client.New(client.Options{BaseURL: srv.URL, APIKey: "pk_test_0123456789abcdef", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	ended := 0
	ch := &cliChatter{c: c, end: func() { ended++ }}
	if _, err := ch.Chat(context.Background(), "hello"); !errors.Is(err, client.ErrReplyUnreadable) {
		t.Fatalf("first call: %v, want ErrReplyUnreadable", err)
	}
	if ended != 1 || !errors.Is(ch.lost(), client.ErrReplyUnreadable) {
		t.Errorf("after a first call's lost reply: ended %d times, lost %v", ended, ch.lost())
	}
	if !errors.Is(ch.lost(), client.ErrReplyLost) { // what run gives exit code 3
		t.Errorf("the lost first reply %v is not an ErrReplyLost", ch.lost())
	}

	id, err := client.ParseConversationID("c_1")
	if err != nil {
		t.Fatal(err)
	}
	later := &cliChatter{c: c, id: id, end: func() { t.Error("a later call's lost reply ended the loop") }}
	if _, err := later.Chat(context.Background(), "again"); !errors.Is(err, client.ErrReplyUnreadable) || later.lost() != nil {
		t.Errorf("a later call: %v, lost %v", err, later.lost())
	}
	if calls.Load() != 2 {
		t.Errorf("%d calls reached the service, want 2 (never re-sent)", calls.Load())
	}
}
