package playback

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// ErrNoDevice means the process has no usable audio output; playback is impossible but nothing
// else is affected.
var ErrNoDevice = errors.New("no audio output device")

// DrainTime bounds how long the output keeps sounding after a clip's ClipEnded event: what the
// ALSA device (about 43 ms) and a sound server still hold. A program that exits once playback
// ends should wait this long first, or the end of the sound is cut off.
const DrainTime = 250 * time.Millisecond

// IdleClose is how long the audio output stays open after the last player let go of it (its
// queue drained, or OpenOutput checked it): then the device is closed, and the sound server
// holds no stream of Parley's until the next clip opens it again.
//
// An open output costs 2–3% of a core even when it plays nothing (the mixer feeds the device
// silence at real time), and under a sound server it is a stream that the server mixes and that
// an underrun re-creates; opening it again costs a few milliseconds before the next clip (see the
// README's performance table). 5 s covers the gaps inside one spoken reply, where the next
// sentence's speech comes a second or two after the last one ended, without reopening; between
// turns (the person listens, speaks, the service answers) the output closes. PulseAudio waits as
// long before it suspends an idle sink.
const IdleClose = 5 * time.Second

// output is where voices play: an open audio device, or a fake in tests.
type output interface {
	// newVoice returns a paused voice that will play the PCM (in OutputFormat) read from r.
	newVoice(r io.Reader) voice
	// err reports a failure of the output after it opened.
	err() error
	// close releases the device. Every voice made on it has been closed first.
	close()
}

// voice is one clip's player on an output.
type voice interface {
	Play()
	Pause()
	IsPlaying() bool
	// BufferedSize is how much PCM the voice has read from its source and not yet mixed.
	BufferedSize() int
	SetVolume(v float64)
	Close() error
}

// voiceBuffer is how much PCM the player decodes before it starts a voice, and how much an output
// that buffers per voice (oto's) holds: 100 ms, several device periods, so the output never
// starves, and little to prefill before a clip starts.
var voiceBuffer = OutputFormat.BytesPerSecond() / 10 / (2 * OutputFormat.Channels) * (2 * OutputFormat.Channels)

// device is the process's audio output, shared by its players: opened when one of them has
// something to play, and closed idle after the last of them let go of it.
type device struct {
	open  func() (output, error)
	idle  time.Duration
	after func(d time.Duration, f func()) (stop func() bool) // time.AfterFunc, or a fake clock

	mu    sync.Mutex
	out   output
	users int
	timer func() bool // stops the pending idle close, if any
	armed uint64      // counts the idle closes armed; a close runs only if it is the last one
}

// theDevice is the process's one output, on the default ALSA device where there is ALSA.
var theDevice = &device{open: openSystemOutput, idle: IdleClose, after: afterFunc}

func afterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

// acquire returns the open output, opening it if it is closed, and keeps it open until the
// matching release. An error wraps ErrNoDevice; then there is nothing to release.
func (d *device) acquire() (output, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.timer != nil {
		d.timer()
		d.timer = nil
	}
	d.armed++ // a close already running waits on mu, and then finds itself outdated
	if d.out != nil && d.users == 0 && d.out.err() != nil {
		d.out.close() // it failed while idle: open it afresh
		d.out = nil
	}
	if d.out == nil {
		out, err := d.open()
		if err != nil {
			return nil, err
		}
		d.out = out
	}
	d.users++
	return d.out, nil
}

// release lets go of the output acquire returned; it closes idle after the last release.
func (d *device) release() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.users--
	if d.users > 0 || d.out == nil {
		return
	}
	d.armed++
	n := d.armed
	d.timer = d.after(d.idle, func() { d.closeIdle(n) })
}

// closeIdle closes the output if nothing acquired it since the idle close numbered n was armed.
func (d *device) closeIdle(n uint64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if n != d.armed || d.users > 0 || d.out == nil {
		return
	}
	d.out.close()
	d.out = nil
	d.timer = nil
}

// OpenOutput checks that the process has an audio output: it opens the default ALSA device (at
// OutputFormat), waiting until it is open, or finds it open, and returns nil; the device then
// closes after IdleClose unless a clip plays. Its error wraps ErrNoDevice. Players open the
// output themselves when they have something to play; call this first to tell the person early
// that there is no sound.
func OpenOutput() error {
	if _, err := theDevice.acquire(); err != nil {
		return err
	}
	theDevice.release()
	return nil
}

// noDevice wraps an error opening the device in ErrNoDevice.
func noDevice(err error) error {
	return fmt.Errorf("%w (%s)", ErrNoDevice, briefALSAError(err))
}

// briefALSAError shortens the error for an ALSA device that cannot be opened, which lists every
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
