package voice_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"parley/audio"
	"parley/client"
	"parley/media"
	"parley/voice"
)

// The parts of a question said with pauses inside it, and what a recogniser makes of the audio
// it is sent: the words of each part it holds the speech of.
var questionParts = []string{"What is the capital of France", "and how far away is it"}

// pause is gap of the room's silence, for fakeMic.say.
func pause(gap time.Duration) media.PCM {
	return media.PCM{Rate: audio.SampleRate, Channels: 1, Samples: make([]int16, int(gap*audio.SampleRate/time.Second))}
}

// audible is p without the silence espeak puts before and after the speech (below -40 dBFS).
func audible(p media.PCM) media.PCM {
	s := p.Samples
	from := int(leadIn(s) * audio.SampleRate / time.Second)
	to := len(s)
	for to > from && s[to-1] <= 328 && s[to-1] >= -328 {
		to--
	}
	p.Samples = s[from:to]
	return p
}

// askInTurnOne runs the loop, starting say when it first listens, and waits for it to end.
func (w *world) askInTurnOne(t *testing.T, say func()) {
	t.Helper()
	w.onStatus = func(s voice.Status) {
		if s.Turn == 1 && s.State == voice.Listening {
			go say()
		}
	}
	if err := w.wait(w.run()); err != nil {
		t.Fatal(err)
	}
}

// sayWithPauses queues the parts (corpus.question, corpus.second, again and again, without
// espeak's leading and trailing silence) with the gaps of silence between them.
func (w *world) sayWithPauses(gaps ...time.Duration) {
	parts := []media.PCM{audible(corpus.question), audible(corpus.second)}
	for i := 0; i <= len(gaps); i++ {
		w.mic.say(parts[i%2], 1)
		if i < len(gaps) {
			w.mic.say(pause(gaps[i]), 1)
		}
	}
}

// partsTranscriber answers, after the fake service's delay (and counted by it), with the words
// of the parts whose speech the audio holds: it decodes the upload and counts the stretches of
// speech in it, so a transcript covers exactly what was sent.
type partsTranscriber struct {
	svc *fakeService
	// busy is held while the audio is decoded; the microphone waits for it, so the fake clock
	// stands still while the transcriber works in real time.
	busy sync.Mutex
	// last replaces the words of the last part heard (a recogniser that heard "and" at the end).
	last func(n int) string
}

func (p *partsTranscriber) Transcribe(ctx context.Context, req client.TranscribeRequest) (*client.Transcript, error) {
	p.busy.Lock()
	pcm, err := media.Decode(req.Audio)
	p.busy.Unlock()
	if err != nil {
		return nil, err
	}
	if _, err := p.svc.Transcribe(ctx, req); err != nil {
		return nil, err
	}
	n := speechParts(pcm.Samples)
	var words []string
	for i := range n {
		words = append(words, questionParts[i%2])
	}
	if p.last != nil && n > 0 {
		words[n-1] = p.last(n)
	}
	return &client.Transcript{Text: strings.Join(words, " ")}, nil
}

// speechParts counts the stretches of speech in s that are apart by 400 ms or more of quiet.
func speechParts(s []int16) int {
	const frame = audio.FrameSamples
	n, quiet := 0, 1<<30
	for i := 0; i+frame <= len(s); i += frame {
		loud := false
		for _, v := range s[i : i+frame] {
			if v > 1000 || v < -1000 {
				loud = true
				break
			}
		}
		if !loud {
			quiet++
			continue
		}
		if quiet*20 >= 400 {
			n++
		}
		quiet = 0
	}
	return n
}

// speculativeWorld is a world whose loop speculates, with a transcriber that hears the parts.
func speculativeWorld(t *testing.T, edit func(*voice.Config)) (*world, *partsTranscriber) {
	pt := &partsTranscriber{}
	w := newWorld(t, func(c *voice.Config) {
		c.Turns = 1
		c.Speculate = true
		c.Hold = 900 * time.Millisecond
		c.Transcriber = pt
		if edit != nil {
			edit(c)
		}
	})
	pt.svc = w.svc
	w.mic.onFrame = func(int) {
		pt.busy.Lock()
		defer pt.busy.Unlock()
	}
	return w, pt
}

