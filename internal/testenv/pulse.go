package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Pulse is a private PulseAudio daemon with one null sink, started for one test. While it runs,
// the test process's environment routes PulseAudio clients and ALSA's default device (which oto
// uses) to it; what is played into the sink can be captured from its monitor source.
type Pulse struct {
	// Sink is the null sink's name: play into it.
	Sink string
	// Monitor is the sink's monitor source: record from it to hear what was played.
	Monitor string
	// Env holds the environment entries (KEY=value) a child process needs to reach this daemon.
	Env []string
	dir string
}

// StartPulse starts a PulseAudio daemon with a null sink as the default sink and source, points
// PULSE_SERVER, PULSE_RUNTIME_PATH and ALSA_CONFIG_PATH at it for the rest of the test, and stops
// it (by its own PID) when the test ends. Tests using it must not run in parallel.
func StartPulse(t testing.TB) *Pulse {
	t.Helper()
	RequireCommands(t, "pulseaudio", "pactl")
	if _, err := os.Stat("/usr/lib/x86_64-linux-gnu/alsa-lib/libasound_module_pcm_pulse.so"); err != nil {
		if matches, _ := filepath.Glob("/usr/lib/*/alsa-lib/libasound_module_pcm_pulse.so"); len(matches) == 0 {
			msg := "this test needs the ALSA PulseAudio plugin; install libasound2-plugins (make test does)"
			if InCI() {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
	dir, err := os.MkdirTemp("", "parley-pulse-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "native")
	alsaConf := filepath.Join(dir, "asound.conf")
	conf := "pcm.!default { type pulse }\nctl.!default { type pulse }\n"
	if err := os.WriteFile(alsaConf, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	p := &Pulse{Sink: "vsink", Monitor: "vsink.monitor", dir: dir}
	p.Env = []string{
		"PULSE_RUNTIME_PATH=" + dir,
		"PULSE_STATE_PATH=" + dir,
		"PULSE_SERVER=unix:" + sock,
		"ALSA_CONFIG_PATH=/usr/share/alsa/alsa.conf:" + alsaConf,
		"XDG_RUNTIME_DIR=" + dir,
	}
	cmd := exec.Command("pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1",
		"--disallow-exit", "--use-pid-file=no", "--system=false", "--log-target=stderr",
		"--load=module-null-sink sink_name=vsink rate=48000",
		"--load=module-native-protocol-unix auth-anonymous=1 socket="+sock,
		"--load=module-always-sink")
	cmd.Env = append(os.Environ(), p.Env...)
	cmd.Env = append(cmd.Env, "HOME="+dir)
	var logBuf SyncBuffer
	cmd.Stdout, cmd.Stderr = &logBuf, &logBuf
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting pulseaudio: %v", err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	for _, kv := range p.Env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	Poll(t, 15*time.Second, 50*time.Millisecond, func() error {
		out, err := exec.Command("pactl", "info").CombinedOutput()
		if err == nil {
			return nil
		}
		select {
		case <-done:
			t.Fatalf("pulseaudio exited at start: %s", logBuf.String())
		default:
		}
		return fmt.Errorf("pulseaudio did not answer: %v: %s\ndaemon log: %s", err, out, logBuf.String())
	})
	for _, args := range [][]string{{"set-default-sink", p.Sink}, {"set-default-source", p.Monitor}} {
		if out, err := exec.Command("pactl", args...).CombinedOutput(); err != nil {
			t.Fatalf("pactl %v: %v: %s", args, err, out)
		}
	}
	return p
}

// String describes the daemon for test logs.
func (p *Pulse) String() string { return fmt.Sprintf("pulseaudio(sink=%s, dir=%s)", p.Sink, p.dir) }
