package voice_test

import (
	"strings"
	"testing"

	"parley/voice"
)

func TestLoop_StoppedReplyWasPreparedOnlyAhead(t *testing.T) {
	// A reply of 40 sentences, voice mode ended while its third plays: no more speech was asked
	// for than the sentences heard and Lookahead after them.
	w := newWorld(t, nil)
	w.svc.replies = []string{strings.Repeat("The tide turns at six. Wind from the west, force four. ", 20)}
	w.onStatus = func(s voice.Status) {
		if s.Turn == 1 && s.State == voice.Listening {
			go w.mic.say(corpus.question, 1)
		}
	}
	w.mic.onFrame = func(int) {
		if len(w.sink.startedTimes()) >= 3 {
			w.loop.Stop()
		}
	}
	if err := w.wait(w.run()); err != nil {
		t.Fatal(err)
	}
	_, _, asked := w.svc.count()
	started := len(w.sink.startedTimes())
	t.Logf("%d sentences started, %d asked for", started, asked)
	if started < 3 || asked > started+voice.Lookahead {
		t.Errorf("%d speech calls for %d sentences started, want at most %d", asked, started, started+voice.Lookahead)
	}
}
