//go:build !linux

package playback

import (
	"io"
	"sync"

	"github.com/ebitengine/oto/v3"
)

// otoOutput is the process's output where there is no ALSA: oto's one context per process,
// created on first use and suspended when the output closes (on Windows and macOS that stops the
// system's stream), resumed when it opens again.
type otoOutput struct{ ctx *oto.Context }

func (o otoOutput) newVoice(r io.Reader) voice {
	p := o.ctx.NewPlayer(r)
	p.SetBufferSize(voiceBuffer)
	return p
}

func (o otoOutput) err() error { return o.ctx.Err() }

func (o otoOutput) close() { o.ctx.Suspend() }

var otoContext struct {
	once sync.Once
	ctx  *oto.Context
	err  error
}

// openSystemOutput creates oto's context the first time, waiting until its device is open, and
// resumes it later.
func openSystemOutput() (output, error) {
	otoContext.once.Do(func() {
		ctx, ready, err := oto.NewContext(&oto.NewContextOptions{
			SampleRate:   OutputFormat.SampleRate,
			ChannelCount: OutputFormat.Channels,
			Format:       oto.FormatSignedInt16LE,
		})
		if err != nil {
			otoContext.err = noDevice(err)
			return
		}
		<-ready
		if err := ctx.Err(); err != nil {
			otoContext.err = noDevice(err)
			return
		}
		otoContext.ctx = ctx
	})
	if otoContext.err != nil {
		return nil, otoContext.err
	}
	if err := otoContext.ctx.Resume(); err != nil {
		return nil, noDevice(err)
	}
	return otoOutput{otoContext.ctx}, nil
}

// outputTaps: this output does not see what it plays; the players give the tap their PCM as
// they hand it over.
const outputTaps = false
