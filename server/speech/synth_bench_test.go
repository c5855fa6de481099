package speech

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"parley/internal/testenv"
)

// firstSentences are what a reply's first sentence is like: a short one, and one of 12 words.
var firstSentences = []struct{ name, text string }{
	{"short", "Sure, here is the answer."},
	{"12words", "The weather in Paris today is mild, with light rain this evening."},
}

// reportLatency reports the median and 95th percentile of ds in milliseconds, as name-ms and
// name-p95-ms.
func reportLatency(b *testing.B, name string, ds []time.Duration) {
	b.Helper()
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(ds[len(ds)/2]), name+"-ms")
	b.ReportMetric(ms(ds[min(len(ds)-1, len(ds)*95/100)]), name+"-p95-ms")
}

// BenchmarkFirstSentence measures text → MP3 for a reply's first sentence on an idle service,
// per voice (flite-slt, the default, and espeak-ng's en-us) and sentence:
//
//   - synthesize: Synthesize as the service runs it: flite's voices in its own process (libflite
//     and libmp3lame), espeak-ng's through the program and lame started together;
//   - programs: Synthesize with BuiltInOptions.Program, flite's program and lame started
//     together (for espeak-ng, the same as synthesize);
//   - sequential: the speech program, then lame once it has finished, with lame's former flags
//     (-V 6 without -q 7), as the service ran them before;
//   - speak-only and lame-only: each program alone.
//
// Each iteration runs the five in turn; it reports each one's median and 95th percentile
// (synthesize-ms, synthesize-p95-ms, ...); ns/op is their sum. Run: go test -run '^$' -bench FirstSentence ./server/speech/
func BenchmarkFirstSentence(b *testing.B) {
	testenv.RequireCommands(b, "flite", "espeak-ng", "lame")
	tts := NewBuiltIn(b.Context(), BuiltInOptions{}).(*localSynth)
	progs := NewBuiltIn(b.Context(), BuiltInOptions{Program: true})
	dir := b.TempDir()
	for _, voice := range []string{"flite-slt", "en-us"} {
		v, ok := tts.voice(voice)
		if !ok {
			b.Fatalf("no voice %s", voice)
		}
		for _, s := range firstSentences {
			speak := func() []byte {
				argv, file := v.argv, ""
				if v.fileRate != 0 {
					file = filepath.Join(dir, "speech.wav")
					argv = append(slices.Clip(argv), file)
				}
				out, err := run(b.Context(), time.Minute, strings.NewReader(s.text), maxWAV, argv[0], argv[1:]...)
				if err != nil {
					b.Fatal(err)
				}
				if file != "" {
					if out, err = readWAV(file); err != nil {
						b.Fatal(err)
					}
				}
				return out
			}
			wav := speak()
			cases := []struct {
				name string
				op   func()
			}{
				{"synthesize", func() {
					if _, err := tts.Synthesize(b.Context(), s.text, voice); err != nil {
						b.Fatal(err)
					}
				}},
				{"programs", func() {
					if _, err := progs.Synthesize(b.Context(), s.text, voice); err != nil {
						b.Fatal(err)
					}
				}},
				{"sequential", func() {
					w := speak()
					if _, err := run(b.Context(), time.Minute, bytes.NewReader(w), maxMP3, tts.lame, "--quiet", "-m", "m", "-V", "6", "-", "-"); err != nil {
						b.Fatal(err)
					}
				}},
				{"speak-only", func() { speak() }},
				{"lame-only", func() {
					lame := lameArgv(tts.lame, 0)
					if _, err := run(b.Context(), time.Minute, bytes.NewReader(wav), maxMP3, lame[0], lame[1:]...); err != nil {
						b.Fatal(err)
					}
				}},
			}
			// The five are run in turn in each iteration, so that load from other programs on a
			// shared machine falls on all of them alike.
			b.Run(voice+"/"+s.name, func(b *testing.B) {
				ds := make([][]time.Duration, len(cases))
				for b.Loop() {
					for i, c := range cases {
						t0 := time.Now()
						c.op()
						ds[i] = append(ds[i], time.Since(t0))
					}
				}
				for i, c := range cases {
					reportLatency(b, c.name, ds[i])
				}
			})
		}
	}
}