func (w *world) kinds(turn int) map[voice.TraceKind]int {
	n := map[voice.TraceKind]int{}
	for _, e := range w.traceOf(turn) {
		n[e.Kind]++
	}
	return n
}

// usedSpeculation reports whether the turn's transcript came from a speculative call.
func (w *world) usedSpeculation(turn int) bool {
	for _, e := range w.traceOf(turn) {
		if e.Kind == voice.TraceTranscribeDone {
			return e.Speculative
		}
	}
	return false
}

// checkChatAfterTheQuestion checks that the one chat call asked the whole question, and went
// out after it had ended: never while a speculative transcript was all there was.
func (w *world) checkChatAfterTheQuestion(want string) {
	w.t.Helper()
	w.svc.mu.Lock()
	questions := append([]string(nil), w.svc.questions...)
	w.svc.mu.Unlock()
	if len(questions) != 1 || questions[0] != want {
		w.t.Fatalf("chat got %q, want the one question %q", questions, want)
	}
	end, _ := w.event(1, voice.TraceSpeechEnd, -1)
	sent, _ := w.event(1, voice.TraceChatSent, -1)
	if !sent.After(end) {
		w.t.Errorf("the chat call at %v was sent before the question ended at %v", sent, end)
	}
}

// A pause inside a question, shorter than the hold: the speculative call made in it is
// cancelled when speech resumes, and the transcript used covers the whole question.
func TestSpeculation_PauseInsideTheQuestionCancelsTheCall(t *testing.T) {
	w, _ := speculativeWorld(t, nil)
	w.svc.transcribeDelay = 500 * time.Millisecond // still running when speech resumes
	w.askInTurnOne(t, func() { w.sayWithPauses(600 * time.Millisecond) })
	w.checkChatAfterTheQuestion("What is the capital of France and how far away is it")
	k := w.kinds(1)
	if k[voice.TraceSpecSent] != 2 || k[voice.TraceSpecCancelled] != 1 || k[voice.TraceSpecDone] != 1 {
		t.Errorf("speculative calls: %d sent, %d cancelled, %d answered; want 2, 1, 1", k[voice.TraceSpecSent], k[voice.TraceSpecCancelled], k[voice.TraceSpecDone])
	}
	w.svc.mu.Lock()
	calls, cancelled := w.svc.transcribed, w.svc.sttCanceled
	w.svc.mu.Unlock()
	if calls != 2 || cancelled != 1 {
		t.Errorf("%d transcriptions, %d cancelled; want 2 (one per pause), the first cancelled", calls, cancelled)
	}
	if !w.usedSpeculation(1) {
		t.Error("the turn did not use the speculative transcript of the whole question")
	}
	// The hold hid the transcription: the transcript was in hand when the hold ended.
	sent, _ := w.event(1, voice.TraceTranscribeSent, -1)
	done, _ := w.event(1, voice.TraceTranscribeDone, -1)
	if done != sent {
		t.Errorf("the transcript came %v after the hold ended, want at once", done.Sub(sent))
	}
}

