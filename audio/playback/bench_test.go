package playback_test

import (
	"bytes"
	"encoding/base64"
	"io"
	"os"
	"testing"
	"time"

	"parley/audio/playback"
	"parley/internal/testenv"
)

// BenchmarkDecode measures MP3 decoding (go-mp3, conversion to 48 kHz stereo, the pipe) as a
// multiple of real time.
func BenchmarkDecode(b *testing.B) {
	for _, file := range []string{"speech-22k-mono.mp3", "tone440-24k-mono.mp3", "tone440-44k-stereo.mp3"} {
		b.Run(file, func(b *testing.B) {
			data := readFixture(b, file)
			var audio time.Duration
			for b.Loop() {
				pcm, err := playback.DecodeAll(b.Context(), bytes.NewReader(data), playback.OutputFormat)
				if err != nil {
					b.Fatal(err)
				}
				audio += playback.OutputFormat.Duration(int64(len(pcm)))
			}
			b.ReportMetric(audio.Seconds()/b.Elapsed().Seconds(), "x_realtime")
		})
	}
}

// BenchmarkFirstPCM measures the time from having the speech service's whole data URI (its last
// byte received) to PCM ready for the output: the first converted chunk (one MP3 frame), and the
// 100 ms the player decodes before it starts the voice.
func BenchmarkFirstPCM(b *testing.B) {
	uri := "data:audio/mpeg;base64," + base64.StdEncoding.EncodeToString(readFixture(b, "speech-22k-mono.mp3"))
	for _, bc := range []struct {
		name, unit string
		size       int
	}{
		{"first_chunk", "µs/first_pcm", 1},
		{"first_100ms", "µs/first_100ms", playback.OutputFormat.BytesPerSecond() / 10},
	} {
		b.Run(bc.name, func(b *testing.B) {
			buf := make([]byte, bc.size)
			var first time.Duration
			for b.Loop() {
				start := time.Now()
				r, err := playback.OpenDataURI(uri)
				if err != nil {
					b.Fatal(err)
				}
				s := playback.NewStream(b.Context(), r, playback.OutputFormat)
				if _, err := io.ReadFull(s, buf); err != nil {
					b.Fatal(err)
				}
				first += time.Since(start)
				s.Close() // not counted: the player closes a stream after it played
			}
			b.ReportMetric(float64(first.Microseconds())/float64(b.N), bc.unit)
		})
	}
}

// BenchmarkStop_RealDevice measures how long Stop takes to silence a clip playing on the real
// output (oto into a PulseAudio null sink): until Stop returns, with the voice paused, and until
// the clip's ClipEnded event. Sound already in the device buffer (about 43 ms at 48 kHz with
// oto's default period) and PulseAudio's latency come on top.
func BenchmarkStop_RealDevice(b *testing.B) {
	testenv.RequireCommands(b, "pulseaudio")
	testenv.StartPulse(b)
	if err := playback.OpenOutput(); err != nil {
		b.Skipf("no output in this process (another test opened it first?): %v", err)
	}
	data, err := os.ReadFile("testdata/tone440-24k-mono.mp3")
	if err != nil {
		b.Fatal(err)
	}
	events := make(chan playback.Event, 16)
	p := playback.New(func(e playback.Event) { events <- e })
	b.Cleanup(func() { p.Close() })
	var inStop, toEnded time.Duration
	for b.Loop() {
		if _, err := p.Enqueue(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
		for e := range events {
			if e.Kind == playback.ClipStarted {
				break
			}
		}
		start := time.Now()
		p.Stop()
		inStop += time.Since(start)
		for e := range events {
			if e.Kind == playback.ClipEnded {
				toEnded += e.At.Sub(start)
			}
			if e.Kind == playback.QueueDrained {
				break
			}
		}
	}
	b.ReportMetric(float64(inStop.Microseconds())/float64(b.N), "µs/stop")
	b.ReportMetric(float64(toEnded.Microseconds())/float64(b.N), "µs/stop_to_ended")
}
