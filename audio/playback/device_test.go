package playback_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"parley/audio/playback"
	"parley/internal/testenv"
)

// Most device tests run the player in a child process (this test binary, re-executed), which
// opens the output inside the environment the parent set up (an ALSA configuration pointing
// nowhere, for one) and plays as a program that plays one clip and exits does.
// TestPlayer_RealDeviceClosesWhenIdle plays in the test's own process: the output opens and
// closes any number of times there.
const (
	childEnv       = "PARLEY_PLAYBACK_CHILD"        // "play": play the file, report, exit
	childFileEnv   = "PARLEY_PLAYBACK_CHILD_FILE"   // the MP3 to play
	childVolumeEnv = "PARLEY_PLAYBACK_CHILD_VOLUME" // the volume to play it at
	childStopEnv   = "PARLEY_PLAYBACK_CHILD_STOP"   // if set, Stop this long after the first clip started
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "play" {
		os.Exit(childPlay())
	}
	os.Exit(m.Run())
}

// childPlay plays the files through the real output and exits 0 when they played to their end,
// 3 when there is no output device and the player still worked as it should without one (every
// clip ends with ErrNoDevice, the queue drains, decoding works), 1 on any other failure.
func childPlay() int {
	noDevice := false
	if err := playback.OpenOutput(); err != nil {
		fmt.Println("open:", err)
		if !errors.Is(err, playback.ErrNoDevice) {
			return 1
		}
		noDevice = true
	}
	var clips [][]byte
	for _, name := range strings.Split(os.Getenv(childFileEnv), ",") {
		data, err := os.ReadFile(name)
		if err != nil {
			fmt.Println(err)
			return 1
		}
		clips = append(clips, data)
	}
	volume, err := strconv.ParseFloat(os.Getenv(childVolumeEnv), 64)
	if err != nil {
		fmt.Println(err)
		return 1
	}
	var stopAfter time.Duration
	if v := os.Getenv(childStopEnv); v != "" {
		if stopAfter, err = time.ParseDuration(v); err != nil {
			fmt.Println(err)
			return 1
		}
	}
	var clipErr error
	drained := make(chan struct{})
	var p *playback.Player
	p = playback.New(func(e playback.Event) {
		fmt.Printf("event: %v clip=%d err=%v\n", e.Kind, e.Clip, e.Err)
		switch e.Kind {
		case playback.ClipStarted:
			if stopAfter > 0 && e.Clip == 1 {
				started := e.At
				time.AfterFunc(stopAfter, func() {
					t0 := time.Now()
					p.Stop()
					fmt.Printf("stop: %v after the clip started, returned in %v\n", t0.Sub(started), time.Since(t0))
				})
			}
		case playback.ClipEnded:
			clipErr = errors.Join(clipErr, e.Err)
		case playback.QueueDrained:
			close(drained)
		}
	})
	p.SetVolume(volume)
	for _, data := range clips {
		if _, err := p.Enqueue(bytes.NewReader(data)); err != nil {
			fmt.Println(err)
			return 1
		}
	}
	select {
	case <-drained:
	case <-time.After(20 * time.Second):
		fmt.Println("the queue did not drain within 20 s")
		return 1
	}
	p.Close()
	if noDevice {
		if !errors.Is(clipErr, playback.ErrNoDevice) {
			fmt.Println("without a device, the clips ended with", clipErr, "want ErrNoDevice")
			return 1
		}
		if pcm, err := playback.DecodeAll(context.Background(), bytes.NewReader(clips[0]), playback.OutputFormat); err != nil || len(pcm) == 0 {
			fmt.Println("without a device, decoding failed:", err)
			return 1
		}
		return 3
	}
	time.Sleep(playback.DrainTime) // what the device still holds; nothing signals its end
	if stopAfter > 0 && errors.Is(clipErr, playback.ErrStopped) {
		return 0
	}
	if clipErr != nil {
		return 1
	}
	return 0
}

