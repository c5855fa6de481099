package echo

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"parley/internal/testenv"
)

// speechLike is n samples of noise shaped into syllables (80–300 ms, with pauses of 50–400 ms),
// at about -20 dBFS while sounding: what the tracker and the filter need of speech.
func speechLike(seed uint64, n int) []int16 {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]int16, n)
	var lp float64
	for i := 0; i < n; {
		syl := int((0.08 + 0.22*r.Float64()) * SampleRate)
		amp := 0.05 + 0.15*r.Float64()
		for j := 0; j < syl && i < n; j, i = j+1, i+1 {
			env := math.Sin(math.Pi * float64(j) / float64(syl))
			lp = 0.6*lp + 0.4*r.NormFloat64() // a little low-pass, as a voice has
			out[i] = int16(max(-32767, min(32767, 32767*amp*env*lp)))
		}
		i += int((0.05 + 0.35*r.Float64()) * SampleRate)
	}
	return out
}

// roomOf is what a microphone hears of far in a room: delayed by delay, with a decaying
// reflection every few milliseconds for 150 ms, at gain dB.
func roomOf(far []int16, delay time.Duration, gain float64) []int16 {
	d := int(delay * SampleRate / time.Second)
	type tap struct {
		at int
		g  float64
	}
	taps := []tap{{0, 1}}
	r := rand.New(rand.NewPCG(7, 7))
	for at := 40; at < SampleRate*150/1000; at += 20 + r.IntN(60) {
		taps = append(taps, tap{at, (r.Float64() - 0.5) * math.Exp(-float64(at)/(SampleRate*0.05))})
	}
	g := math.Pow(10, gain/20)
	out := make([]int16, len(far))
	for i := range out {
		var y float64
		for _, t := range taps {
			if j := i - d - t.at; j >= 0 && j < len(far) {
				y += t.g * float64(far[j])
			}
		}
		out[i] = int16(max(-32767, min(32767, g*y)))
	}
	return out
}

func mix(a, b []int16) []int16 {
	out := make([]int16, len(a))
	for i := range a {
		out[i] = int16(max(-32767, min(32767, int(a[i])+int(b[i]))))
	}
	return out
}

func bytesOf(s []int16) []byte {
	b := make([]byte, 2*len(s))
	for i, v := range s {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
	}
	return b
}

func TestDelayTracker_FindsTheDelay(t *testing.T) {
	far := speechLike(1, 8*SampleRate)
	for _, delay := range []time.Duration{30 * time.Millisecond, 250 * time.Millisecond, 700 * time.Millisecond, 1200 * time.Millisecond} {
		t.Run(delay.String(), func(t *testing.T) {
			mic := roomOf(far, delay, -6)
			tr := NewDelayTracker()
			for i := 0; i+blockSamples <= len(far); i += blockSamples {
				tr.Add(meanSquare(mic[i:i+blockSamples]), meanSquare(far[i:i+blockSamples]))
			}
			got, ok := tr.Delay()
			if !ok || absDuration(got-delay) > BlockDuration {
				t.Fatalf("delay = %v (known %v), want %v ± %v", got, ok, delay, BlockDuration)
			}
		})
	}
}

