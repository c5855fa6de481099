//go:build unix

package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Room is the simulated room of the field notes on a Pulse daemon: what the program plays goes
// into the sink "room" (the default sink while the room stands); a pipe records its monitor,
// reverberates it with sox and plays it, at Gain dB, into the microphone's sink (Pulse.Sink,
// whose monitor is the microphone). The person's speech is played into Pulse.Sink directly.
// The pipe's buffers make the echo's delay vary between rooms (and drift a little in one).
type Room struct {
	// Sink is where the program's output goes.
	Sink string
	// Gain is the echo's gain against what is played, in dB.
	Gain float64
}

// roomLatency is the latency the pipe asks of parec and pacat, in ms: the field notes' 20,
// unless PARLEY_ROOM_LATENCY_MS says otherwise.
func roomLatency() string {
	if v := os.Getenv("PARLEY_ROOM_LATENCY_MS"); v != "" {
		return v
	}
	return "20"
}

// StartRoom builds the room on p with the echo at gain dB, and takes it down when the test ends.
func (p *Pulse) StartRoom(t testing.TB, gain float64) *Room {
	t.Helper()
	RequireCommands(t, "pactl", "parec", "pacat", "sox")
	r := &Room{Sink: "room", Gain: gain}
	out, err := exec.Command("pactl", "load-module", "module-null-sink", "sink_name="+r.Sink, "rate=48000").CombinedOutput()
	if err != nil {
		t.Fatalf("pactl load-module module-null-sink: %v: %s", err, out)
	}
	if out, err := exec.Command("pactl", "set-default-sink", r.Sink).CombinedOutput(); err != nil {
		t.Fatalf("pactl set-default-sink: %v: %s", err, out)
	}
	raw := []string{"--raw", "--format=s16le", "--rate=16000", "--channels=1", "--latency-msec=" + roomLatency()}
	script := fmt.Sprintf("parec -d %s.monitor %s | sox --buffer 512 -t raw -r 16000 -e signed -b 16 -c 1 - "+
		"-t raw - reverb 50 50 80 gain %.1f | pacat -d %s %s",
		r.Sink, strings.Join(raw, " "), gain, p.Sink, strings.Join(raw, " "))
	cmd := exec.Command("sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // the pipe's three programs end together
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the room's pipe: %v", err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the group this test started
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
	})
	return r
}
