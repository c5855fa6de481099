// Package audiotest has a stand-in microphone for tests of what listens to one.
package audiotest

import (
	"context"
	"math"
	"sync"
	"time"

	"parley/audio"
)

// SpeechMic is a microphone that delivers a frame each millisecond: faint noise, or what Say
// queued, a voiced sound at speech's loudness and syllable rate that a voice detector takes for
// speech (no words: a transcriber hears what its test says it hears).
type SpeechMic struct {
	mu     sync.Mutex
	queue  []int16
	n      int
	closed bool
}

// Say queues d of speech.
func (m *SpeechMic) Say(d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := int(d.Seconds() * audio.SampleRate)
	for i := range n {
		t := float64(i) / audio.SampleRate
		syllable := 0.5 + 0.5*math.Sin(2*math.Pi*4*t)
		v := 0.0
		for h := 1; h <= 8; h++ {
			v += math.Sin(2*math.Pi*140*float64(h)*t) / float64(h)
		}
		m.queue = append(m.queue, int16(6000*syllable*v))
	}
}

// ReadFrame fills frame with what was said, then faint noise.
func (m *SpeechMic) ReadFrame(ctx context.Context, frame []int16) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Millisecond):
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	c := copy(frame, m.queue)
	m.queue = m.queue[c:]
	for i := c; i < len(frame); i++ {
		m.n++
		frame[i] = int16(m.n*7919%41 - 20)
	}
	return nil
}

// Close marks the microphone closed.
func (m *SpeechMic) Close() error {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	return nil
}

// Closed reports whether the microphone was closed.
func (m *SpeechMic) Closed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed
}
