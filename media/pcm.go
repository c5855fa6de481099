// Package media reads, converts and writes audio without touching any device: WAV, WebM/Opus
// and Ogg/Opus (MP3 and FLAC are read too), channel mixing and resampling. Every parser here
// reads outside data and is written to fail with an error, never a panic, and never to allocate
// from an untrusted size; the third-party MP3 and FLAC decoders run under recover.
package media

import (
	"math"
	"time"
)

// MaxDuration caps how long audio a decoder will produce; longer input is refused with ErrTooLong.
const MaxDuration = 10 * time.Minute

// MaxSamples caps how many samples (all channels together) a decoder will produce, whatever
// the rate: ten minutes of 48 kHz stereo.
const MaxSamples = 10 * 60 * 48000 * 2

// maxSamplesAt is the sample cap for audio at rate with channels: MaxDuration of it, and never
// more than MaxSamples. Capping by duration also bounds what resampling a low-rate file makes.
func maxSamplesAt(rate, channels int) int {
	return int(min(int64(MaxSamples), int64(MaxDuration/time.Second)*int64(rate)*int64(channels)))
}

// PCM is interleaved signed 16-bit audio.
type PCM struct {
	Rate     int     // samples per second per channel
	Channels int     // interleaved channels, usually 1 or 2
	Samples  []int16 // Frames()*Channels values, channel-interleaved
}

// Frames returns the number of sample frames (one sample per channel).
func (p PCM) Frames() int {
	if p.Channels <= 0 {
		return 0
	}
	return len(p.Samples) / p.Channels
}

// Duration returns how long the audio plays.
func (p PCM) Duration() time.Duration {
	if p.Rate <= 0 {
		return 0
	}
	return time.Duration(int64(p.Frames()) * int64(time.Second) / int64(p.Rate))
}

// Mono averages the channels into one. Mono input is returned as it is (sharing Samples).
func Mono(p PCM) PCM {
	if p.Channels <= 1 {
		return p
	}
	n := p.Frames()
	out := make([]int16, n)
	ch := p.Channels
	for i := range n {
		sum := 0
		for _, s := range p.Samples[i*ch : i*ch+ch] {
			sum += int(s)
		}
		out[i] = int16(roundDiv(sum, ch))
	}
	return PCM{Rate: p.Rate, Channels: 1, Samples: out}
}

// roundDiv divides rounding half away from zero.
func roundDiv(a, b int) int {
	if a >= 0 {
		return (a + b/2) / b
	}
	return -((-a + b/2) / b)
}

// To16kMono converts audio to what speech recognition takes: 16 kHz, one channel.
func To16kMono(p PCM) PCM {
	return Resample(Mono(p), 16000)
}

// Windowed-sinc resampler parameters: kernel half-width in zero crossings, table oversampling,
// and the pass band as a fraction of the lower of the two Nyquist frequencies.
const (
	sincZeros    = 16
	sincRes      = 256
	sincPassband = 0.93
	kaiserBeta   = 8.0
)

// sincTable holds sinc(x)*kaiser(x) for x = i/sincRes, i = 0..sincZeros*sincRes, plus a guard.
var sincTable = func() []float64 {
	n := sincZeros * sincRes
	t := make([]float64, n+2)
	i0b := besselI0(kaiserBeta)
	for i := 0; i <= n; i++ {
		x := float64(i) / sincRes
		s := 1.0
		if i > 0 {
			s = math.Sin(math.Pi*x) / (math.Pi * x)
		}
		r := x / sincZeros
		w := besselI0(kaiserBeta*math.Sqrt(1-r*r)) / i0b
		t[i] = s * w
	}
	return t
}()

// besselI0 is the zeroth-order modified Bessel function of the first kind (series expansion).
func besselI0(x float64) float64 {
	sum, term := 1.0, 1.0
	for k := 1; k < 50; k++ {
		term *= (x / 2) / float64(k)
		sum += term * term
		if term*term < sum*1e-17 {
			break
		}
	}
	return sum
}

// kernel evaluates the table at |x| zero crossings with linear interpolation.
func kernel(x float64) float64 {
	if x < 0 {
		x = -x
	}
	pos := x * sincRes
	i := int(pos)
	if i >= sincZeros*sincRes {
		return 0
	}
	f := pos - float64(i)
	return sincTable[i] + f*(sincTable[i+1]-sincTable[i])
}

// Resample converts p to the given rate with a Kaiser-windowed sinc filter that also removes
// what the new rate cannot carry when downsampling. Channels are kept. Audio already at the
// rate, or a rate that is not positive, returns p as it is.
func Resample(p PCM, rate int) PCM {
	if rate <= 0 || p.Rate <= 0 || rate == p.Rate || p.Channels <= 0 {
		return p
	}
	ch := p.Channels
	inFrames := p.Frames()
	in, out := int64(p.Rate), int64(rate)
	outFrames := int((int64(inFrames)*out + in/2) / in)
	res := make([]int16, outFrames*ch)

	// fc: cutoff as a fraction of the input Nyquist frequency.
	fc := sincPassband
	if out < in {
		fc *= float64(out) / float64(in)
	}
	half := float64(sincZeros) / fc // kernel half-width in input samples

	buf := make([]float64, 0, int(2*half)+4)
	for n := range outFrames {
		num := int64(n) * in
		center := int(num / out)
		frac := float64(num%out) / float64(out)
		t := float64(center) + frac
		lo := int(math.Ceil(t - half))
		hi := int(math.Floor(t + half))
		if lo < 0 {
			lo = 0
		}
		if hi > inFrames-1 {
			hi = inFrames - 1
		}
		buf = buf[:0]
		for k := lo; k <= hi; k++ {
			buf = append(buf, kernel((t-float64(k))*fc))
		}
		for c := range ch {
			acc := 0.0
			for j, k := 0, lo; k <= hi; j, k = j+1, k+1 {
				acc += buf[j] * float64(p.Samples[k*ch+c])
			}
			res[n*ch+c] = clamp16(acc * fc)
		}
	}
	return PCM{Rate: rate, Channels: ch, Samples: res}
}

// clamp16 rounds and saturates to int16.
func clamp16(v float64) int16 {
	v = math.Round(v)
	if v > math.MaxInt16 {
		return math.MaxInt16
	}
	if v < math.MinInt16 {
		return math.MinInt16
	}
	return int16(v)
}
