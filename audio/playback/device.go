package playback

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/ebitengine/oto/v3"
)

// ErrNoDevice means the process has no usable audio output; playback is impossible but nothing
// else is affected.
var ErrNoDevice = errors.New("no audio output device")

// DrainTime bounds how long the output keeps sounding after a clip's ClipEnded event: what the
// ALSA device (about 43 ms) and a sound server still hold. A program that exits once playback
// ends should wait this long first, or the end of the sound is cut off.
const DrainTime = 250 * time.Millisecond

// output is where voices play: the process's oto context, or a fake in tests.
type output interface {
	// newVoice returns a paused voice that will play the PCM (in OutputFormat) read from r.
	newVoice(r io.Reader) voice
	// err reports a failure of the output after it opened.
	err() error
}

// voice is one clip's player on an output; *oto.Player has these methods.
type voice interface {
	Play()
	Pause()
	IsPlaying() bool
	// BufferedSize is how much PCM the voice has read from its source and not yet mixed.
	BufferedSize() int
	SetVolume(v float64)
	Close() error
}

// voiceBuffer is how much PCM oto holds for a voice: 100 ms, several device periods, so the
// output never starves, and little to prefill before a clip starts.
var voiceBuffer = OutputFormat.BytesPerSecond() / 10 / (2 * OutputFormat.Channels) * (2 * OutputFormat.Channels)

type otoOutput struct{ ctx *oto.Context }

func (o otoOutput) newVoice(r io.Reader) voice {
	p := o.ctx.NewPlayer(r)
	p.SetBufferSize(voiceBuffer)
	return p
}

func (o otoOutput) err() error { return o.ctx.Err() }

// The process's one output: oto allows one context per process, and it binds the device when it
// is created, so it is created once, on first use, and its failure is kept as a value.
var device struct {
	once sync.Once
	out  output
	err  error
}

// OpenOutput opens the process's audio output (an oto context at OutputFormat on the default
// ALSA device) the first time it is called, waiting until the device is open, and returns the
// same result on every later call. Its error wraps ErrNoDevice. Players call it themselves; call
// it first to tell the person early that there is no sound.
func OpenOutput() error {
	_, err := openOutput()
	return err
}

func openOutput() (output, error) {
	device.once.Do(func() {
		silenceALSA()
		ctx, ready, err := oto.NewContext(&oto.NewContextOptions{
			SampleRate:   OutputFormat.SampleRate,
			ChannelCount: OutputFormat.Channels,
			Format:       oto.FormatSignedInt16LE,
		})
		if err != nil {
			device.err = fmt.Errorf("%w (%s)", ErrNoDevice, briefALSAError(err))
			return
		}
		<-ready
		if err := ctx.Err(); err != nil {
			device.err = fmt.Errorf("%w (%s)", ErrNoDevice, briefALSAError(err))
			return
		}
		device.out = otoOutput{ctx}
	})
	return device.out, device.err
}

// briefALSAError shortens oto's error for an ALSA device that cannot be opened, which lists every
// fallback device ALSA tried ("default": ..., "plug:default": ..., a dozen more), to its first
// entry and the number of the others.
func briefALSAError(err error) string {
	msg := err.Error()
	i := strings.Index(msg, `, "`)
	if i < 0 {
		return msg
	}
	return fmt.Sprintf("%s, and %d other ALSA devices failed", msg[:i], strings.Count(msg[i:], `, "`))
}
