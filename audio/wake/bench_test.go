package wake

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"parley/audio/vad/vadtest"
	"parley/media"
)

// The figures of README's "Wake word" rows. BenchmarkSpotter_Detection says how many of the
// corpus's wake phrases (every voice, condition and question) are heard; the false wakes are
// counted on other speech: many sentences of license texts in every voice, between bursts of
// noise, for PARLEY_WAKE_OTHER_MINUTES minutes (default 10; README's figure is 120). CPU is
// the decoder's time over the audio's. PARLEY_WAKE_THRESHOLD overrides the threshold of the
// phrase (PARLEY_WAKE_PHRASE, default "hey parley"; "stop" and "cancel" too), to choose it.
//
//	go test -run '^$' -bench Spotter -benchtime 1x ./audio/wake

func benchPhrase(b *testing.B) Phrase {
	text := os.Getenv("PARLEY_WAKE_PHRASE")
	if text == "" {
		text = DefaultWakePhrase
	}
	p, ok := LookupWake(text)
	if i := slices.IndexFunc(StopPhrases, func(p Phrase) bool { return p.Text == text }); i >= 0 {
		p, ok = StopPhrases[i], true
	}
	if !ok {
		b.Fatalf("%q is neither a wake phrase offered nor a stop word", text)
	}
	if v := os.Getenv("PARLEY_WAKE_THRESHOLD"); v != "" {
		th, err := strconv.ParseFloat(v, 64)
		if err != nil {
			b.Fatal(err)
		}
		p.Threshold = th
	}
	return p
}

func BenchmarkSpotter_Detection(b *testing.B) {
	requireSpotter(b)
	p := benchPhrase(b)
	dir := b.TempDir()
	s := newSpotter(b, []Phrase{p})
	var takes []media.PCM
	var names []string
	for _, v := range voices {
		for _, c := range conditions {
			for _, q := range questions {
				lead := strings.ToUpper(p.Text[:1]) + p.Text[1:]
				takes = append(takes, say(b, dir, v, c, lead+", "+q+"."))
				names = append(names, v+"/"+c)
			}
		}
	}
	b.ResetTimer()
	for range b.N {
		heard := 0
		missed := map[string]int{}
		var audioTime time.Duration
		start := time.Now()
		for i, pcm := range takes {
			if err := s.Reset(); err != nil {
				b.Fatal(err)
			}
			audioTime += pcm.Duration()
			if got := spot(b, s, pcm); len(got) == 1 {
				heard++
			} else {
				missed[names[i]]++
			}
		}
		b.ReportMetric(100*float64(heard)/float64(len(takes)), "%heard")
		b.ReportMetric(float64(len(takes)), "takes")
		b.ReportMetric(100*time.Since(start).Seconds()/audioTime.Seconds(), "%cpu")
		if len(missed) > 0 {
			b.Logf("%q at %g: missed %v", p.Text, p.Threshold, missed)
		}
	}
}

func BenchmarkSpotter_FalseWakes(b *testing.B) {
	requireSpotter(b)
	p := benchPhrase(b)
	minutes := 10.0
	if v := os.Getenv("PARLEY_WAKE_OTHER_MINUTES"); v != "" {
		var err error
		if minutes, err = strconv.ParseFloat(v, 64); err != nil {
			b.Fatal(err)
		}
	}
	dir := b.TempDir()
	sentences := licenseSentences(b)
	s := newSpotter(b, []Phrase{p})
	b.ResetTimer()
	for range b.N {
		var audioTime, cpu time.Duration
		wakes := 0
		for i := 0; audioTime.Minutes() < minutes; i++ {
			v := voices[i%len(voices)]
			c := conditions[(i/len(voices))%len(conditions)]
			pcm := say(b, dir, v, c, sentences[i%len(sentences)])
			if i%7 == 6 {
				// A burst of noise between sentences, as a door or a fan.
				n := vadtest.Read(b, vadtest.Noise(b, dir, fmt.Sprint("burst", i), 700*time.Millisecond, 0.3))
				pcm.Samples = append(n.Samples, pcm.Samples...)
			}
			audioTime += pcm.Duration()
			start := time.Now()
			got := spot(b, s, pcm)
			cpu += time.Since(start)
			for _, w := range got {
				wakes++
				b.Logf("false wake %q: %s (%s) said %q", w, v, c, sentences[i%len(sentences)])
			}
		}
		b.ReportMetric(float64(wakes)/audioTime.Hours(), "wakes/hour")
		b.ReportMetric(audioTime.Minutes(), "minutes")
		b.ReportMetric(100*cpu.Seconds()/audioTime.Seconds(), "%cpu")
	}
}

// BenchmarkSpotter_Idle is the CPU the spotter takes while nothing is said: a quiet room's
// noise floor, and a fan.
func BenchmarkSpotter_Idle(b *testing.B) {
	requireSpotter(b)
	dir := b.TempDir()
	s := newSpotter(b, WakePhrases[:1])
	quiet := vadtest.Read(b, vadtest.Noise(b, dir, "quiet", time.Minute, 0.001))
	fan := vadtest.Read(b, vadtest.Noise(b, dir, "fan", time.Minute, 0.03))
	b.ResetTimer()
	for range b.N {
		for _, c := range []struct {
			name string
			pcm  media.PCM
		}{{"quiet", quiet}, {"fan", fan}} {
			start := time.Now()
			spot(b, s, c.pcm)
			b.ReportMetric(100*time.Since(start).Seconds()/c.pcm.Duration().Seconds(), "%cpu-"+c.name)
		}
	}
}

// licenseSentences are the sentences of the GPL's text, which Debian installs on every system.
func licenseSentences(b *testing.B) []string {
	var out []string
	for _, f := range []string{"GPL-3", "Apache-2.0", "MPL-2.0", "LGPL-3"} {
		data, err := os.ReadFile(filepath.Join("/usr/share/common-licenses", f))
		if err != nil {
			continue
		}
		text := strings.Join(strings.Fields(strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == ',' || r == '.' || r == ' ' || r == '\n' {
				return r
			}
			return ' '
		}, string(data))), " ")
		for _, s := range strings.Split(text, ". ") {
			if len(s) > 30 && len(s) < 250 {
				out = append(out, s+".")
			}
		}
	}
	if len(out) == 0 {
		b.Skip("no license texts in /usr/share/common-licenses to speak")
	}
	return out
}
