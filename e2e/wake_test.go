package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// startWakeVoice runs `parley voice --wake` in the simulated room (replies come back into the
// microphone, 12 dB down), like startRoomVoice without barge-in.
func startWakeVoice(t *testing.T, turns int) (*roomVoice, *service) {
	t.Helper()
	return startInRoom(t, -12, func(trace string) []string {
		return []string{"voice", "--wake", "--turns", fmt.Sprint(turns), "--persona", longPersona,
			"--follow-up", "3s", "--trace", trace}
	})
}

// uploads counts the service's transcription and chat requests so far, from its log.
func uploads(s *service) (transcribe, chat int) {
	for _, l := range strings.Split(s.logs.String(), "\n") {
		switch {
		case strings.Contains(l, "path=/v1/chat/transcribe"):
			transcribe++
		case strings.Contains(l, "path=/v1/chat/messages"):
			chat++
		}
	}
	return transcribe, chat
}

// A question said without the wake phrase is heard by no one; the wake phrase starts a turn;
// "stop" said over the reply stops it; and the next question needs the wake phrase again.
func TestVoice_WakePhraseStopAndNothingSentBefore(t *testing.T) {
	v, s := startWakeVoice(t, 2)
	plain := say(t, v.dir, "plain", theQuestion)
	woken := say(t, v.dir, "woken", "hey parley, "+theQuestion)
	stop := say(t, v.dir, "stop", "stop.")
	// The second question is the first again: pocketsphinx hears flite say it almost word for
	// word, where "what time is it in new york" came out as "what time is it any america".
	const secondText = theQuestion
	second := say(t, v.dir, "second", "hey parley, "+secondText)

	v.await(t, "[waiting for")
	time.Sleep(2500 * time.Millisecond) // the null sink's monitor takes up to 2 s to deliver audio
	playInto(t, v.p, plain)
	time.Sleep(3 * time.Second)
	if tr, chat := uploads(s); tr != 0 || chat != 0 {
		t.Fatalf("%d transcriptions and %d chat calls reached the service before the wake phrase:\n%s", tr, chat, s.logs.String())
	}

	playInto(t, v.p, woken)
	v.await(t, "[speaking")
	time.Sleep(3 * time.Second) // the canceller learns the room
	playInto(t, v.p, stop)
	v.await(t, "[waiting for")
	time.Sleep(2500 * time.Millisecond) // what was played of the reply drains, then a pause
	playInto(t, v.p, second)
	v.wait(t)

	var woke, stopped int
	for _, e := range traceEvents(t, v.trace) {
		switch e.Event {
		case "wake":
			woke++
		case "stop_word":
			stopped++
		}
	}
	if woke != 2 || stopped < 1 {
		t.Errorf("%d wake and %d stop_word events, want 2 and at least 1:\n%s", woke, stopped, v.seen.String())
	}
	heard := v.questions()
	if len(heard) != 2 {
		t.Fatalf("heard %d questions, want 2:\n%s", len(heard), v.stdout.String())
	}
	for i, want := range []string{theQuestion, secondText} {
		if o := wordOverlap(heard[i], want); o < minOverlap {
			t.Errorf("question %d heard as %q: %.0f%% of %q, want %.0f%%", i+1, heard[i], 100*o, want, 100*minOverlap)
		}
		if strings.Contains(strings.ToLower(heard[i]), "parley") {
			t.Errorf("question %d %q still holds the wake phrase", i+1, heard[i])
		}
	}
	if tr, chat := uploads(s); chat != 2 || tr > 8 {
		t.Errorf("%d transcriptions and %d chat calls, want 2 chat calls", tr, chat)
	}
}