// capture records the sink's monitor as 48 kHz mono until it has heard a sound and then 300 ms
// of silence after it.
type capture struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when the sound and the silence after it were heard, or parec ended

	mu  sync.Mutex
	pcm []byte
}

const captureRate = 48000

func startCapture(t *testing.T, p *testenv.Pulse) *capture {
	t.Helper()
	cmd := exec.Command("parec", "--device="+p.Monitor, "--format=s16le", "--rate=48000", "--channels=1", "--raw", "--latency-msec=20")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("parec: %v", err)
	}
	c := &capture{cmd: cmd, done: make(chan struct{})}
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		c.read(stdout)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		cmd.Wait()
		if t.Failed() {
			t.Logf("parec stderr: %s", stderr.String())
		}
	})
	return c
}

func (c *capture) read(r io.Reader) {
	defer func() {
		select {
		case <-c.done:
		default:
			close(c.done)
		}
	}()
	const block = captureRate / 20 * 2 // 50 ms
	buf := make([]byte, block)
	heard, quiet := false, 0
	for {
		if _, err := io.ReadFull(r, buf); err != nil {
			return
		}
		c.mu.Lock()
		c.pcm = append(c.pcm, buf...)
		c.mu.Unlock()
		level := rmsDB(samples(buf, 1))
		switch {
		case level > -40:
			heard, quiet = true, 0
		case heard:
			quiet++
			if quiet == 6 {
				close(c.done)
				// Keep draining so parec never blocks, until it is killed.
				io.Copy(io.Discard, r)
				return
			}
		}
	}
}

// tone waits for the captured sound and returns its samples (from the first to the last loud block).
func (c *capture) tone(t *testing.T) []float64 {
	t.Helper()
	select {
	case <-c.done:
	case <-time.After(20 * time.Second):
		t.Fatal("heard no sound followed by silence on the monitor within 20 s")
	}
	c.mu.Lock()
	x := samples(c.pcm, 1)
	c.mu.Unlock()
	first, last := -1, -1
	for i, v := range x {
		if math.Abs(v) > 0.05 {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		t.Fatal("the monitor captured only silence")
	}
	return x[first : last+1]
}

func makeTone(t *testing.T, seconds float64) string {
	t.Helper()
	testenv.RequireCommands(t, "sox", "lame")
	dir := t.TempDir()
	wav, mp3 := filepath.Join(dir, "tone.wav"), filepath.Join(dir, "tone.mp3")
	if out, err := exec.Command("sox", "-n", "-r", "24000", "-c", "1", wav, "synth", fmt.Sprint(seconds), "sine", "440", "vol", "0.5").CombinedOutput(); err != nil {
		t.Fatalf("sox: %v: %s", err, out)
	}
	if out, err := exec.Command("lame", "--quiet", "-b", "64", wav, mp3).CombinedOutput(); err != nil {
		t.Fatalf("lame: %v: %s", err, out)
	}
	return mp3
}

func runChild(t *testing.T, file string, volume float64, extraEnv ...string) (string, error) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=play", childFileEnv+"="+file, childVolumeEnv+"="+fmt.Sprint(volume))
	cmd.Env = append(cmd.Env, extraEnv...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestPlayer_RealDevice plays a 440 Hz tone through the ALSA output into a PulseAudio null sink
// and checks what its monitor hears: the tone, at the level the volume asks for.
func TestPlayer_RealDevice(t *testing.T) {
	testenv.RequireCommands(t, "parec")
	pulse := testenv.StartPulse(t)
	tone := makeTone(t, 1)
	tests := []struct {
		name   string
		volume float64
		wantDB float64
	}{
		{"full volume", 1, toneRMS},
		{"half volume is 6 dB down", 0.5, toneRMS - 6.02},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := startCapture(t, pulse)
			if out, err := runChild(t, tone, tt.volume); err != nil {
				t.Fatalf("playing in the child: %v\n%s", err, out)
			}
			x := c.tone(t)
			if d := loudTime(x, captureRate); d < 950*time.Millisecond || d > 1300*time.Millisecond {
				t.Errorf("heard %v of tone, want about 1 s", d)
			}
			m := middle(x)
			t.Logf("heard %v of tone at %.2f dBFS, %.1f Hz (volume %v)",
				loudTime(x, captureRate), blockMedian(m, rmsDB), blockMedian(m, toneFrequency), tt.volume)
			if got := blockMedian(m, rmsDB); math.Abs(got-tt.wantDB) > 1.5 {
				t.Errorf("captured level %.2f dBFS, want %.2f ± 1.5", got, tt.wantDB)
			}
			if got := blockMedian(m, toneFrequency); math.Abs(got-440) > 5 {
				t.Errorf("captured frequency %.1f Hz, want 440", got)
			}
		})
	}
}

