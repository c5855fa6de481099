package audio_test

import (
	"testing"
	"time"

	"parley/audio"
	"parley/audio/vad"
	"parley/audio/vad/vadtest"
	"parley/media"
)

// pausedQuestion is espeak speech in two parts with a pause of gap between them, after 0.5 s of
// silence and before 1.5 s of it.
func pausedQuestion(t testing.TB, gap time.Duration) media.PCM {
	t.Helper()
	vadtest.Require(t)
	dir := t.TempDir()
	a := vadtest.Say(t, dir, "a", "What is the weather like")
	b := vadtest.Say(t, dir, "b", "in Paris today?")
	return vadtest.Read(t, vadtest.Compose(t, dir, "q", 500*time.Millisecond, []string{a, b}, []time.Duration{gap}, 1500*time.Millisecond))
}

// A snapshot taken in a pause holds all the speech so far, decodes, and leaves the take going
// on: the take finished later still holds everything.
func TestTakeBuilder_SnapshotInAPause(t *testing.T) {
	p := pausedQuestion(t, 600*time.Millisecond)
	for _, enc := range []audio.Encoding{audio.EncodingWebMOpus, audio.EncodingWAV} {
		t.Run(enc.String(), func(t *testing.T) {
			tb, err := audio.NewTakeBuilder(audio.TakeOptions{VAD: true, Encoding: enc})
			if err != nil {
				t.Fatal(err)
			}
			var snap *audio.Take
			var maxPause time.Duration
			pauses := 0
			s := p.Samples
			var reason audio.StopReason
			stopped := false
			for len(s) > 0 && !stopped {
				n := min(len(s), audio.FrameSamples)
				before := tb.Pause()
				reason, stopped = tb.Feed(s[:n])
				s = s[n:]
				pause := tb.Pause()
				maxPause = max(maxPause, pause)
				if before > 0 && pause == 0 && !stopped {
					pauses++ // speech resumed after a pause
				}
				if snap == nil && pause >= 250*time.Millisecond {
					snap = tb.Snapshot()
				}
			}
			if !stopped || reason != audio.StopEndOfSpeech {
				t.Fatalf("the take did not end at the end of speech: %v %v", stopped, reason)
			}
			if pauses < 1 || maxPause < 500*time.Millisecond {
				t.Errorf("Pause never showed the 600 ms pause: %d resumptions, longest %v", pauses, maxPause)
			}
			if snap == nil || !snap.Speech || snap.Empty() {
				t.Fatal("no snapshot with speech in the pause")
			}
			take, err := tb.Finish(reason)
			if err != nil {
				t.Fatal(err)
			}
			if snap.SpeechEnd >= take.SpeechEnd || snap.SpeechStart != take.SpeechStart || snap.Skipped != take.Skipped {
				t.Errorf("snapshot speech %v–%v (skipped %v), take %v–%v (skipped %v): want the same start, an earlier end",
					snap.SpeechStart, snap.SpeechEnd, snap.Skipped, take.SpeechStart, take.SpeechEnd, take.Skipped)
			}
			got, err := media.Decode(snap.Audio)
			if err != nil {
				t.Fatalf("the snapshot does not decode: %v", err)
			}
			// All of the speech so far is in the audio sent; at most the frames waiting for
			// their block (40 ms) and the codec's delay are not.
			if d := got.Duration(); d < snap.SpeechEnd || d > snap.Duration || snap.Duration-d > 50*time.Millisecond {
				t.Errorf("the snapshot decodes to %v; its speech ends at %v, its PCM is %v", d, snap.SpeechEnd, snap.Duration)
			}
			whole, err := media.Decode(take.Audio)
			if err != nil {
				t.Fatal(err)
			}
			if whole.Duration() != take.Duration || take.Duration <= snap.Duration {
				t.Errorf("the finished take decodes to %v (PCM %v), the snapshot's PCM %v", whole.Duration(), take.Duration, snap.Duration)
			}
		})
	}
}

// BenchmarkTakeBuilder_Snapshot is the cost of a speculative transcription's audio: a snapshot
// of a 10 s take.
func BenchmarkTakeBuilder_Snapshot(b *testing.B) {
	vadtest.Require(b)
	dir := b.TempDir()
	s := vadtest.Read(b, vadtest.Say(b, dir, "long", "The weather in Paris today is mild, with a light breeze from the west "+
		"and a few clouds in the afternoon. Tomorrow will be warmer, so remember to take a hat."))
	for _, enc := range []audio.Encoding{audio.EncodingWebMOpus, audio.EncodingWAV} {
		b.Run(enc.String(), func(b *testing.B) {
			tb, err := audio.NewTakeBuilder(audio.TakeOptions{VAD: true, VADConfig: vad.Config{Hold: vad.MaxHold}, Encoding: enc})
			if err != nil {
				b.Fatal(err)
			}
			// 10 s of speech: the utterance over and over, with no pause long enough to end it.
			for i := 0; tb.Heard() < 10*time.Second; i = (i + audio.FrameSamples) % (len(s.Samples) - audio.FrameSamples) {
				if _, stop := tb.Feed(s.Samples[i : i+audio.FrameSamples]); stop {
					b.Fatal("the take ended")
				}
			}
			var snap *audio.Take
			for b.Loop() {
				snap = tb.Snapshot()
			}
			b.ReportMetric(snap.Duration.Seconds(), "take-s")
			b.ReportMetric(float64(len(snap.Audio)), "bytes")
		})
	}
}