// A speculative call that answered in a pause is not used once speech resumed after it, even
// though it answered: only a call that holds all of the take's speech is.
func TestSpeculation_UsedOnlyWhenItCoversAllTheSpeech(t *testing.T) {
	t.Run("an answer for part of the question", func(t *testing.T) {
		w, _ := speculativeWorld(t, nil)
		w.svc.transcribeDelay = 100 * time.Millisecond // answers within the pause
		w.askInTurnOne(t, func() { w.sayWithPauses(700 * time.Millisecond) })
		w.checkChatAfterTheQuestion("What is the capital of France and how far away is it")
		if k := w.kinds(1); k[voice.TraceSpecDone] != 2 || k[voice.TraceSpecCancelled] != 0 {
			t.Errorf("trace %v; want both speculative calls answered", k)
		}
	})
	t.Run("a failed speculative call", func(t *testing.T) {
		w, _ := speculativeWorld(t, nil)
		w.svc.failSTT = []error{&client.Error{StatusCode: 503}}
		w.askInTurnOne(t, func() { w.mic.say(corpus.question, 1) })
		// Its failure was not the turn's: the take was sent again, as without speculation.
		w.checkChatAfterTheQuestion("What is the capital of France")
		if w.usedSpeculation(1) || w.svc.transcribed != 2 {
			t.Errorf("%d transcriptions, speculative transcript used %v; want the take sent again", w.svc.transcribed, w.usedSpeculation(1))
		}
	})
	t.Run("a call still running when the hold ends is waited for", func(t *testing.T) {
		w, _ := speculativeWorld(t, nil)
		w.svc.transcribeDelay = 1500 * time.Millisecond
		w.askInTurnOne(t, func() { w.mic.say(corpus.question, 1) })
		w.checkChatAfterTheQuestion("What is the capital of France")
		if !w.usedSpeculation(1) || w.svc.transcribed != 1 {
			t.Errorf("%d transcriptions, speculative transcript used %v; want the one call waited for", w.svc.transcribed, w.usedSpeculation(1))
		}
		// Sent SpeculateAfter into the silence, it answered 1.5 s later: that, less the hold left,
		// after the hold of 900 ms ended (850 ms for a call sent at 250 ms).
		sent, _ := w.event(1, voice.TraceTranscribeSent, -1)
		done, _ := w.event(1, voice.TraceTranscribeDone, -1)
		want := 1500*time.Millisecond - (900*time.Millisecond - voice.SpeculateAfter)
		if d := done.Sub(sent); d < want-50*time.Millisecond || d > want+50*time.Millisecond {
			t.Errorf("the transcript came %v after the hold ended, want %v (1.5 s less the hold left)", d, want)
		}
	})
}

// A person who pauses again and again gets at most MaxSpeculations speculative calls in the
// turn; the question is then transcribed once when it ends.
func TestSpeculation_CapHolds(t *testing.T) {
	w, _ := speculativeWorld(t, func(c *voice.Config) { c.Hold = 1200 * time.Millisecond })
	w.svc.transcribeDelay = 100 * time.Millisecond
	gaps := []time.Duration{500 * time.Millisecond, 600 * time.Millisecond, 500 * time.Millisecond, 700 * time.Millisecond}
	w.askInTurnOne(t, func() { w.sayWithPauses(gaps...) })
	whole := strings.Repeat(questionParts[0]+" "+questionParts[1]+" ", 2) + questionParts[0]
	w.checkChatAfterTheQuestion(whole)
	if k := w.kinds(1); k[voice.TraceSpecSent] != voice.MaxSpeculations {
		t.Errorf("%d speculative calls for 5 pauses (4 inside, 1 at the end), want the cap, %d", k[voice.TraceSpecSent], voice.MaxSpeculations)
	}
	if w.usedSpeculation(1) || w.svc.transcribed != voice.MaxSpeculations+1 {
		t.Errorf("%d transcriptions, speculative transcript used %v; want the cap and one for the whole take", w.svc.transcribed, w.usedSpeculation(1))
	}
}

