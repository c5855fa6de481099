package audio

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"parley/audio/vad"
	"parley/media"
)

// Encoder settings for WebM/Opus takes.
const (
	opusBitrate = 16000
	// webmCloseReserve is room kept below MaxBytes for what is not written yet: up to two
	// frames waiting to complete a laced block, the frame being encoded, and what Close adds
	// (the partial block and the padded last frame with its headers), about 660 bytes at
	// worst: a 16 kbit/s Opus frame is about 40 bytes, rarely over 120.
	webmCloseReserve = 1024
	wavHeader        = 44
)

// speechTail is how much of the silence after speech a take ended by the detector keeps: the
// rest of the hold is not uploaded.
const speechTail = 300 * time.Millisecond

// levelEvery is how many frames one level reading covers: 40 ms, 25 readings a second.
const levelEvery = 2

// prerollKeep is how much audio is kept before speech is confirmed: the pre-roll, plus how far
// back the detector may place a start (its pending run and look-back).
const prerollKeep = 2 * time.Second

// takeWriter is the pipeline every take goes through, from a device or from a file: level
// meter, silence check, voice detector, pre-roll and encoder, one 20 ms frame at a time.
type takeWriter struct {
	opts         TakeOptions
	det          *vad.Detector
	checkSilence bool

	enc *media.WebMOpusEncoder
	buf bytes.Buffer

	pcm     []int16 // the take's audio
	pre     []int16 // recent audio before the take starts (VAD mode)
	held    []int16 // a pause past speechTail, kept back until speech resumes (VAD mode)
	keeping bool    // audio goes into the take
	heard   int64   // samples fed
	skipped int64   // samples heard before the take's audio

	speech           bool
	speechStart, end int64 // in samples from the start of the take's audio
	zeros            int64 // consecutive zero samples

	lvlSum  float64
	lvlPeak int
	lvlN    int
	lvlFrms int
}

// withDefaults fills in the zero fields of o.
func (o TakeOptions) withDefaults() TakeOptions {
	if o.MaxBytes <= 0 || o.MaxBytes > UploadLimit {
		o.MaxBytes = UploadLimit
	}
	o.VADConfig = o.VADConfig.WithDefaults()
	o.VADConfig.SampleRate = SampleRate
	return o
}

func newTakeWriter(opts TakeOptions) (*takeWriter, error) {
	opts = opts.withDefaults()
	if opts.Encoding != EncodingWebMOpus && opts.Encoding != EncodingWAV {
		return nil, fmt.Errorf("audio: unknown encoding %d", opts.Encoding)
	}
	minBytes := int64(wavHeader + 2*frameSamples)
	if opts.Encoding == EncodingWebMOpus {
		minBytes = 2 * webmCloseReserve
	}
	if opts.MaxBytes < minBytes {
		return nil, fmt.Errorf("audio: a size limit of %d bytes is too small (at least %d)", opts.MaxBytes, minBytes)
	}
	w := &takeWriter{opts: opts, det: vad.New(opts.VADConfig), keeping: !opts.VAD}
	if opts.Encoding == EncodingWebMOpus {
		enc, err := media.NewWebMOpusEncoder(&w.buf, SampleRate, 1, opusBitrate)
		if err != nil {
			return nil, err
		}
		w.enc = enc
	}
	return w, nil
}

// pastTail reports whether a frame lies in a pause longer than speechTail, in a take the
// detector ends: such frames wait in w.held, and are dropped if the pause ends the speech.
func (w *takeWriter) pastTail(ev vad.Event) bool {
	if !w.opts.VAD {
		return false
	}
	if ev == vad.End {
		return true
	}
	return w.det.InSpeech() && w.heard-w.samples(w.det.LastActive()) > w.samples(speechTail)
}

