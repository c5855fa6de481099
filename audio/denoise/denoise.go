// Package denoise takes steady background noise (a fan, a street, a computer's hum) out of a
// recording before the built-in recogniser hears it, with SpeexDSP's noise suppressor, and only
// when the recording is noisy: on a clean one the suppressor takes words away.
package denoise

import (
	"errors"
	"slices"

	"parley/audio/speexdsp"
	"parley/audio/vad"
)

// NoisyBelow is the estimated signal-to-noise ratio (dB) under which a take counts as noisy.
// Chosen on the hearing corpus of server/speech (BenchmarkHearing, 2026-11-29): people's
// recordings of pocketsphinx-testdata measure 23–41 dB, synthetic questions 32–75 dB, the same
// in a room with reverberation and white noise 25 dB under the speech 17–29 dB. Suppressing the
// noise of every take lost words on the cleanest of people's (the card names: 4.8% of words
// wrong became 19%, and the clean synthetic takes lost what little they had above 4 kHz, so
// that they were taken for telephone sound); suppressing it on the takes under 30 dB took the
// room from 56.0% to 52.7% and changed nothing else.
const NoisyBelow = 30

// SuppressDB is how far the suppressor brings the noise down, in dB. On the room's takes as
// the app uploads them (Opus at 16 kbit/s), decoded and then suppressed: 4 dB 54.6% of words
// wrong, 6 dB 52.7%, 8 dB 53.9%, 10 dB 54.6%, 15 dB 56.7%, 20 dB 56.8%, 25 dB 58.5%; without
// it 56.0%. Suppressed before Opus encoding, the same takes gave 49.0% at 10 dB: the noise
// costs the encoder's bits too.
const SuppressDB = 6

// frameMillis is the length of a frame the suppressor and the estimate work on.
const frameMillis = 20

// SNR estimates s's signal-to-noise ratio in dB: the level of its loudest tenth of 20 ms frames
// (speech) over that of its quietest tenth (the pauses, where only the noise is). It is 0 for a
// take shorter than ten frames, which is too short to tell.
func SNR(s []int16, rate int) float64 {
	n := rate * frameMillis / 1000
	if n <= 0 || len(s) < 10*n {
		return 0
	}
	levels := make([]float64, 0, len(s)/n)
	for i := 0; i+n <= len(s); i += n {
		levels = append(levels, vad.FrameDBFS(s[i:i+n]))
	}
	slices.Sort(levels)
	return levels[len(levels)*9/10] - levels[len(levels)/10]
}

// Noisy reports whether s (at rate Hz) is noisy enough to be worth suppressing the noise of.
func Noisy(s []int16, rate int) bool {
	snr := SNR(s, rate)
	return snr > 0 && snr < NoisyBelow
}

// IfNoisy returns s with its noise suppressed by SuppressDB when it is noisy, and s itself
// when it is not, or when no suppressor can be loaded here (the recogniser then hears it as it
// is).
func IfNoisy(s []int16, rate int) []int16 {
	if !Noisy(s, rate) {
		return s
	}
	out, err := Suppress(s, rate, SuppressDB)
	if err != nil {
		return s
	}
	return out
}

// Suppress returns a copy of s (mono, at rate Hz) with its steady noise brought down by db
// decibels, or an error wrapping speexdsp.ErrUnavailable. The suppressor learns the noise as
// it goes, from the take's pauses.
func Suppress(s []int16, rate, db int) ([]int16, error) {
	n := rate * frameMillis / 1000
	if n <= 0 {
		return nil, errors.New("denoise: no sample rate")
	}
	p, err := speexdsp.NewPreprocessor(n, rate, speexdsp.PreprocessOptions{Denoise: true, NoiseDB: db})
	if err != nil {
		return nil, err
	}
	defer p.Close()
	out := make([]int16, len(s)+n)
	copy(out, s)
	for i := 0; i < len(s); i += n {
		p.Run(out[i : i+n])
	}
	return out[:len(s)], nil
}