// TestPlayer_RealDeviceBackToBack plays two half-second tones queued together and checks that
// the monitor hears both, one after the other (not mixed over each other, which would be shorter
// and 6 dB louder).
func TestPlayer_RealDeviceBackToBack(t *testing.T) {
	testenv.RequireCommands(t, "parec")
	pulse := testenv.StartPulse(t)
	tone := makeTone(t, 0.5)
	c := startCapture(t, pulse)
	if out, err := runChild(t, tone+","+tone, 1); err != nil {
		t.Fatalf("playing in the child: %v\n%s", err, out)
	}
	x := c.tone(t)
	d := loudTime(x, captureRate)
	m := middle(x)
	t.Logf("heard %v of tone at %.2f dBFS", d, blockMedian(m, rmsDB))
	// Each MP3 carries up to about 50 ms of encoder delay and padding, so a little more than 1 s.
	if d < 950*time.Millisecond || d > 1300*time.Millisecond {
		t.Errorf("heard %v of tone, want the two clips' 1 s", d)
	}
	if got := blockMedian(m, rmsDB); math.Abs(got-toneRMS) > 1.5 {
		t.Errorf("captured level %.2f dBFS, want %.2f ± 1.5", got, toneRMS)
	}
}

// TestOpenOutput_NoDevice checks that a process with no audio output is told so, as ErrNoDevice,
// and that its player still works: clips end with ErrNoDevice and the queue drains (see childPlay).
func TestOpenOutput_NoDevice(t *testing.T) {
	tests := []struct {
		name string
		conf string // the ALSA configuration's default device
	}{
		{"PulseAudio not running", "pcm.!default { type pulse }\nctl.!default { type pulse }\n"},
		{"no such sound card", "pcm.!default { type hw card 9 }\nctl.!default { type hw card 9 }\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			conf := filepath.Join(dir, "asound.conf")
			if err := os.WriteFile(conf, []byte(tt.conf), 0o600); err != nil {
				t.Fatal(err)
			}
			out, err := runChild(t, filepath.Join("testdata", "tiny-22k-mono.mp3"), 1,
				"ALSA_CONFIG_PATH=/usr/share/alsa/alsa.conf:"+conf,
				"PULSE_SERVER=unix:"+filepath.Join(dir, "no-such-socket"), "PULSE_RUNTIME_PATH="+dir, "XDG_RUNTIME_DIR="+dir,
				"HOME="+dir)
			t.Logf("child said: %s", strings.TrimSpace(out))
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 3 {
				t.Fatalf("child = %v, want exit status 3 (no device, the player still working)\n%s", err, out)
			}
			if !strings.Contains(out, "no audio output device") {
				t.Errorf("child said %q, want it to name the missing output device", out)
			}
		})
	}
}

// recording captures everything the sink's monitor hears, as 48 kHz mono, until the test ends.
type recording struct {
	grew chan struct{} // signalled after each block

	mu  sync.Mutex
	pcm []byte
}

func startRecording(t testing.TB, p *testenv.Pulse) *recording {
	t.Helper()
	cmd := exec.Command("parec", "--device="+p.Monitor, "--format=s16le", "--rate=48000", "--channels=1", "--raw", "--latency-msec=20")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("parec: %v", err)
	}
	r := &recording{grew: make(chan struct{}, 1)}
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		buf := make([]byte, captureRate/50*2) // 20 ms
		for {
			n, err := stdout.Read(buf)
			r.mu.Lock()
			r.pcm = append(r.pcm, buf[:n]...)
			r.mu.Unlock()
			select {
			case r.grew <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		cmd.Wait()
	})
	return r
}

