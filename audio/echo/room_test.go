package echo_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"parley/audio"
	"parley/audio/echo"
	"parley/audio/playback"
	"parley/internal/testenv"
)

// replySentences are a spoken reply, one clip each, as Parley plays them.
var replySentences = []string{
	"The weather in Paris today is mild, with a light breeze from the west.",
	"There is a chance of rain in the evening, so take an umbrella if you go out late.",
	"Tomorrow will be sunnier, and the temperature should reach twenty degrees by the afternoon.",
	"The weekend looks dry and warm, good for a walk along the river.",
	"Would you like to hear the forecast for the rest of the week as well?",
}

// spokenClips makes each sentence into an MP3 clip with flite's voice and lame, as the
// built-in service does.
func spokenClips(tb testing.TB, voice string, sentences []string) [][]byte {
	tb.Helper()
	testenv.RequireCommands(tb, "flite", "lame")
	dir := tb.TempDir()
	var clips [][]byte
	for i, s := range sentences {
		wav := filepath.Join(dir, fmt.Sprintf("s%d.wav", i))
		mp3 := filepath.Join(dir, fmt.Sprintf("s%d.mp3", i))
		if out, err := exec.Command("flite", "-voice", voice, "-t", s, "-o", wav).CombinedOutput(); err != nil {
			tb.Fatalf("flite: %v: %s", err, out)
		}
		if out, err := exec.Command("lame", "--quiet", "-b", "48", wav, mp3).CombinedOutput(); err != nil {
			tb.Fatalf("lame: %v: %s", err, out)
		}
		b, err := os.ReadFile(mp3)
		if err != nil {
			tb.Fatal(err)
		}
		clips = append(clips, b)
	}
	return clips
}

// roomResult is what the microphone heard in the simulated room while a reply played, before
// and after the canceller.
type roomResult struct {
	raw, out []float64 // mean square of each 20 ms frame
	stats    echo.Stats
	cpu      time.Duration // the canceller's own time
	frames   int
}

// startRoom starts a sound server with a simulated room in which the echo is at gain dB, for
// the rest of the test, and returns its microphone.
func startRoom(tb testing.TB, gain float64) string {
	tb.Helper()
	if err := echo.Available(); err != nil {
		if testenv.InCI() {
			tb.Fatal(err)
		}
		tb.Skip(err)
	}
	p := testenv.StartPulse(tb)
	p.StartRoom(tb, gain)
	return p.Monitor
}

// inRoom plays clips into the room whose microphone is micName, and cancels what the microphone
// hears with a new canceller.
func inRoom(tb testing.TB, micName string, clips [][]byte) roomResult {
	tb.Helper()
	c, err := echo.New()
	if err != nil {
		tb.Fatal(err)
	}
	defer c.Close()
	playback.SetTap(func(pcm []byte, f playback.Format, at time.Time) { c.Played(pcm, f.SampleRate, f.Channels, at) })
	defer playback.SetTap(nil)
	if err := playback.OpenOutput(); err != nil {
		tb.Fatal(err)
	}
	mic, err := audio.OpenCapture(audio.BackendPulse, micName)
	if err != nil {
		tb.Fatal(err)
	}
	defer mic.Close()

	var res roomResult
	var mu sync.Mutex
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	read := make(chan struct{})
	go func() {
		defer close(read)
		f := make([]int16, echo.FrameSamples)
		for {
			if err := mic.ReadFrame(ctx, f); err != nil {
				return
			}
			raw := meanSquare(f)
			start := time.Now()
			c.Cancel(f, start)
			took := time.Since(start)
			mu.Lock()
			res.raw = append(res.raw, raw)
			res.out = append(res.out, meanSquare(f))
			res.cpu += took

			mu.Unlock()
		}
	}()
	drained := make(chan struct{})
	player := playback.New(func(ev playback.Event) {
		if ev.Kind == playback.QueueDrained {
			close(drained)
		}
	})
	defer player.Close()
	for _, clip := range clips {
		if _, err := player.Enqueue(strings.NewReader(string(clip))); err != nil {
			tb.Fatal(err)
		}
	}
	select {
	case <-drained:
	case <-time.After(2 * time.Minute):
		tb.Fatal("the reply never finished playing")
	}
	time.Sleep(1500 * time.Millisecond) // the room's delay and its reverberation
	cancel()
	<-read
	res.stats = c.Stats()
	res.frames = len(res.raw)
	return res
}