// With the adaptive end of turn, a question whose transcript reads as complete ends after
// 0.5 s of silence; one that ends on "and" is waited for past the fixed hold; with no
// transcript in hand, the fixed hold ends it.
func TestAdaptiveHold(t *testing.T) {
	holdOf := func(w *world) time.Duration {
		end, _ := w.event(1, voice.TraceSpeechEnd, -1)
		sent, _ := w.event(1, voice.TraceTranscribeSent, -1)
		return sent.Sub(end)
	}
	adaptive := func(c *voice.Config) { c.AdaptiveHold = true }
	t.Run("complete: ends after half a second", func(t *testing.T) {
		w, _ := speculativeWorld(t, adaptive)
		w.svc.transcribeDelay = 150 * time.Millisecond
		w.askInTurnOne(t, func() { w.mic.say(corpus.question, 1) })
		w.checkChatAfterTheQuestion("What is the capital of France")
		if h := holdOf(w); h < voice.CompleteHold || h > voice.CompleteHold+60*time.Millisecond {
			t.Errorf("the question ended %v after its speech, want %v", h, voice.CompleteHold)
		}
		if !w.usedSpeculation(1) || w.svc.transcribed != 1 {
			t.Errorf("%d transcriptions; want the speculative one used", w.svc.transcribed)
		}
	})
	t.Run("a trailing and: waits past the fixed hold", func(t *testing.T) {
		w, pt := speculativeWorld(t, adaptive)
		w.svc.transcribeDelay = 150 * time.Millisecond
		pt.last = func(n int) string {
			if n == 1 {
				return questionParts[0] + " and" // "What is the capital of France and"
			}
			return questionParts[1]
		}
		w.askInTurnOne(t, func() { w.sayWithPauses(1200 * time.Millisecond) }) // longer than the 0.9 s hold
		w.checkChatAfterTheQuestion("What is the capital of France and how far away is it")
		if h := holdOf(w); h < voice.CompleteHold || h > voice.CompleteHold+60*time.Millisecond {
			t.Errorf("the whole question ended %v after its speech, want %v (it reads as complete)", h, voice.CompleteHold)
		}
	})
	t.Run("no transcript in hand: the fixed hold", func(t *testing.T) {
		w, _ := speculativeWorld(t, adaptive)
		w.svc.transcribeDelay = 2 * time.Second
		w.askInTurnOne(t, func() { w.mic.say(corpus.question, 1) })
		w.checkChatAfterTheQuestion("What is the capital of France")
		if h := holdOf(w); h < 900*time.Millisecond || h > 960*time.Millisecond {
			t.Errorf("the question ended %v after its speech, want the fixed hold, 900ms", h)
		}
	})
}

func TestTranscriptEnding(t *testing.T) {
	cases := map[string]voice.Ending{
		"":                                  voice.EndingUnknown,
		"[noise]":                           voice.EndingUnknown,
		"um":                                voice.EndingUnknown,
		"what is the capital of france":     voice.EndingComplete,
		"What is the capital of France?":    voice.EndingComplete,
		"what is the capital of france and": voice.EndingContinues,
		"tell me about the":                 voice.EndingContinues,
		"I want to":                         voice.EndingContinues,
		"is it far but":                     voice.EndingContinues,
		"so":                                voice.EndingContinues,
		"because":                           voice.EndingContinues,
		"what is the weather like um":       voice.EndingContinues,
		"what is the weather like in paris um [noise]": voice.EndingContinues,
		"what's the time in tokyo":                     voice.EndingComplete,
		"What is the time in Tokyo, and":               voice.EndingContinues,
		"What about London,":                           voice.EndingContinues,
		"and then...":                                  voice.EndingContinues,
		"Who did you talk to?":                         voice.EndingComplete,
		"Tell me about Rome.":                          voice.EndingComplete,
		"WHAT IS THE":                                  voice.EndingContinues,
		"what is the capital of France And":            voice.EndingContinues,
		"it’s":                                         voice.EndingContinues,
	}
	for text, want := range cases {
		if got := voice.TranscriptEnding(text); got != want {
			t.Errorf("TranscriptEnding(%q) = %v, want %v", text, got, want)
		}
	}
}

func FuzzTranscriptEnding(f *testing.F) {
	for _, s := range []string{"", "what is the capital of france and", "Tell me about Rome.", "um", "[noise] so", "'", "’", "...", "a,", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		e := voice.TranscriptEnding(text)
		if voice.IsNoise(text) && e != voice.EndingUnknown {
			t.Errorf("TranscriptEnding(%q) = %v for noise", text, e)
		}
		if e != voice.TranscriptEnding(text) {
			t.Errorf("TranscriptEnding(%q) changes", text)
		}
	})
}
