//go:build linux && cgo

package speech

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"parley/internal/testenv"
)

// requireInProcessFlite returns the built-in synthesiser with flite's voices spoken in this
// process, skipping the test (or failing it under CI=true) where libflite, its voices or
// libmp3lame do not load.
func requireInProcessFlite(t testing.TB) *localSynth {
	t.Helper()
	testenv.RequireCommands(t, "flite")
	tts := NewBuiltIn(t.Context(), BuiltInOptions{}).(*localSynth)
	_, err := theLibFlite.voice(t.Context(), "slt")
	if err == nil && len(tts.voices) > 0 && tts.voices[0].inProcess != nil {
		return tts
	}
	msg := "this test needs libflite1 and libmp3lame0 (%v); run `make test` (it installs flite and lame, which bring them)"
	if testenv.InCI() {
		t.Fatalf(msg, err)
	}
	t.Skipf(msg, err)
	return nil
}

// registered reports whether flite's voice id is registered in this process.
func registered(t *testing.T, id string) bool {
	t.Helper()
	if err := theLibFlite.lock.acquire(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer theLibFlite.lock.release()
	_, ok := theLibFlite.voices[id]
	return ok
}

// TestBuiltIn_InProcessSaysTheSameWords: flite's voice spoken in this process is heard as the
// same words as flite's program speaking the same text, and lasts about as long.
func TestBuiltIn_InProcessSaysTheSameWords(t *testing.T) {
	lib := requireInProcessFlite(t)
	testenv.RequireCommands(t, "lame")
	requireLibrary(t)
	prog := NewBuiltIn(t.Context(), BuiltInOptions{Program: true}).(*localSynth)
	if prog.voices[0].inProcess != nil {
		t.Fatal("Program: true still speaks in process")
	}
	stt := NewPocketSphinx(PocketSphinxOptions{})
	for _, text := range []string{weather, "what time is it in new york", "play some music in the kitchen"} {
		var words [2]string
		var took [2]time.Duration
		for i, tts := range []*localSynth{lib, prog} {
			b, err := tts.Synthesize(t.Context(), text, "flite-slt")
			if err != nil {
				t.Fatalf("%q: %v", text, err)
			}
			if took[i], err = decodeMP3(b); err != nil {
				t.Fatalf("%q: decode: %v", text, err)
			}
			tr, err := stt.Transcribe(t.Context(), b, "audio/mpeg")
			if err != nil {
				t.Fatalf("%q: transcribe: %v", text, err)
			}
			words[i] = tr.Text
		}
		if n, want := heard(words[0], text), heard(words[1], text); n < want-1 {
			t.Errorf("%q: in process heard as %q (%d words right), the program's as %q (%d)", text, words[0], n, words[1], want)
		}
		if d := took[0] - took[1]; d < -took[1]/5 || d > took[1]/5 {
			t.Errorf("%q: in process lasts %v, the program's %v", text, took[0], took[1])
		}
	}
}

// TestBuiltIn_InProcessVoices: each of flite's voices speaks in process, MP3 out, with text that
// is not English, starts with a dash, or holds control characters.
func TestBuiltIn_InProcessVoices(t *testing.T) {
	tts := requireInProcessFlite(t)
	for _, v := range tts.voices {
		if !strings.HasPrefix(v.Name, "flite-") {
			continue
		}
		if v.inProcess == nil {
			t.Errorf("%s is not spoken in process", v.Name)
			continue
		}
		id := strings.TrimPrefix(v.Name, "flite-")
		loaded := registered(t, id)
		for _, text := range []string{"Hello there.", "-voice kal -o /tmp/x", "Grüße aus 東京, naïve café.", "tab\tbell\a nul-free \x1b[31m"} {
			b, err := tts.Synthesize(t.Context(), text, v.Name)
			if err != nil {
				t.Fatalf("%s, %q: %v", v.Name, text, err)
			}
			checkSpokenMP3(t, b, 0, v.Name)
		}
		now := registered(t, id)
		if !now {
			t.Errorf("%s was not registered in process: the program spoke", v.Name)
		} else if loaded {
			t.Logf("%s was already registered before this test", v.Name)
		}
	}
	// A text too long to speak in process is spoken by the program.
	long := strings.Repeat("A sentence of some length. ", maxInProcessRunes/20)
	b, err := tts.Synthesize(t.Context(), long, "")
	if err != nil {
		t.Fatal(err)
	}
	checkSpokenMP3(t, b, 0, "flite's program")

	// flite's program at 8000 Hz too: resampled for an MP3 that Parley's player can decode.
	b, err = NewBuiltIn(t.Context(), BuiltInOptions{Program: true}).Synthesize(t.Context(), weather, "flite-kal")
	if err != nil {
		t.Fatal(err)
	}
	checkSpokenMP3(t, b, 0, "flite-kal's program")
}

// TestBuiltIn_InProcessCancelled: a cancelled request returns at once with the context's error.
func TestBuiltIn_InProcessCancelled(t *testing.T) {
	tts := requireInProcessFlite(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := tts.Synthesize(ctx, weather, ""); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	// A timeout shorter than the synthesis: an upstream error, and the next call still works.
	short := *tts
	short.timeout = time.Microsecond
	long := strings.Repeat("Long enough to take a while. ", 10)
	var up *UpstreamError
	if _, err := short.Synthesize(t.Context(), long, ""); !errors.As(err, &up) {
		t.Errorf("err = %v, want *UpstreamError", err)
	}
	if b, err := tts.Synthesize(t.Context(), "still here", ""); err != nil || len(b) == 0 {
		t.Errorf("after a timeout: %d bytes, %v", len(b), err)
	}
}

// FuzzInProcessFlite: any text within the limits is spoken in process without a crash, and
// gives MP3 or an error.
func FuzzInProcessFlite(f *testing.F) {
	for _, s := range []string{"hello", "3.14159 $5 10:30pm 1/2", "((((", "Mr. Dr. St. e.g. i.e.", "\u200b\u202e", strings.Repeat("a", 300), "x\x00y"} {
		f.Add(s)
	}
	tts := requireInProcessFlite(f)
	f.Fuzz(func(t *testing.T, text string) {
		if utf8.RuneCountInString(text) > maxInProcessRunes {
			return // spoken by the program
		}
		b, err := tts.Synthesize(t.Context(), text, "")
		if err == nil && len(b) == 0 {
			t.Fatalf("%q: no error and no audio", text)
		}
	})
}

// TestBuiltIn_ProgramsSpeakWhereTheLibrariesDoNot: a voice whose libraries do not load in
// process is spoken by flite's program and lame instead.
func TestBuiltIn_ProgramsSpeakWhereTheLibrariesDoNot(t *testing.T) {
	testenv.RequireCommands(t, "flite", "lame")
	tts := NewBuiltIn(t.Context(), BuiltInOptions{}).(*localSynth)
	if !strings.HasPrefix(tts.voices[0].Name, "flite-") {
		t.Fatalf("default voice %s, want one of flite's", tts.voices[0].Name)
	}
	calls := 0
	tts.voices[0].inProcess = func(context.Context, string) ([]byte, error) {
		calls++
		return nil, fmt.Errorf("%w: libflite.so.1: cannot open shared object file", errNoSynthLibrary)
	}
	b, err := tts.Synthesize(t.Context(), weather, "")
	if err != nil {
		t.Fatal(err)
	}
	checkSpokenMP3(t, b, 0, "flite's program")
	if calls != 1 {
		t.Errorf("the in-process synthesiser was tried %d times, want 1", calls)
	}
}

// TestBuiltIn_WaitingForFliteHoldsNothing: a call waiting for flite's library (busy with
// another) gives up when its context ends, and while it waits the programs still speak.
func TestBuiltIn_WaitingForFliteHoldsNothing(t *testing.T) {
	tts := requireInProcessFlite(t)
	testenv.RequireCommands(t, "espeak-ng", "lame")
	if err := theLibFlite.lock.acquire(t.Context()); err != nil { // flite is busy
		t.Fatal(err)
	}
	released := false
	release := func() {
		if !released {
			released = true
			theLibFlite.lock.release()
		}
	}
	defer release()
	waiting := make(chan error, runtime.NumCPU())
	ctx, cancel := context.WithCancel(t.Context())
	for range cap(waiting) { // as many as the programs' slots
		go func() {
			_, err := tts.Synthesize(ctx, weather, "flite-slt")
			waiting <- err
		}()
	}
	b, err := tts.Synthesize(t.Context(), weather, "en-us")
	if err != nil {
		t.Fatalf("espeak-ng while flite's callers wait: %v", err)
	}
	checkSpokenMP3(t, b, 0, "espeak-ng")
	cancel()
	for range cap(waiting) {
		if err := <-waiting; !errors.Is(err, context.Canceled) {
			t.Errorf("a waiting call cancelled: %v, want context.Canceled", err)
		}
	}
	release()
	if b, err := tts.Synthesize(t.Context(), weather, "flite-slt"); err != nil {
		t.Errorf("flite once free: %v", err)
	} else {
		checkSpokenMP3(t, b, 0, "flite-slt")
	}
}
