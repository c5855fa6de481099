package audio_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"parley/audio"
	"parley/media"
)

// nullRecorder records from miniaudio's null backend, which delivers zeros in real time.
func nullRecorder() *audio.Recorder { return audio.NewRecorder(audio.BackendNull) }

func near(got, want, tol time.Duration) bool { return (got - want).Abs() <= tol }

func TestRecord_NullMaxDuration(t *testing.T) {
	levels := make(chan audio.Level, 100)
	take, err := nullRecorder().Record(t.Context(), audio.TakeOptions{MaxDuration: time.Second, Levels: levels})
	if err != nil {
		t.Fatal(err)
	}
	if take.Reason != audio.StopMaxDuration || !near(take.Duration, time.Second, 40*time.Millisecond) {
		t.Errorf("take of %v ended by %v, want 1s ended by the time limit", take.Duration, take.Reason)
	}
	if take.Speech || !take.Empty() {
		t.Error("a take of zeros is marked as holding speech")
	}
	for i, s := range take.PCM.Samples {
		if s != 0 {
			t.Fatalf("sample %d is %d, want silence", i, s)
		}
	}
	if take.MIME != "audio/webm" {
		t.Errorf("MIME %q", take.MIME)
	}
	dec, err := media.Decode(take.Audio)
	if err != nil {
		t.Fatalf("the take's WebM does not decode: %v", err)
	}
	if !near(dec.Duration(), take.Duration, 25*time.Millisecond) {
		t.Errorf("decoded %v, take says %v", dec.Duration(), take.Duration)
	}
	close(levels)
	n := 0
	for l := range levels {
		n++
		if l.RMS != -120 || l.Peak != -120 {
			t.Errorf("level of silence %+v, want -120 dBFS", l)
		}
	}
	if n < 15 || n > 31 {
		t.Errorf("%d level readings in 1 s, want about 25 (at most 30)", n)
	}
}

func TestRecord_NullSilentDevice(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	take, err := nullRecorder().Record(ctx, audio.TakeOptions{})
	if !errors.Is(err, audio.ErrSilentDevice) {
		t.Fatalf("err = %v, want ErrSilentDevice", err)
	}
	if take == nil || take.Reason != audio.StopSilentDevice || !errors.Is(take.Err, audio.ErrSilentDevice) {
		t.Fatalf("take %+v, want one stopped as a silent device", take)
	}
	if !near(take.Duration, 2*time.Second, 60*time.Millisecond) {
		t.Errorf("silent device reported after %v, want 2s", take.Duration)
	}
}

func TestRecord_CancelKeepsAudio(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	levels := make(chan audio.Level, 1)
	var cancelled time.Time
	go func() {
		for l := range levels {
			if l.At >= 300*time.Millisecond {
				cancelled = time.Now()
				cancel()
				return
			}
		}
	}()
	take, err := nullRecorder().Record(ctx, audio.TakeOptions{Levels: levels})
	returned := time.Now()
	close(levels)
	if err != nil {
		t.Fatal(err)
	}
	if take.Reason != audio.StopCancelled {
		t.Errorf("reason %v, want cancelled", take.Reason)
	}
	if take.Duration < 280*time.Millisecond || len(take.Audio) == 0 {
		t.Errorf("take of %v (%d bytes) after cancelling at 300ms: the audio was not kept", take.Duration, len(take.Audio))
	}
	if d := returned.Sub(cancelled); d > 500*time.Millisecond {
		t.Errorf("Record returned %v after the cancel", d)
	}
}

func TestRecorder_Stop(t *testing.T) {
	r := nullRecorder()
	r.Stop() // no take: nothing happens
	levels := make(chan audio.Level, 1)
	go func() {
		for l := range levels {
			if l.At >= 200*time.Millisecond {
				r.Stop()
				r.Stop()
			}
		}
	}()
	take, err := r.Record(t.Context(), audio.TakeOptions{Levels: levels, Encoding: audio.EncodingWAV})
	close(levels)
	if err != nil {
		t.Fatal(err)
	}
	if take.Reason != audio.StopCaller || take.Duration < 180*time.Millisecond || take.Duration > time.Second {
		t.Errorf("take of %v ended by %v, want about 200ms ended by Stop", take.Duration, take.Reason)
	}
	if take.MIME != "audio/wav" || len(take.Audio) != 44+2*len(take.PCM.Samples) {
		t.Errorf("WAV take: MIME %q, %d bytes for %d samples", take.MIME, len(take.Audio), len(take.PCM.Samples))
	}
}

func TestRecorder_Busy(t *testing.T) {
	r := nullRecorder()
	levels := make(chan audio.Level, 1)
	done := make(chan error, 1)
	go func() {
		_, err := r.Record(t.Context(), audio.TakeOptions{Levels: levels})
		done <- err
	}()
	<-levels // recording
	if _, err := r.Record(t.Context(), audio.TakeOptions{}); !errors.Is(err, audio.ErrBusy) {
		t.Errorf("second Record: %v, want ErrBusy", err)
	}
	r.Stop()
	if err := <-done; err != nil {
		t.Error(err)
	}
}

func TestRecord_UnknownDevice(t *testing.T) {
	take, err := nullRecorder().Record(t.Context(), audio.TakeOptions{Device: "no such microphone"})
	if !errors.Is(err, audio.ErrNoDevice) || take != nil {
		t.Fatalf("got %v, %v; want ErrNoDevice and no take", take, err)
	}
	t.Log(err)
}

func TestRecord_NamedNullDevice(t *testing.T) {
	devs, err := audio.BackendNull.Inputs(t.Context())
	if err != nil || len(devs) == 0 {
		t.Fatalf("null backend inputs: %v, %v", devs, err)
	}
	take, err := nullRecorder().Record(t.Context(), audio.TakeOptions{Device: "null capture", MaxDuration: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if take.Reason != audio.StopMaxDuration {
		t.Errorf("reason %v", take.Reason)
	}
}
