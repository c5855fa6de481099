package wake

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"parley/audio"
	"parley/audio/speexdsp"
	"parley/audio/vad"
	"parley/audio/vad/vadtest"
)

func newSpotter(t testing.TB, phrases []Phrase) *Spotter {
	t.Helper()
	s, err := New(phrases)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func TestSpotter_HearsTheWakePhraseInEveryVoice(t *testing.T) {
	requireSpotter(t)
	dir := t.TempDir()
	s := newSpotter(t, WakePhrases[:1])
	// The voices and conditions BenchmarkSpotter_Detection hears every phrase of at the chosen
	// threshold (the README gives the others' figures).
	for _, v := range []string{"slt", "awb", "rms", "kal16"} {
		for _, c := range []string{"quiet", "room"} {
			pcm := say(t, dir, v, c, "Hey Parley, what time is it in Tokyo?")
			if err := s.Reset(); err != nil {
				t.Fatal(err)
			}
			if got := spot(t, s, pcm); !slices.Equal(got, []string{"hey parley"}) {
				t.Errorf("%s, %s: heard %q, want the wake phrase once", v, c, got)
			}
		}
	}
}

// Words that sound like a wake phrase wake it too ("they parley", "hey, Charlie", and "The
// parliament…" in some takes: the README lists them). These sentences do not.
func TestSpotter_OtherSpeechDoesNotWake(t *testing.T) {
	requireSpotter(t)
	dir := t.TempDir()
	sentences := []string{
		"What is the weather like in Paris today?",
		"Remind me to call my mother tomorrow morning.",
		"Can you read me the news headlines from this morning?",
		"Please turn the heating down a little before you go to bed.",
		"I think the train leaves at half past seven from platform two.",
	}
	// A spotter listens for the one phrase chosen, as voice mode's does.
	for _, p := range WakePhrases {
		s := newSpotter(t, []Phrase{p})
		for _, v := range []string{"slt", "rms", "espeak:en-us"} {
			for _, text := range sentences {
				if got := spot(t, s, say(t, dir, v, "quiet", text)); len(got) > 0 {
					t.Errorf("%s said %q: heard %q, want nothing", v, text, got)
				}
			}
		}
	}
}

func TestSpotter_PhraseInsideSpeechIsNotAWake(t *testing.T) {
	requireSpotter(t)
	dir := t.TempDir()
	s := newSpotter(t, WakePhrases[:1])
	// The phrase said after a pause wakes; the same words in the middle of a sentence do not.
	alone := say(t, dir, "slt", "quiet", "Hey Parley, turn off the lights.")
	inside := say(t, dir, "slt", "quiet", "and then my friend said to me hey parley turn off the lights")
	if got := spot(t, s, alone); len(got) != 1 {
		t.Fatalf("the phrase alone: heard %q, want it once", got)
	}
	if err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	if got := spot(t, s, inside); len(got) != 0 {
		t.Errorf("the phrase inside a sentence: heard %q, want nothing", got)
	}
}

func TestSpotter_StopWords(t *testing.T) {
	requireSpotter(t)
	dir := t.TempDir()
	s := newSpotter(t, StopPhrases)
	// flite's awb is not heard saying "stop" at any threshold that leaves other speech alone.
	for _, v := range []string{"slt", "rms", "kal16"} {
		for _, w := range []string{"stop", "cancel"} {
			if err := s.Reset(); err != nil {
				t.Fatal(err)
			}
			if got := spot(t, s, say(t, dir, v, "quiet", w+".")); !slices.Equal(got, []string{w}) {
				t.Errorf("%s said %q: heard %q", v, w, got)
			}
		}
	}
	if got := spot(t, s, say(t, dir, "slt", "quiet", "The bus will not stop here; you can cancel your ticket online.")); len(got) != 0 {
		t.Errorf("the words inside a sentence: heard %q, want nothing", got)
	}
}

// The decoder hears the microphone with its steady noise brought down, and the levels that say
// whether a phrase follows a pause are the microphone's own; Reset learns the noise again.
func TestSpotter_HearsTheNoiseBroughtDown(t *testing.T) {
	requireSpotter(t)
	if err := speexdsp.Load(); err != nil {
		t.Skipf("SpeexDSP is not installed, and the spotter hears the microphone as it is: %v", err)
	}
	s := newSpotter(t, WakePhrases[:1])
	noise := vadtest.Read(t, vadtest.Noise(t, t.TempDir(), "fan", 3*time.Second, 0.03))
	var in, out float64
	for off := 0; off+audio.FrameSamples <= len(noise.Samples); off += audio.FrameSamples {
		frame := noise.Samples[off : off+audio.FrameSamples]
		before := slices.Clone(frame)
		heard := s.suppress(frame)
		if !slices.Equal(frame, before) {
			t.Fatal("suppress changed the microphone's frame")
		}
		if off >= len(noise.Samples)/2 { // once the noise is learned
			in += vad.FrameDBFS(frame)
			out += vad.FrameDBFS(heard)
		}
	}
	if d := in - out; d < 3*float64(len(noise.Samples)/2/audio.FrameSamples) {
		t.Errorf("the noise came down %.1f dB a frame, want about %d", d/float64(len(noise.Samples)/2/audio.FrameSamples), suppressDB)
	}
	learned := s.pre
	if err := s.Reset(); err != nil {
		t.Fatal(err)
	}
	if s.pre == learned {
		t.Error("Reset kept the suppressor: the noise learned before a turn would be used after it")
	}
}

func TestNew_WordNotInTheDictionary(t *testing.T) {
	requireSpotter(t)
	_, err := New([]Phrase{{"hey zqxjvw", 1e-20, time.Second, 0}})
	if err == nil || !strings.Contains(err.Error(), `"zqxjvw" is not in the PocketSphinx dictionary`) {
		t.Errorf("New with an unknown word: %v", err)
	}
	if _, err := New(nil); err == nil {
		t.Error("New with no phrase: no error")
	}
}

func TestLookupWake(t *testing.T) {
	if p, ok := LookupWake("  Hey   PARLEY "); !ok || p.Text != "hey parley" {
		t.Errorf("LookupWake: %v %v", p, ok)
	}
	if _, ok := LookupWake("hey siri"); ok {
		t.Error("LookupWake found a phrase not offered")
	}
	if WakePhrases[0].Text != DefaultWakePhrase {
		t.Errorf("the default wake phrase %q is not the first offered", DefaultWakePhrase)
	}
}

// levels builds a spotter's level history without a decoder: db for each frame in turn.
func levels(db ...float64) *Spotter {
	s := &Spotter{}
	for _, v := range db {
		s.levels[s.n%history] = v
		s.n++
		if s.n == 1 || v < s.floor {
			s.floor = v
		}
	}
	return s
}

func repeat(v float64, n int) []float64 { return slices.Repeat([]float64{v}, n) }

func TestAfterPause(t *testing.T) {
	phrase := repeat(-20, 40) // 0.8 s of speech
	cases := []struct {
		name string
		db   []float64
		want bool
	}{
		{"after a pause", slices.Concat(repeat(-60, 30), phrase), true},
		{"after a short breath inside speech", slices.Concat(repeat(-20, 60), repeat(-60, 5), phrase), false},
		{"inside long speech", slices.Concat(repeat(-60, 10), repeat(-20, 100), phrase), false},
		{"at the start of what was heard", phrase, true},
		{"after a quieter voice far below", slices.Concat(repeat(-45, 30), phrase), true},
		{"too long to be the phrase", slices.Concat(repeat(-60, 30), repeat(-20, 90)), false},
	}
	for _, c := range cases {
		if got := levels(c.db...).afterPause(1400 * time.Millisecond); got != c.want {
			t.Errorf("%s: afterPause %v, want %v", c.name, got, c.want)
		}
	}
}

func TestAvailable_ReportsWhatToInstall(t *testing.T) {
	err := Available()
	if err == nil {
		return
	}
	if !strings.Contains(err.Error(), "install the") && !strings.Contains(err.Error(), "has no PocketSphinx") {
		t.Errorf("Available: %v does not say what to install", err)
	}
	if !errors.Is(err, ErrNoModel) && !strings.Contains(err.Error(), "libpocketsphinx") {
		t.Errorf("Available: %v", err)
	}
}
