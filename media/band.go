package media

import "math"

// Band is what a recording's spectrum says of the microphone that made it.
type Band struct {
	// Speech is how long the recording was loud enough to judge (within 30 dB of its
	// loudest 32 ms), in seconds.
	Speech float64
	// HighDB is the share of that sound's energy above 5 kHz, in dB (0 dB: all of it).
	// Speech recorded at 16 kHz or more has -8 to -51 dB there (the hiss of "s" and "f");
	// a telephone or Bluetooth headset's 8 kHz sound next to nothing (see narrowbandDB).
	HighDB float64
}

// narrowbandDB is the share of energy above 5 kHz under which a recording is taken for
// narrowband. Measured through Opus at 16 kbit/s as the app uploads (2026-11-28, 130 takes):
// people recorded at 16 kHz (pocketsphinx-testdata) -8 to -33 dB, flite's and espeak-ng's
// voices -18 to -40 dB, but flite's awb voice down to -51 dB; the same takes taken to 8 kHz and
// back by sox -57 to -61 dB (Opus's own noise; three noisy card recordings -39 to -47 dB), real
// 8 kHz recordings (Asterisk's prompts) without Opus -82 dB. A wideband voice must never be
// refused, so the line is drawn 4 dB under the dullest one: a noisy 8 kHz take may pass unnoticed.
const narrowbandDB = -55

// minJudged is how much loud sound Narrowband needs before it judges, in seconds: a word or two.
const minJudged = 0.4

// Narrowband reports whether p sounds like telephone-quality audio: sound with nothing above
// 4 kHz, as an 8 kHz microphone (a Bluetooth headset in its hands-free mode, a telephone line)
// sends it, whatever rate it was resampled to since. It says false when p is too short or
// too quiet to tell.
func Narrowband(p PCM) bool {
	b, ok := MeasureBand(p)
	return ok && b.HighDB < narrowbandDB
}

// bandFrame is the length of MeasureBand's frames at 16 kHz (32 ms), a power of two.
const bandFrame = 512

// MeasureBand measures where p's energy lies, at 16 kHz; ok is false when p holds less than
// minJudged of sound to judge. Each 32 ms frame's spectrum (Hann window) is split at 5 kHz;
// only frames within 30 dB of the loudest count.
func MeasureBand(p PCM) (b Band, ok bool) {
	m := To16kMono(p)
	if m.Rate != 16000 || len(m.Samples) < bandFrame {
		return Band{}, false
	}
	window := make([]float64, bandFrame)
	for i := range window {
		window[i] = 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/bandFrame)
	}
	split := 5000 * bandFrame / 16000 // the first bin of the high band
	low := 100 * bandFrame / 16000    // bins under 100 Hz (hum, a DC offset) are not sound to judge
	type energy struct{ all, high float64 }
	frames := make([]energy, 0, len(m.Samples)/bandFrame)
	re, im := make([]float64, bandFrame), make([]float64, bandFrame)
	loudest := 0.0
	for off := 0; off+bandFrame <= len(m.Samples); off += bandFrame {
		for i, s := range m.Samples[off : off+bandFrame] {
			re[i], im[i] = float64(s)*window[i], 0
		}
		fft(re, im)
		var e energy
		for k := low; k <= bandFrame/2; k++ {
			pw := re[k]*re[k] + im[k]*im[k]
			e.all += pw
			if k >= split {
				e.high += pw
			}
		}
		frames = append(frames, e)
		loudest = max(loudest, e.all)
	}
	if loudest == 0 {
		return Band{}, false
	}
	floor := loudest * math.Pow(10, -30.0/10)
	var all, high float64
	n := 0
	for _, e := range frames {
		if e.all >= floor {
			all += e.all
			high += e.high
			n++
		}
	}
	b.Speech = float64(n*bandFrame) / 16000
	if b.Speech < minJudged {
		return b, false
	}
	b.HighDB = 10 * math.Log10(max(high, all*1e-12)/all)
	return b, true
}

// fft transforms re+i·im in place (radix 2; len a power of two).
func fft(re, im []float64) {
	n := len(re)
	for i, j := 1, 0; i < n; i++ {
		bit := n >> 1
		for ; j&bit != 0; bit >>= 1 {
			j ^= bit
		}
		j ^= bit
		if i < j {
			re[i], re[j] = re[j], re[i]
			im[i], im[j] = im[j], im[i]
		}
	}
	for size := 2; size <= n; size <<= 1 {
		step := -2 * math.Pi / float64(size)
		for start := 0; start < n; start += size {
			for k := range size / 2 {
				wr, wi := math.Cos(step*float64(k)), math.Sin(step*float64(k))
				a, b := start+k, start+k+size/2
				tr := wr*re[b] - wi*im[b]
				ti := wr*im[b] + wi*re[b]
				re[b], im[b] = re[a]-tr, im[a]-ti
				re[a], im[a] = re[a]+tr, im[a]+ti
			}
		}
	}
}
