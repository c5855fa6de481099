package voice_test

import (
	"errors"
	"testing"

	"parley/client"
	"parley/voice"
)

// A failed turn's reason is kept in the status after the Error state, while the loop listens
// again, and cleared once the next question is heard.
func TestLoop_FailedStepIsShownUntilTheNextTurn(t *testing.T) {
	w := newWorld(t, func(c *voice.Config) { c.Turns = 1 })
	w.svc.failSTT = []error{&client.Error{StatusCode: 503}}
	w.onStatus = func(s voice.Status) {
		if s.State == voice.Listening && s.Notice == voice.NoNotice {
			go w.mic.say(corpus.question, 1)
		}
	}
	if err := w.wait(w.run()); err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	failed, listenedAfter := false, false
	for _, s := range w.statuses {
		switch {
		case s.State == voice.Error:
			failed = true
			var se *voice.StepError
			if !errors.As(s.Failed, &se) || se.Step != "transcribe" {
				t.Errorf("the Error state's Failed is %v", s.Failed)
			}
		case failed && s.State == voice.Listening:
			listenedAfter = true
			if s.Failed == nil {
				t.Errorf("listening again in turn %d, the failure is no longer shown", s.Turn)
			}
		case failed && listenedAfter && s.State != voice.Listening:
			if s.Failed != nil {
				t.Errorf("%v in turn %d still shows the failure %v", s.State, s.Turn, s.Failed)
			}
		}
	}
	if !failed || !listenedAfter {
		t.Errorf("states %s", w.states())
	}
}