// len returns the number of bytes recorded so far.
func (r *recording) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.pcm)
}

// waitLen waits until at least n bytes were recorded and returns a copy of the recording.
func (r *recording) waitLen(t *testing.T, n int) []byte {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for r.len() < n {
		select {
		case <-r.grew:
		case <-timeout:
			t.Fatalf("the monitor delivered %d bytes within 20 s, want %d", r.len(), n)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]byte(nil), r.pcm...)
}

func peakDB(x []float64) float64 {
	var peak float64
	for _, v := range x {
		peak = max(peak, math.Abs(v))
	}
	return 20 * math.Log10(peak+1e-10)
}

// loudTime is how much of x (at rate) is sound, not silence: the number of 10 ms blocks that peak
// above -40 dBFS. Unlike the span from the first to the last sound, it does not count dropouts,
// which a sound server starved of CPU on a loaded machine inserts.
func loudTime(x []float64, rate int) time.Duration {
	block := rate / 100
	n := 0
	for i := 0; i < len(x); i += block {
		if peakDB(x[i:min(i+block, len(x))]) > -40 {
			n++
		}
	}
	return time.Duration(n) * 10 * time.Millisecond
}

// soundSpan returns the indices of the first and last sample louder than -40 dBFS, or -1, -1.
func soundSpan(x []float64) (first, last int) {
	first, last = -1, -1
	for i, v := range x {
		if math.Abs(v) > 0.01 {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	return first, last
}

// makeSpeech writes an MP3 of espeak-ng speech (22.05 kHz mono, so the player resamples it) and
// returns it with how long the speech in it is loud (see loudTime) and lasts, from its first to
// its last loud sample.
func makeSpeech(t *testing.T, text string) (file string, loud, span time.Duration) {
	t.Helper()
	testenv.RequireCommands(t, "espeak-ng", "lame")
	dir := t.TempDir()
	wav, mp3 := filepath.Join(dir, "speech.wav"), filepath.Join(dir, "speech.mp3")
	if out, err := exec.Command("espeak-ng", "-v", "en-us", "-w", wav, text).CombinedOutput(); err != nil {
		t.Fatalf("espeak-ng: %v: %s", err, out)
	}
	if out, err := exec.Command("lame", "--quiet", "-b", "48", wav, mp3).CombinedOutput(); err != nil {
		t.Fatalf("lame: %v: %s", err, out)
	}
	data, err := os.ReadFile(wav)
	if err != nil {
		t.Fatal(err)
	}
	const header = 44 // espeak-ng writes a plain 44-byte WAV header, 22050 Hz mono S16LE
	first, last := soundSpan(samples(data[header:], 1))
	if first < 0 {
		t.Fatal("espeak-ng wrote silence")
	}
	x := samples(data[header:], 1)[first : last+1]
	return mp3, loudTime(x, 22050), time.Duration(len(x)) * time.Second / 22050
}

// TestPlayer_RealDeviceSpeech plays espeak-ng speech through the ALSA output into a PulseAudio
// null sink and records the monitor from before the player starts until well after it ends: the
// speech is heard at a useful level and for its whole length, and before and after it the output
// is silent (no clicks, hum or a stuck buffer replaying).
func TestPlayer_RealDeviceSpeech(t *testing.T) {
	testenv.RequireCommands(t, "parec")
	pulse := testenv.StartPulse(t)
	speech, want, wantSpan := makeSpeech(t, "Hello from Parley. The weather today is sunny and warm.")
	rec := startRecording(t, pulse)
	const second = captureRate * 2
	rec.waitLen(t, second/5) // 200 ms of what the sink outputs before anything plays
	before := rec.len()
	if out, err := runChild(t, speech, 1); err != nil {
		t.Fatalf("playing in the child: %v\n%s", err, out)
	}
	// The monitor lags the sink by up to about 1.2 s (NOTES): wait past that for the silence after.
	end := rec.len()
	x := samples(rec.waitLen(t, end+2*second), 1)
	head, tail := x[:before/2], x[len(x)-captureRate/4:] // before the child started; the last 250 ms
	first, last := soundSpan(x)
	if first < 0 {
		t.Fatal("the monitor heard only silence")
	}
	got := loudTime(x[first:last+1], captureRate)
	if span := time.Duration(last-first) * time.Second / captureRate; span > wantSpan+50*time.Millisecond {
		t.Logf("the speech came out over %v, not %v: dropouts (a loaded machine starving the sound server)", span, wantSpan)
	}
	t.Logf("heard %v of speech (the WAV holds %v) peaking at %.1f dBFS; before it %.1f dBFS, after it %.1f dBFS",
		got, want, peakDB(x[first:last+1]), peakDB(head), peakDB(tail))
	if p := peakDB(x[first : last+1]); p < -30 {
		t.Errorf("speech peaks at %.1f dBFS, want above -30", p)
	}
	if got < want*9/10 || got > want*11/10+100*time.Millisecond {
		t.Errorf("heard %v of speech, want about %v", got, want)
	}
	for _, s := range []struct {
		name string
		x    []float64
	}{{"before", head}, {"after", tail}} {
		if p := peakDB(s.x); p > -60 {
			t.Errorf("the output %s the speech peaks at %.1f dBFS, want silence (below -60)", s.name, p)
		}
	}
}

// TestPlayer_RealDeviceStop plays a 2 s tone through the real output and stops it 500 ms after
// it started: the monitor hears about half a second, not the whole clip. It logs how much sound
// came out after Stop (the device buffer's worth is expected; the goal is under 50 ms).
func TestPlayer_RealDeviceStop(t *testing.T) {
	testenv.RequireCommands(t, "parec")
	pulse := testenv.StartPulse(t)
	tone := makeTone(t, 2)
	rec := startRecording(t, pulse)
	const second = captureRate * 2
	rec.waitLen(t, second/5) // parec is connected and hearing the sink
	out, err := runChild(t, tone, 1, childStopEnv+"=500ms")
	if err != nil {
		t.Fatalf("playing in the child: %v\n%s", err, out)
	}
	if !strings.Contains(out, "err=playback stopped") {
		t.Errorf("the clip did not end as stopped:\n%s", out)
	}
	x := samples(rec.waitLen(t, rec.len()+2*second), 1)
	first, last := soundSpan(x)
	if first < 0 {
		t.Fatal("the monitor heard only silence")
	}
	heard := loudTime(x[first:last+1], captureRate)
	var stopAt, inStop time.Duration
	for line := range strings.Lines(out) {
		if rest, ok := strings.CutPrefix(line, "stop: "); ok {
			at, in, _ := strings.Cut(strings.TrimSpace(rest), " after the clip started, returned in ")
			stopAt, _ = time.ParseDuration(at)
			inStop, _ = time.ParseDuration(in)
		}
	}
	// The MP3 begins with the encoder's delay, near silence: the tone is heard that much after
	// the clip started.
	data, err := os.ReadFile(tone)
	if err != nil {
		t.Fatal(err)
	}
	pcm, err := playback.DecodeAll(t.Context(), bytes.NewReader(data), playback.OutputFormat)
	if err != nil {
		t.Fatal(err)
	}
	lead, _ := soundSpan(samples(pcm, playback.OutputFormat.Channels))
	leadTime := time.Duration(lead) * time.Second / time.Duration(playback.OutputFormat.SampleRate)
	t.Logf("Stop came %v after the clip started and returned in %v; the monitor heard %v of tone, which began %v into the clip: %v of sound after Stop",
		stopAt, inStop, heard, leadTime, heard+leadTime-stopAt)
	if heard > time.Second {
		t.Errorf("heard %v of the 2 s tone stopped after 500 ms: Stop did not silence it", heard)
	}
}

// blockMedian applies f to each 200 ms block of x and returns the median: a dropout of a few
// milliseconds (a loaded machine starving the sound server) spoils one block, not the measure.
func blockMedian(x []float64, f func([]float64) float64) float64 {
	const block = captureRate / 5
	var v []float64
	for i := 0; i+block <= len(x); i += block {
		v = append(v, f(x[i:i+block]))
	}
	if len(v) == 0 {
		return f(x)
	}
	slices.Sort(v)
	return v[len(v)/2]
}

func toneFrequency(x []float64) float64 { return frequency(x, captureRate) }

// sinkInputs returns the playback streams the sound server has, one line each.
func sinkInputs(t testing.TB) []string {
	t.Helper()
	out, err := exec.Command("pactl", "list", "short", "sink-inputs").CombinedOutput()
	if err != nil {
		t.Fatalf("pactl list short sink-inputs: %v: %s", err, out)
	}
	var streams []string
	for line := range strings.Lines(string(out)) {
		if line = strings.TrimSpace(line); line != "" {
			streams = append(streams, line)
		}
	}
	return streams
}

// waitNoStream polls the sound server until it has had no playback stream for three polls in a
// row, for up to d. One poll is not enough: an output that stays open re-creates its stream after
// an underrun (ALSA's PulseAudio plugin does, to recover), and a poll can fall between the two.
func waitNoStream(t testing.TB, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for absent := 0; ; time.Sleep(100 * time.Millisecond) { // nothing signals it: ask pactl
		if len(sinkInputs(t)) > 0 {
			absent = 0
		} else if absent++; absent == 3 {
			return
		}
		if absent == 0 && time.Now().After(deadline) {
			out, _ := exec.Command("pactl", "list", "short", "sink-inputs").CombinedOutput()
			t.Fatalf("the sound server still has a stream after %v (IdleClose is %v):\n%s", d, playback.IdleClose, out)
		}
	}
}

// sockets counts the process's open sockets: the connections the PulseAudio plugin of ALSA makes.
func sockets(t testing.TB) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.HasPrefix(target, "socket:") {
			n++
		}
	}
	return n
}