// frame feeds one frame (normally 20 ms) and reports whether the take must stop, and why.
func (w *takeWriter) frame(f []int16) (StopReason, bool) {
	w.heard += int64(len(f))
	w.meter(f)
	if w.checkSilence && w.silent(f) {
		return StopSilentDevice, true
	}
	ev := w.det.Feed(f)
	switch {
	case w.keeping && w.pastTail(ev):
		w.held = append(w.held, f...)
	case w.keeping:
		if len(w.held) > 0 {
			// Speech resumed: the pause belongs to the take.
			held := w.held
			w.held = w.held[:0]
			if r, stop := w.keep(held); stop {
				return r, true
			}
		}
		if r, stop := w.keep(f); stop {
			return r, true
		}
	default:
		w.pre = append(w.pre, f...)
		if keep := int(prerollKeep.Seconds() * SampleRate); len(w.pre) > 2*keep {
			w.pre = append(w.pre[:0], w.pre[len(w.pre)-keep:]...)
		}
	}
	switch ev {
	case vad.Start:
		startAt := w.samples(w.det.SpeechStart())
		if !w.keeping {
			// The take begins a pre-roll before the speech, so first syllables are not clipped.
			preStart := w.heard - int64(len(w.pre))
			from := max(startAt-w.samples(w.opts.VADConfig.PreRoll), preStart)
			w.skipped = from
			w.keeping = true
			w.speech, w.speechStart = true, startAt-from
			pre := w.pre[from-preStart:]
			w.pre = nil
			if r, stop := w.keep(pre); stop {
				return r, true
			}
		}
		if !w.speech {
			w.speech = true
			w.speechStart = startAt - w.skipped
		}
	case vad.End:
		w.end = w.samples(w.det.SpeechEnd()) - w.skipped
		if w.opts.VAD {
			return StopEndOfSpeech, true
		}
	}
	if w.det.InSpeech() {
		w.end = w.samples(w.det.LastActive()) - w.skipped
	}
	if w.opts.MaxDuration > 0 && w.heard >= w.samples(w.opts.MaxDuration) {
		return StopMaxDuration, true
	}
	return 0, false
}

func (w *takeWriter) samples(d time.Duration) int64 {
	return int64(d) * SampleRate / int64(time.Second)
}

// keep adds samples to the take and encodes them, unless that would pass the size limit.
func (w *takeWriter) keep(s []int16) (StopReason, bool) {
	if w.enc == nil {
		room := (w.opts.MaxBytes - wavHeader) / 2
		if n := room - int64(len(w.pcm)); int64(len(s)) > n {
			w.pcm = append(w.pcm, s[:max(n, 0)]...)
			return StopSizeLimit, true
		}
		w.pcm = append(w.pcm, s...)
		return 0, false
	}
	for len(s) > 0 {
		if int64(w.buf.Len())+webmCloseReserve > w.opts.MaxBytes {
			return StopSizeLimit, true
		}
		n := min(len(s), frameSamples)
		w.pcm = append(w.pcm, s[:n]...)
		if err := w.enc.Write(s[:n]); err != nil {
			return StopDeviceFailed, true // reported by finish through the encoder's sticky error
		}
		s = s[n:]
	}
	return 0, false
}

// silent reports whether the device has delivered only zeros for silentDeviceAfter.
func (w *takeWriter) silent(f []int16) bool {
	for i := len(f) - 1; i >= 0; i-- {
		if f[i] != 0 {
			w.zeros = int64(len(f) - 1 - i)
			return false
		}
	}
	w.zeros += int64(len(f))
	return w.zeros >= w.samples(silentDeviceAfter)
}

