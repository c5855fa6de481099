package echo

import (
	"sync"
	"time"

	"parley/audio/playback"
)

var shared struct {
	once sync.Once
	c    *Canceller
	err  error
}

// Shared returns the process's canceller, made on first use and fed from then on with
// everything the process's players play (playback.SetTap). It lives as long as the process:
// the echo path it learns is the room's, and the next voice session starts from it.
func Shared() (*Canceller, error) {
	shared.once.Do(func() {
		shared.c, shared.err = New()
		if shared.err == nil {
			c := shared.c
			playback.SetTap(func(pcm []byte, f playback.Format, at time.Time) { c.Played(pcm, f.SampleRate, f.Channels, at) })
		}
	})
	return shared.c, shared.err
}

// Available reports whether a canceller can be made here: nil, or why not (wrapping
// ErrUnavailable).
func Available() error { return loadSpeex() }
