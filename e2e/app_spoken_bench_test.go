package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"parley/internal/testenv"
)

// BenchmarkApp_SpokenTurnsMemory measures, under Xvfb with a PulseAudio null sink as its
// speakers, the app's resident memory after 20, 60 and 120 turns whose replies are spoken
// aloud, each reading taken after the app was left alone for settle (its audio output closed
// by then), and what the turns from 60 to 120 cost each. A review saw 159 MB grow to 300 MB
// over an hour of spoken use while the output stream stayed open; this is that use, compressed.
// Run it with -benchtime 1x; it takes about 10 minutes.
func BenchmarkApp_SpokenTurnsMemory(b *testing.B) {
	testenv.RequireCommands(b, "xdotool", "tesseract", "pactl")
	d := testenv.StartDisplay(b)
	testenv.StartSessionBus(b)
	p := testenv.StartPulse(b)
	s := startService(b)
	key := s.newKey(b, 100000)
	env := s.env("PARLEY_API_KEY="+key, "PARLEY_AUDIO_BACKEND=pulse")
	const settle = 70 * time.Second
	for i := 0; i < b.N; i++ {
		home := b.TempDir()
		prefs := filepath.Join(home, "config", "fyne", "io.github.parley", "preferences.json")
		os.MkdirAll(filepath.Dir(prefs), 0o700)
		if err := os.WriteFile(prefs, []byte(`{"auto_speak": true}`), 0o600); err != nil {
			b.Fatal(err)
		}
		app := exec.Command(bin)
		app.Env = append(env, appHome(d, home)...)
		if err := app.Start(); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { stop(app) })
		d.WaitForText(b, "What's on your mind?", 30*time.Second)
		at := map[int]int{}
		streams := 0
		typeTurns(b, d, env, tidesTurn, 120, []int{20, 60, 120}, settle, func(turn int) {
			at[turn] = residentKB(b, app.Process.Pid)
			streams = pulseStreamsOf(b, p, app.Process.Pid)
		})
		stop(app)
		for _, turn := range []int{20, 60, 120} {
			b.ReportMetric(float64(at[turn])/1024, "rss-"+strconv.Itoa(turn)+"-MB")
		}
		b.ReportMetric(float64(at[120]-at[60])/60, "per-turn-KB")
		b.ReportMetric(float64(streams), "streams-idle")
	}
}