// meter accumulates the level and sends a reading every levelEvery frames, without blocking.
func (w *takeWriter) meter(f []int16) {
	if w.opts.Levels == nil {
		return
	}
	for _, s := range f {
		v := int(s)
		w.lvlSum += float64(v * v)
		w.lvlPeak = max(w.lvlPeak, v, -v)
	}
	w.lvlN += len(f)
	w.lvlFrms++
	if w.lvlFrms < levelEvery {
		return
	}
	l := Level{
		RMS:  dbfs(math.Sqrt(w.lvlSum / float64(max(w.lvlN, 1)))),
		Peak: dbfs(float64(w.lvlPeak)),
		At:   time.Duration(w.heard * int64(time.Second) / SampleRate),
	}
	w.lvlSum, w.lvlPeak, w.lvlN, w.lvlFrms = 0, 0, 0, 0
	select {
	case w.opts.Levels <- l:
	default:
	}
}

// dbfs converts an amplitude of 16-bit samples to dBFS, -120 for zero.
func dbfs(a float64) float64 {
	if a <= 0 {
		return -120
	}
	return max(20*math.Log10(a/32768), -120)
}

// snapshot is the take so far (see TakeBuilder.Snapshot), which the take going on leaves as it
// is: the PCM is only ever appended to, so the snapshot shares what it has so far.
func (w *takeWriter) snapshot() *Take {
	t := w.take(0, nil)
	t.PCM.Samples = slices.Clip(w.pcm)
	if w.enc != nil {
		// The WebM segment and clusters have unknown sizes, so what is written so far is a
		// whole file; the frames waiting for their block go in one block of their own.
		t.Audio = w.enc.AppendPending(bytes.Clone(w.buf.Bytes()))
	} else {
		t.Audio = media.EncodeWAV(t.PCM)
	}
	return t
}

// take fills in a Take from what the writer holds, without its Audio.
func (w *takeWriter) take(reason StopReason, cause error) *Take {
	t := &Take{
		MIME:    w.opts.Encoding.MIME(),
		PCM:     media.PCM{Rate: SampleRate, Channels: 1, Samples: w.pcm},
		Speech:  w.speech,
		Skipped: time.Duration(w.skipped * int64(time.Second) / SampleRate),
		Reason:  reason,
		Err:     cause,
	}
	t.Duration = t.PCM.Duration()
	if w.speech {
		t.SpeechStart = time.Duration(w.speechStart * int64(time.Second) / SampleRate)
		t.SpeechEnd = time.Duration(min(w.end, int64(len(w.pcm))) * int64(time.Second) / SampleRate)
	}
	return t
}

// finish ends the take: closes the encoder and fills in the Take.
func (w *takeWriter) finish(reason StopReason, cause error) (*Take, error) {
	t := w.take(reason, cause)
	if w.enc != nil {
		if err := w.enc.Close(); err != nil {
			return t, fmt.Errorf("audio: encoding the take: %w", err)
		}
		t.Audio = w.buf.Bytes()
	} else {
		t.Audio = media.EncodeWAV(t.PCM)
	}
	if int64(len(t.Audio)) > w.opts.MaxBytes {
		return t, fmt.Errorf("audio: the take is %d bytes, over its limit of %d", len(t.Audio), w.opts.MaxBytes)
	}
	return t, cause
}

// Process runs recorded audio through the same pipeline as a live take (voice detector,
// level meter, encoder and limits), as if it came from a device in 20 ms frames, and returns
// the take; it stops where a live take would, or with StopEndOfInput. Audio at another rate or
// with more channels is converted to 16 kHz mono first.
func Process(ctx context.Context, p media.PCM, opts TakeOptions) (*Take, error) {
	if p.Rate != SampleRate || p.Channels != 1 {
		p = media.To16kMono(p)
	}
	w, err := newTakeWriter(opts)
	if err != nil {
		return nil, err
	}
	s := p.Samples
	for len(s) > 0 {
		if err := ctx.Err(); err != nil {
			return w.finish(StopCancelled, nil)
		}
		n := min(len(s), frameSamples)
		if r, stop := w.frame(s[:n]); stop {
			return w.finish(r, nil)
		}
		s = s[n:]
	}
	return w.finish(StopEndOfInput, nil)
}