func absDuration(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// A person talking over the playback does not move the delay, and a delay that changes (a
// sound server's buffer grew) is followed.
func TestDelayTracker_FollowsAChangeAndIgnoresAPerson(t *testing.T) {
	far := speechLike(2, 20*SampleRate)
	before := roomOf(far, 200*time.Millisecond, -6)
	after := roomOf(far, 600*time.Millisecond, -6)
	person := speechLike(3, 20*SampleRate)
	mic := make([]int16, len(far))
	half := 10 * SampleRate
	copy(mic, before[:half])
	copy(mic[half:], after[half:])
	// The person talks, as loud as the echo, from 5 s to 8 s.
	for i := 5 * SampleRate; i < 8*SampleRate; i++ {
		mic[i] = int16(max(-32767, min(32767, int(mic[i])+int(person[i])/2)))
	}
	tr := NewDelayTracker()
	for i := 0; i+blockSamples <= len(far); i += blockSamples {
		tr.Add(meanSquare(mic[i:i+blockSamples]), meanSquare(far[i:i+blockSamples]))
		d, ok := tr.Delay()
		switch at := i / SampleRate; {
		case at >= 4 && at < 10 && (!ok || absDuration(d-200*time.Millisecond) > BlockDuration):
			t.Fatalf("at %d s, while the person talks over it too, delay = %v (known %v), want 200ms", at, d, ok)
		case at >= 15 && absDuration(d-600*time.Millisecond) > BlockDuration:
			t.Fatalf("at %d s, 5 s after the delay changed, delay = %v, want 600ms", at, d)
		}
	}
}

// With nothing played, there is no delay to find, whatever the microphone hears.
func TestDelayTracker_NothingPlayedNoDelay(t *testing.T) {
	mic := speechLike(4, 6*SampleRate)
	tr := NewDelayTracker()
	for i := 0; i+blockSamples <= len(mic); i += blockSamples {
		tr.Add(meanSquare(mic[i:i+blockSamples]), 0)
	}
	if d, ok := tr.Delay(); ok {
		t.Fatalf("delay = %v with nothing played", d)
	}
}

// needSpeex skips a test when SpeexDSP is not installed, except in CI (make test installs it).
func needSpeex(t *testing.T) {
	t.Helper()
	if err := Available(); err != nil {
		if testenv.InCI() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
}

// feedRoom runs c over far played and mic heard, as an output and a microphone would (Process).
func feedRoom(c *Canceller, far, mic []int16, rate, channels int) []int16 {
	return c.Process(upsample(far, rate, channels), rate, channels, mic)
}

// upsample repeats each 16 kHz sample to make PCM at rate (a multiple of 16 kHz) with channels.
func upsample(s []int16, rate, channels int) []byte {
	k := rate / SampleRate
	out := make([]int16, 0, len(s)*k*channels)
	for _, v := range s {
		for range k * channels {
			out = append(out, v)
		}
	}
	return bytesOf(out)
}

// erle is ERLE.
func erle(mic, out []int16, from, to int) float64 { return ERLE(mic, out, from, to) }

func TestCanceller_RemovesTheEcho(t *testing.T) {
	needSpeex(t)
	far := speechLike(5, 15*SampleRate)
	for _, tc := range []struct {
		delay          time.Duration
		rate, channels int
	}{
		{300 * time.Millisecond, 48000, 2}, // the output's format
		{900 * time.Millisecond, 16000, 1},
	} {
		t.Run(tc.delay.String(), func(t *testing.T) {
			mic := roomOf(far, tc.delay, -3)
			c, err := New()
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			out := feedRoom(c, far, mic, tc.rate, tc.channels)
			st := c.Stats()
			// The microphone's frames are placed 20 ms after the output's: the tracker sees
			// the room's delay plus that.
			if !st.DelayKnown || absDuration(st.Delay-tc.delay) > 3*BlockDuration {
				t.Errorf("delay %v (known %v), want about %v", st.Delay, st.DelayKnown, tc.delay)
			}
			got := erle(mic, out, 8*SampleRate, len(mic))
			t.Logf("ERLE %.1f dB over the last 7 s (running %.1f dB), delay %v", got, st.ERLE, st.Delay)
			if got < 20 {
				t.Errorf("the echo is %.1f dB quieter after the canceller, want at least 20 dB", got)
			}
		})
	}
}

// The person's speech goes through while the echo is removed.
func TestCanceller_KeepsThePerson(t *testing.T) {
	needSpeex(t)
	far := speechLike(6, 14*SampleRate)
	echo := roomOf(far, 250*time.Millisecond, -3)
	person := make([]int16, len(far))
	copy(person[10*SampleRate:], speechLike(8, 3*SampleRate))
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	out := feedRoom(c, far, mix(echo, person), 16000, 1)
	span := [2]int{10 * SampleRate, 13 * SampleRate}
	var p, o float64
	for i := span[0]; i < span[1]; i++ {
		p += float64(person[i]) * float64(person[i])
		o += float64(out[i]) * float64(out[i])
	}
	kept := 10 * math.Log10(o/p)
	t.Logf("the person comes out at %.1f dB of their level", kept)
	if kept < -6 {
		t.Errorf("the person's speech comes out %.1f dB quieter, want within 6 dB", kept)
	}
}

// A frame when nothing was played is left as the microphone gave it.
func TestCanceller_LeavesSilencePlayedAlone(t *testing.T) {
	needSpeex(t)
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	mic := speechLike(9, 2*SampleRate)
	out := feedRoom(c, make([]int16, len(mic)), mic, 16000, 1)
	for i := range out {
		if out[i] != mic[i] {
			t.Fatalf("sample %d changed from %d to %d with nothing played", i, mic[i], out[i])
		}
	}
	if c.Stats().Active {
		t.Error("the canceller says it is active with nothing played")
	}
}

func TestConverter_KeepsATone(t *testing.T) {
	// 1 kHz at 48 kHz stereo comes out as 1 kHz at 16 kHz, at its level.
	const n = 48000
	pcm := make([]byte, 0, n*4)
	for i := range n {
		v := int16(10000 * math.Sin(2*math.Pi*1000*float64(i)/48000))
		pcm = binary.LittleEndian.AppendUint16(pcm, uint16(v))
		pcm = binary.LittleEndian.AppendUint16(pcm, uint16(v))
	}
	var c converter
	c.setFormat(48000, 2)
	var out []int16
	for len(pcm) > 0 { // in pieces, as an output takes it
		k := min(len(pcm), 1764)
		c.feed(pcm[:k], func(s int16) { out = append(out, s) })
		pcm = pcm[k:]
	}
	if len(out) < 15990 || len(out) > 16000 {
		t.Fatalf("%d samples out of 1 s, want 16000", len(out))
	}
	// Its level and frequency: correlate with 1 kHz at 16 kHz.
	var re, im, e float64
	for i, s := range out[100:] {
		x := float64(s)
		re += x * math.Cos(2*math.Pi*1000*float64(i)/SampleRate)
		im += x * math.Sin(2*math.Pi*1000*float64(i)/SampleRate)
		e += x * x
	}
	share := (re*re + im*im) * 2 / float64(len(out)-100) / e
	if share < 0.95 {
		t.Errorf("%.2f of the output is the 1 kHz tone, want most of it", share)
	}
	if rms := math.Sqrt(e / float64(len(out)-100)); rms < 6000 || rms > 7500 {
		t.Errorf("level %.0f RMS, want about %.0f", rms, 10000/math.Sqrt2)
	}
}

// What the canceller leaves of a person talking over the echo does not resemble the playback;
// what it leaks of the echo when the room's delay jumps does (Stats.Residue), until it follows.
func TestCanceller_ResidueTellsThePersonFromALeak(t *testing.T) {
	needSpeex(t)
	far := speechLike(6, 16*SampleRate)
	before := roomOf(far, 250*time.Millisecond, -3)
	after := roomOf(far, 262*time.Millisecond, -3) // the delay jumps 12 ms at 9 s
	jump := 9 * SampleRate
	echo := append(append([]int16(nil), before[:jump]...), after[jump:]...)
	person := make([]int16, len(far))
	copy(person[12*SampleRate:], speechLike(8, 3*SampleRate))
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var residue []float64
	var converged []bool
	c.afterFrame = func() {
		residue = append(residue, c.stats.Residue)
		converged = append(converged, c.stats.Converged)
	}
	feedRoom(c, far, mix(echo, person), 16000, 1)
	// Frames the residue was measured in (loud after the canceller), by what they hold.
	share := func(from, to int, holds func(int) bool) (low, n int) {
		for k := from / FrameSamples; k < to/FrameSamples && k < len(residue); k++ {
			if math.IsNaN(residue[k]) || !holds(k) {
				continue
			}
			n++
			if residue[k] < 0.1 {
				low++
			}
		}
		return low, n
	}
	speaking := func(k int) bool { return meanSquare(person[k*FrameSamples:(k+1)*FrameSamples]) > 1e-4 }
	pLow, pN := share(12*SampleRate, 15*SampleRate, speaking)
	lLow, lN := share(jump, jump+SampleRate, func(int) bool { return true })
	t.Logf("person: %d of %d measured frames under 0.1; after the jump: %d of %d", pLow, pN, lLow, lN)
	if pN == 0 || pLow*2 < pN {
		t.Errorf("the person resembles the playback in %d of %d frames, want under half", pN-pLow, pN)
	}
	if lN == 0 || lLow*5 > lN {
		t.Errorf("the leak after the jump resembles the playback in only %d of %d frames", lN-lLow, lN)
	}
	if !converged[8*SampleRate/FrameSamples] || converged[SampleRate/FrameSamples] {
		t.Errorf("converged at 1 s %v, at 8 s %v: want only at 8 s", converged[SampleRate/FrameSamples], converged[8*SampleRate/FrameSamples])
	}
}

// BenchmarkCanceller_Offline reports the canceller's time per second of audio (cpu-%, of one
// core), everything it does per frame included (the delay's search, the filter, the suppressor,
// Stats.Residue), over 16 s of a speech-like playback whose echo has a person talking over it
// for 3 s. Run:
//
//	go test -run '^$' -bench Canceller_Offline -benchtime 5x ./audio/echo/
func BenchmarkCanceller_Offline(b *testing.B) {
	if err := Available(); err != nil {
		b.Skip(err)
	}
	far := speechLike(6, 16*SampleRate)
	person := make([]int16, len(far))
	copy(person[12*SampleRate:], speechLike(8, 3*SampleRate))
	mic := mix(roomOf(far, 250*time.Millisecond, -3), person)
	played := upsample(far, 16000, 1)
	var took time.Duration
	for b.Loop() {
		c, err := New()
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		c.Process(played, 16000, 1, mic)
		took += time.Since(start)
		c.Close()
	}
	b.ReportMetric(100*float64(took)/float64(b.N)/float64(16*time.Second), "cpu-%")
}
