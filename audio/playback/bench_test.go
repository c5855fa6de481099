package playback_test

import (
	"bytes"
	"encoding/base64"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
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
// 100 ms the player decodes before it starts the voice; at the speed a reply is made, and at
// 1.5× (libsonic holds two pitch periods before its first output, and 100 ms of output takes
// 150 ms of the clip).
func BenchmarkFirstPCM(b *testing.B) {
	uri := "data:audio/mpeg;base64," + base64.StdEncoding.EncodeToString(readFixture(b, "speech-slt-24k-mono.mp3"))
	for _, bc := range []struct {
		name, unit string
		size       int
	}{
		{"first_chunk", "µs/first_pcm", 1},
		{"first_100ms", "µs/first_100ms", playback.OutputFormat.BytesPerSecond() / 10},
	} {
		for _, speed := range []float64{1, 1.5} {
			if speed != 1 && playback.SpeedAvailable() != nil {
				continue
			}
			b.Run(bc.name+"/"+strconv.FormatFloat(speed, 'f', -1, 64)+"x", func(b *testing.B) {
				buf := make([]byte, bc.size)
				var first time.Duration
				for b.Loop() {
					start := time.Now()
					r, err := playback.OpenDataURI(uri)
					if err != nil {
						b.Fatal(err)
					}
					s := playback.NewStreamAtSpeed(b.Context(), r, playback.OutputFormat, speed)
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
}

// BenchmarkStop_RealDevice measures how long Stop takes to silence a clip playing on the real
// output (ALSA into a PulseAudio null sink): until Stop returns, with the voice paused, and until
// the clip's ClipEnded event. Sound already in the device buffer (about 43 ms at 48 kHz, two
// periods of 1024 frames) and PulseAudio's latency come on top.
func BenchmarkStop_RealDevice(b *testing.B) {
	testenv.RequireCommands(b, "pulseaudio")
	testenv.StartPulse(b)
	if err := playback.OpenOutput(); err != nil {
		b.Fatal(err)
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

// cpuTime is the CPU time this process has used, user and system, from /proc/self/stat.
func cpuTime(b *testing.B) time.Duration {
	b.Helper()
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		b.Fatal(err)
	}
	s := string(stat)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:]) // fields from the 3rd on
	var ticks int64
	for _, v := range f[11:13] { // utime and stime, fields 14 and 15, in clock ticks of 10 ms
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			b.Fatal(err)
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}

// BenchmarkIdleCPU_RealDevice measures the CPU this process uses, in percent of one core, after it
// played one clip into a PulseAudio null sink: while the output stays open (IdleClose), and over
// the 20 s after that. It also reports the playback streams the server still has then, and this
// process's open sockets (the ALSA plugin's connection). Run it alone, with -benchtime 1x.
func BenchmarkIdleCPU_RealDevice(b *testing.B) {
	testenv.RequireCommands(b, "pactl", "parec")
	pulse := testenv.StartPulse(b)
	// A program records the sink's monitor, into /dev/null, so that the null sink runs in short
	// periods as a sound card does: with no client asking for a low latency it renders 2 s at a
	// time, and an output writing to it is woken that seldom.
	parec := exec.Command("parec", "--device="+pulse.Monitor, "--raw", "--latency-msec=20")
	if err := parec.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		parec.Process.Kill()
		parec.Wait()
	})
	data := readFixture(b, "tone440-24k-mono.mp3")
	events := make(chan playback.Event, 16)
	p := playback.New(func(e playback.Event) { events <- e })
	b.Cleanup(func() { p.Close() })
	var open, idle time.Duration
	var openCPU, idleCPU time.Duration
	streams, socks := 0, 0
	for b.Loop() {
		if _, err := p.Enqueue(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
		for e := range events {
			if e.Kind == playback.ClipEnded && e.Err != nil {
				b.Fatal(e.Err)
			}
			if e.Kind == playback.QueueDrained {
				break
			}
		}
		c0, t0 := cpuTime(b), time.Now()
		time.Sleep(playback.IdleClose + 500*time.Millisecond) // idle is what is measured
		c1, t1 := cpuTime(b), time.Now()
		time.Sleep(20 * time.Second)
		openCPU += c1 - c0
		open += t1.Sub(t0)
		idleCPU += cpuTime(b) - c1
		idle += time.Since(t1)
		streams += len(sinkInputs(b))
		socks += sockets(b)
	}
	b.ReportMetric(100*openCPU.Seconds()/open.Seconds(), "%cpu_first_5.5s")
	b.ReportMetric(100*idleCPU.Seconds()/idle.Seconds(), "%cpu_next_20s")
	b.ReportMetric(float64(streams)/float64(b.N), "streams")
	b.ReportMetric(float64(socks)/float64(b.N), "sockets")
}

// BenchmarkClipStart_RealDevice measures the time from Enqueue to ClipStarted for a clip played
// into a PulseAudio null sink, with the output already open, and closed (opened for the clip):
// what closing the idle output costs the next reply.
func BenchmarkClipStart_RealDevice(b *testing.B) {
	testenv.RequireCommands(b, "pactl", "parec")
	// A null sink with no client asking for a low latency renders 2 s at a time, and a stream that
	// stays open then waits that long to write: record its monitor, as the tests do.
	startRecording(b, testenv.StartPulse(b))
	data := readFixture(b, "tone440-24k-mono.mp3")
	events := make(chan playback.Event, 16)
	p := playback.New(func(e playback.Event) { events <- e })
	b.Cleanup(func() { p.Close() })
	play := func() time.Duration {
		start := time.Now()
		if _, err := p.Enqueue(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
		var d time.Duration
		for e := range events {
			if e.Kind == playback.ClipStarted {
				d = e.At.Sub(start)
			}
			if e.Kind == playback.QueueDrained {
				break
			}
		}
		return d
	}
	for _, bc := range []struct {
		name string
		idle time.Duration
	}{{"open", time.Hour}, {"closed", time.Millisecond}} {
		b.Run(bc.name, func(b *testing.B) {
			playback.SetIdleCloseForTest(b, bc.idle)
			play() // the output opened once, and closing if it closes
			var total time.Duration
			for b.Loop() {
				b.StopTimer()
				if bc.idle < time.Second {
					waitNoStream(b, 30*time.Second)
				}
				b.StartTimer()
				total += play()
			}
			b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms/clip_started")
		})
	}
}
