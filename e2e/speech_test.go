package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"parley/internal/testenv"
)

// theQuestion is what the spoken tests ask: spokenWords counts how much of it a transcript holds.
const theQuestion = "what is the weather like in paris today"

// say writes text spoken by flite's slt voice (16 kHz mono) to a WAV file in dir and returns its
// path. pocketsphinx hears flite almost word for word, where it heard little of espeak-ng.
func say(t testing.TB, dir, name, text string) string {
	t.Helper()
	wav := filepath.Join(dir, name+".wav")
	if out, err := exec.Command("flite", "-voice", "slt", "-t", text, "-o", wav).CombinedOutput(); err != nil {
		t.Fatalf("flite: %v: %s", err, out)
	}
	return wav
}

// quietRoom plays low white noise into the sink for two minutes, or until the test ends: the
// monitor of an idle null sink delivers exact zeros, which no real microphone does.
func quietRoom(t testing.TB, p *testenv.Pulse, dir string) {
	t.Helper()
	bed := filepath.Join(dir, "bed.wav")
	if out, err := exec.Command("sox", "-n", "-r", "16000", "-c", "1", "-b", "16", bed, "synth", "60", "whitenoise", "vol", "0.003").CombinedOutput(); err != nil {
		t.Fatalf("sox: %v: %s", err, out)
	}
	// Played again and again until the test ends: a room does not fall silent after a minute
	// (a bed that ended made the monitor deliver digital silence, which the loop reports as a
	// muted microphone, in the middle of a long test on a busy machine).
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	first := exec.CommandContext(ctx, "paplay", "--device="+p.Sink, bed)
	if err := first.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	go func() {
		defer close(done)
		play := first
		for {
			play.Wait()
			if ctx.Err() != nil {
				return
			}
			play = exec.CommandContext(ctx, "paplay", "--device="+p.Sink, bed)
			if play.Start() != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
}

// playInto plays a WAV file into the sink and waits for it to end.
func playInto(t testing.TB, p *testenv.Pulse, wav string) {
	t.Helper()
	if out, err := exec.CommandContext(t.Context(), "paplay", "--device="+p.Sink, wav).CombinedOutput(); err != nil {
		t.Fatalf("paplay: %v: %s", err, out)
	}
}

// recordSink records what is played into the sink from now on (its monitor, 16 kHz mono S16LE)
// to path, and returns a stop that ends the recording; stop may be called more than once, and
// is called when the test ends.
func recordSink(t *testing.T, p *testenv.Pulse, path string) (stop func()) {
	t.Helper()
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	rec := exec.Command("parec", "--device="+p.Monitor, "--format=s16le", "--rate=16000", "--channels=1")
	rec.Env = append(os.Environ(), p.Env...)
	rec.Stdout = out
	if err := rec.Start(); err != nil {
		out.Close()
		t.Fatalf("parec: %v", err)
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			rec.Process.Signal(os.Interrupt)
			rec.Wait()
			out.Close()
		})
	}
	t.Cleanup(stop)
	return stop
}
