// Package playbacktest has a stand-in for the audio output, for tests of what plays through it.
package playbacktest

import (
	"bytes"
	"context"
	"io"
	"sync"
	"time"

	"parley/audio/playback"
)

// Player records the clips it is given instead of playing them. With Emit set, it reports each
// clip as played (started, ended after 10 ms, then the queue drained) to the callback it was
// made with, as a real player does on its own goroutine. Without it, the test says when a clip
// has played (EndNext, Report), or sets EndAtOnce. A Player made without New has no Added.
type Player struct {
	// Added receives each clip as it is given (it must have room, or be drained); nil: not sent.
	Added chan string
	// Emit makes it report playback events.
	Emit bool
	// Decode, with Emit, reports a clip started only once its first PCM is decoded, as the real
	// player starts it, and ended with the decoding's error if there was one: for benchmarks that
	// time the first audio.
	Decode bool
	// EndAtOnce makes Enqueue report each clip as started and ended before it returns, as a real
	// player may for a clip that fails at once.
	EndAtOnce bool

	mu     sync.Mutex
	clips  []string
	next   playback.ClipID
	ended  playback.ClipID // the last clip EndNext ended
	on     func(playback.Event)
	volume float64
	speed  float64
	stops  int
}

// New returns a player whose Added holds up to 100 clips.
func New() *Player { return &Player{Added: make(chan string, 100), volume: 1} }

// Open has p report to onEvent and returns it, for the NewPlayer of a device list.
func (p *Player) Open(onEvent func(playback.Event)) *Player {
	p.mu.Lock()
	p.on = onEvent
	p.mu.Unlock()
	return p
}

// Enqueue records the clip.
func (p *Player) Enqueue(r io.Reader) (playback.ClipID, error) {
	b, _ := io.ReadAll(r)
	p.mu.Lock()
	p.clips = append(p.clips, string(b))
	p.next++
	id, emit, decode, atOnce, on := p.next, p.Emit, p.Decode, p.EndAtOnce, p.on
	p.mu.Unlock()
	if p.Added != nil {
		p.Added <- string(b)
	}
	switch {
	case atOnce:
		p.EndNext()
	case emit && on != nil:
		go func() {
			var err error
			if decode {
				st := playback.NewStream(context.Background(), bytes.NewReader(b), playback.OutputFormat)
				_, err = io.ReadFull(st, make([]byte, 4096))
				st.Close()
			}
			on(playback.Event{Kind: playback.ClipStarted, Clip: id, At: time.Now()})
			time.Sleep(10 * time.Millisecond)
			on(playback.Event{Kind: playback.ClipEnded, Clip: id, Err: err, At: time.Now()})
			on(playback.Event{Kind: playback.QueueDrained, At: time.Now()})
		}()
	}
	return id, nil
}

// EndNext reports the oldest clip it has not yet ended as started and ended, as the real player
// does when it has played one; it does nothing when every clip given has ended.
func (p *Player) EndNext() {
	p.mu.Lock()
	if p.ended == p.next {
		p.mu.Unlock()
		return
	}
	p.ended++
	id := p.ended
	p.mu.Unlock()
	p.Report(playback.Event{Kind: playback.ClipStarted, Clip: id})
	p.Report(playback.Event{Kind: playback.ClipEnded, Clip: id})
}

// Stop counts the stops.
func (p *Player) Stop() {
	p.mu.Lock()
	p.stops++
	p.mu.Unlock()
}

// SetVolume records the volume.
func (p *Player) SetVolume(v float64) {
	p.mu.Lock()
	p.volume = v
	p.mu.Unlock()
}

// SetSpeed records the speed.
func (p *Player) SetSpeed(s float64) {
	p.mu.Lock()
	p.speed = s
	p.mu.Unlock()
}

// Speed is the speed set last (0 until set).
func (p *Player) Speed() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.speed
}

// Clips are the clips given so far, in order.
func (p *Player) Clips() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.clips...)
}

// Volume is the volume set last (1 until set, for a player from New).
func (p *Player) Volume() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.volume
}

// Stops is how many times the player was stopped.
func (p *Player) Stops() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stops
}

// Report tells the callback p was opened with (if any) of ev, as the real player does when a
// clip plays.
func (p *Player) Report(ev playback.Event) {
	p.mu.Lock()
	on := p.on
	p.mu.Unlock()
	if on != nil {
		on(ev)
	}
}
