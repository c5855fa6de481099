// Package playbacktest has a stand-in for the audio output, for tests of what plays through it.
package playbacktest

import (
	"io"
	"sync"
	"time"

	"parley/audio/playback"
)

// Player records the clips it is given instead of playing them. With Emit set, it reports each
// clip as played (started, ended after 10 ms, then the queue drained) to the callback it was
// made with, as a real player does on its own goroutine.
type Player struct {
	// Added receives each clip as it is given (it must have room, or be drained).
	Added chan string
	// Emit makes it report playback events.
	Emit bool

	mu     sync.Mutex
	clips  []string
	next   playback.ClipID
	on     func(playback.Event)
	volume float64
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
	id, emit, on := p.next, p.Emit, p.on
	p.mu.Unlock()
	p.Added <- string(b)
	if emit && on != nil {
		go func() {
			on(playback.Event{Kind: playback.ClipStarted, Clip: id, At: time.Now()})
			time.Sleep(10 * time.Millisecond)
			on(playback.Event{Kind: playback.ClipEnded, Clip: id, At: time.Now()})
			on(playback.Event{Kind: playback.QueueDrained, At: time.Now()})
		}()
	}
	return id, nil
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

// Clips are the clips given so far, in order.
func (p *Player) Clips() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.clips...)
}

// Volume is the volume set last (1 until set).
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

// Report tells the callback p was opened with of ev, as the real player does when a clip plays.
func (p *Player) Report(ev playback.Event) {
	p.mu.Lock()
	on := p.on
	p.mu.Unlock()
	on(ev)
}