// pulseThreads counts this process's threads named as libpulse names the thread of its main
// loop, which the ALSA plugin starts for each open device and joins when it is closed.
func pulseThreads(t testing.TB) int {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, task := range tasks {
		if comm, err := os.ReadFile(filepath.Join("/proc/self/task", task.Name(), "comm")); err == nil && strings.TrimSpace(string(comm)) == "threaded-ml" {
			n++
		}
	}
	return n
}

// playAndDrain plays the MP3 through p and waits until its queue drained; the clip must have
// played to its end.
func playAndDrain(t *testing.T, p *playback.Player, events <-chan playback.Event, data []byte) {
	t.Helper()
	if _, err := p.Enqueue(bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case e := <-events:
			if e.Kind == playback.ClipEnded && e.Err != nil {
				t.Fatalf("the clip ended with %v", e.Err)
			}
			if e.Kind == playback.QueueDrained {
				return
			}
		case <-time.After(20 * time.Second):
			t.Fatal("the queue did not drain within 20 s")
		}
	}
}

// TestPlayer_RealDeviceClosesWhenIdle plays a tone into a PulseAudio null sink, waits until the
// output has closed (no stream at the server; the ALSA plugin's connection and libpulse's thread
// gone from the process), plays it again, and checks that the monitor hears the second tone
// whole, at its level, its start exactly as decoded (nothing cut, no click as the device opens),
// and that the output closes again after it. It plays in the test's own process.
func TestPlayer_RealDeviceClosesWhenIdle(t *testing.T) {
	testenv.RequireCommands(t, "parec")
	pulse := testenv.StartPulse(t)
	file := makeTone(t, 1)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	rec := startRecording(t, pulse)
	const second = captureRate * 2
	rec.waitLen(t, second/5) // parec is connected and hearing the sink
	waitNoStream(t, 30*time.Second)
	baseSockets, baseThreads := sockets(t), pulseThreads(t)
	events := make(chan playback.Event, 16)
	p := playback.New(func(e playback.Event) { events <- e })
	t.Cleanup(func() { p.Close() })

	playAndDrain(t, p, events, data)
	if len(sinkInputs(t)) == 0 {
		t.Fatal("no stream at the sound server right after the clip played: the test cannot see the output")
	}
	if n, m := sockets(t), pulseThreads(t); n <= baseSockets || m <= baseThreads {
		t.Errorf("the process has %d sockets and %d libpulse threads with the output open, before it %d and %d: the test cannot see the output's connection", n, m, baseSockets, baseThreads)
	}
	start := time.Now()
	waitNoStream(t, 30*time.Second)
	t.Logf("the stream went away %v after the queue drained", time.Since(start).Round(10*time.Millisecond))
	if n, m := sockets(t), pulseThreads(t); n != baseSockets || m != baseThreads {
		t.Errorf("the process has %d sockets and %d libpulse threads with the output closed, want %d and %d as before it opened", n, m, baseSockets, baseThreads)
	}

	closedAt := rec.len()
	playAndDrain(t, p, events, data)
	// From a second before the output closed (the sink was silent for IdleClose then): parec
	// delivers in bursts, so what it had recorded when the output closed may lag.
	x := samples(rec.waitLen(t, rec.len()+2*second), 1)[max(0, closedAt/2-captureRate):]
	first, last := soundSpan(x)
	if first < 0 {
		t.Fatal("the monitor heard only silence after the output opened again")
	}
	pcm, err := playback.DecodeAll(t.Context(), bytes.NewReader(data), playback.OutputFormat)
	if err != nil {
		t.Fatal(err)
	}
	want := loudTime(samples(pcm, playback.OutputFormat.Channels), playback.OutputFormat.SampleRate)
	tone := x[first : last+1]
	heard := loudTime(tone, captureRate)
	m := middle(tone)
	t.Logf("after the output opened again: heard %v of tone (the clip holds %v) over %v, at %.2f dBFS, %.1f Hz; before it %.1f dBFS",
		heard, want, time.Duration(len(tone))*time.Second/captureRate, blockMedian(m, rmsDB), blockMedian(m, toneFrequency), peakDB(x[:first]))
	if heard < want-50*time.Millisecond || heard > want+50*time.Millisecond {
		t.Errorf("heard %v of the tone after the output opened again, want its %v whole", heard, want)
	}
	if got := blockMedian(m, rmsDB); math.Abs(got-toneRMS) > 1.5 {
		t.Errorf("captured level %.2f dBFS, want %.2f ± 1.5", got, toneRMS)
	}
	if got := blockMedian(m, toneFrequency); math.Abs(got-440) > 5 {
		t.Errorf("captured frequency %.1f Hz, want 440", got)
	}
	// The start of the clip, from its first sample (the MP3's encoder delay, near silence) to
	// 20 ms into the tone, comes out as decoded (the null sink passes it bit for bit): nothing
	// cut, no click as the device opened. The window is short because a loaded machine makes the
	// sound server drop out now and then (see loudTime), which has nothing to do with opening.
	d := samples(pcm, playback.OutputFormat.Channels)
	df, _ := soundSpan(d)
	const after = captureRate / 50
	if first < df || len(x) < first+after || len(d) < df+after {
		t.Fatalf("the tone starts too near the edge of the recording (%d) or the clip (%d)", first, df)
	}
	var diff float64
	for i := -df; i < after; i++ {
		diff = max(diff, math.Abs(x[first+i]-d[df+i]))
	}
	t.Logf("the first %v heard differ from the clip's by %.1f dBFS at most", time.Duration(df+after)*time.Second/captureRate, 20*math.Log10(diff+1e-10))
	if diff > 1e-4 {
		t.Errorf("the first %v heard differ from the clip's by %.1f dBFS, want under -80: the start was cut or distorted", time.Duration(df+after)*time.Second/captureRate, 20*math.Log10(diff))
	}
	// And it closes again after this clip.
	waitNoStream(t, 30*time.Second)
}
