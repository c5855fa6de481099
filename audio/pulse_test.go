package audio_test

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"parley/audio"
	"parley/audio/vad/vadtest"
	"parley/internal/testenv"
	"parley/media"
)

// TestRecord_Pulse plays an espeak-ng utterance into a PulseAudio null sink with paplay while
// the recorder captures the sink's monitor through the PulseAudio backend: the real device
// path, with no sound card.
func TestRecord_Pulse(t *testing.T) {
	testenv.RequireCommands(t, "paplay")
	c := speechCase(t, "lead1s/snr30") // noise throughout: a monitor of a real sink is never all zeros
	p := testenv.StartPulse(t)
	t.Setenv(audio.BackendEnv, "pulse")

	devs, err := audio.InputDevices(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("inputs: %v", devs)

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	// A quiet noise bed plays throughout, as a room would: a monitor with nothing playing
	// delivers only zeros, which the recorder rightly reports as a silent device.
	bed := exec.CommandContext(ctx, "paplay", "--device="+p.Sink, vadtest.Noise(t, t.TempDir(), "bed", 25*time.Second, 0.003))
	if err := bed.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); bed.Wait() })

	levels := make(chan audio.Level, 1000)
	type result struct {
		take *audio.Take
		err  error
	}
	done := make(chan result, 1)
	go func() {
		take, err := audio.NewRecorder(audio.BackendFromEnv()).Record(ctx, audio.TakeOptions{
			Device: p.Monitor, VAD: true, MaxDuration: 20 * time.Second, Levels: levels,
		})
		done <- result{take, err}
	}()
	for l := range levels { // wait until the noise bed is heard
		if l.RMS > -90 {
			break
		}
	}
	play := exec.CommandContext(ctx, "paplay", "--device="+p.Sink, c.Path)
	if out, err := play.CombinedOutput(); err != nil {
		t.Fatalf("paplay: %v: %s", err, out)
	}
	res := <-done
	if res.err != nil {
		t.Fatal(res.err)
	}
	take := res.take
	t.Logf("take %v (%d bytes), speech %v–%v, skipped %v, reason %v", take.Duration, len(take.Audio), take.SpeechStart, take.SpeechEnd, take.Skipped, take.Reason)
	if !take.Speech || take.Reason != audio.StopEndOfSpeech {
		t.Fatalf("Speech=%v, reason %v: the played utterance was not heard", take.Speech, take.Reason)
	}
	speech := take.SpeechEnd - take.SpeechStart
	// The null sink sometimes loses the start of a stream on a loaded machine: ask for most of
	// the utterance, not all of it.
	if want := c.End - c.Start; speech < want/2 || speech > want+250*time.Millisecond {
		t.Errorf("heard %v of speech, played %v", speech, want)
	}
	if take.Dropped != 0 {
		t.Errorf("%v of captured audio was dropped", take.Dropped)
	}
	loud := 0
	for len(levels) > 0 {
		if l := <-levels; l.RMS > -35 {
			loud++
		}
	}
	if loud < 10 {
		t.Errorf("only %d level readings above -35 dBFS during the utterance", loud)
	}
	dec, err := media.Decode(take.Audio)
	if err != nil {
		t.Fatalf("the take's WebM does not decode: %v", err)
	}
	if !near(dec.Duration(), take.Duration, 25*time.Millisecond) {
		t.Errorf("decoded %v, take %v", dec.Duration(), take.Duration)
	}
}