func meanSquare(s []int16) float64 {
	var e float64
	for _, v := range s {
		x := float64(v) / 32768
		e += x * x
	}
	return e / float64(len(s))
}

// erle is the echo return loss enhancement over the frames from from on in which the echo is
// audible (over -50 dBFS before the canceller).
func (r roomResult) erle(from int) float64 {
	var in, left float64
	for i := from; i < len(r.raw); i++ {
		if 10*math.Log10(r.raw[i]+1e-20) < -50 {
			continue
		}
		in += r.raw[i]
		left += r.out[i]
	}
	return 10 * math.Log10(in/max(left, 1e-20))
}

// medianERLE is the median of the ERLE of each half second from from on (frames in which the
// echo is heard): the canceller's level between the moments the room's delay jumps.
func (r roomResult) medianERLE(from int) float64 {
	var each []float64
	for i := from; i+25 <= len(r.raw); i += 25 {
		var in, left float64
		for k := i; k < i+25; k++ {
			if 10*math.Log10(r.raw[k]+1e-20) >= -50 {
				in += r.raw[k]
				left += r.out[k]
			}
		}
		if in > 0 {
			each = append(each, 10*math.Log10(in/max(left, 1e-20)))
		}
	}
	if len(each) == 0 {
		return math.Inf(-1)
	}
	slices.Sort(each)
	return each[len(each)/2]
}

// converged is where the figures start: 5 s into the reply.
const converged = 250

// In the simulated room, through PulseAudio, the canceller finds the delay and takes the echo
// down.
func TestCanceller_SimulatedRoom(t *testing.T) {
	if testenv.Race {
		// The room plays in real time; the race detector makes the canceller about ten times
		// slower (9 s of work for a 24 s reply on CI's machine), so it falls behind the room and
		// measures that, not itself. make test runs this test again without it.
		t.Skip("measured without the race detector (make test's unit-c-locale run)")
	}
	res := inRoom(t, startRoom(t, -4), spokenClips(t, "slt", replySentences))
	e, med := res.erle(converged), res.medianERLE(converged)
	t.Logf("ERLE after 5 s %.1f dB (median of its half seconds %.1f dB), %+v, canceller %v for %d frames",
		e, med, res.stats, res.cpu, res.frames)
	if !res.stats.DelayKnown {
		t.Fatal("the canceller never found the echo's delay")
	}
	// The room's delay jumps by a few milliseconds every few seconds in some runs, and each jump
	// costs the canceller a moment: the floors are well under what it does between them.
	if e < 6 || med < 15 {
		t.Errorf("the echo is %.1f dB quieter after the canceller (median %.1f dB), want at least 6 dB (median 15 dB)", e, med)
	}
}

// BenchmarkCanceller_SimulatedRoom reports the echo return loss enhancement in the simulated
// room from 5 s into a 23 s reply (over the whole, and the median of its half seconds), with the
// echo 4 dB under what is played and 2 dB over it, and the canceller's CPU time per second of
// audio. Each iteration is a new canceller in the same room.
func BenchmarkCanceller_SimulatedRoom(b *testing.B) {
	clips := spokenClips(b, "slt", replySentences)
	for _, gain := range []float64{-4, 2} {
		b.Run(fmt.Sprintf("gain%+.0fdB", gain), func(b *testing.B) {
			mic := startRoom(b, gain)
			var erle, med, cpu float64
			for range b.N {
				res := inRoom(b, mic, clips)
				erle += res.erle(converged)
				med += res.medianERLE(converged)
				b.Logf("ERLE after 5 s %.1f dB (median %.1f dB), %+v", res.erle(converged), res.medianERLE(converged), res.stats)
				cpu += float64(res.cpu) / float64(time.Duration(res.frames)*20*time.Millisecond)
			}
			b.ReportMetric(erle/float64(b.N), "ERLE-dB")
			b.ReportMetric(med/float64(b.N), "median-ERLE-dB")
			b.ReportMetric(100*cpu/float64(b.N), "cpu-%")
			b.ReportMetric(0, "ns/op")
		})
	}
}
