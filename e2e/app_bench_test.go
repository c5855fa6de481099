package e2e

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"parley/internal/testenv"
)

// residentKB reads a process's resident memory from /proc.
func residentKB(tb testing.TB, pid int) int {
	tb.Helper()
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return kb
		}
	}
	tb.Fatal("no VmRSS")
	return 0
}

// bareWindow builds internal/barewindow, the yardstick.
func bareWindow(b *testing.B) string {
	b.Helper()
	out := filepath.Join(b.TempDir(), "barewindow")
	if msg, err := exec.Command("go", "build", "-o", out, "parley/internal/barewindow").CombinedOutput(); err != nil {
		b.Fatalf("building barewindow: %v: %s", err, msg)
	}
	return out
}

// launch starts bin on d and returns it with the time until its window titled title is shown.
func launch(b *testing.B, d *testenv.Display, bin, title string, env []string) (*exec.Cmd, time.Duration) {
	b.Helper()
	home := b.TempDir()
	cmd := exec.Command(bin)
	cmd.Env = append(env, d.Env(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"XDG_DATA_HOME="+filepath.Join(home, "data"), "XDG_CACHE_HOME="+filepath.Join(home, "cache"), "LANG=en_US.UTF-8")
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	sync := exec.Command("xdotool", "search", "--sync", "--onlyvisible", "--name", "^"+title+"$")
	sync.Env = append(os.Environ(), d.Env())
	if out, err := sync.CombinedOutput(); err != nil {
		b.Fatalf("waiting for the window: %v: %s", err, out)
	}
	return cmd, time.Since(start)
}

// BenchmarkApp_StartAndMemory measures, under Xvfb against the real service: the time from
// starting `parley` to its window on screen, and its resident memory after 20 typed turns, each
// beside the same for a bare Fyne window started in the same run. Run it with -benchtime 1x.
//
// Where the difference goes (heap profiles, Fyne 2.7.1): mostly fonts. Fyne loads a set of
// faces for each text style in use (regular, bold, italic, monospace: each the theme's font,
// the bundled 4 MB emoji font and a system fallback, about 8 MB of heap a style, shared by
// none), while the bare window uses only regular. The app's own state after 20 turns is about
// 3 MB. Measured here: 182 MB against 140 (1.30×); without italic text (the "Thinking…" label
// of every bubble row) 172 MB (1.23×); with that and the no_emoji build tag, 157 MB (1.12× the
// default bare window, 1.21× a bare window also built with no_emoji).
func BenchmarkApp_StartAndMemory(b *testing.B) {
	d := testenv.StartDisplay(b)
	testenv.StartSessionBus(b)
	s := startService(b)
	key := s.newKey(b, 1000)
	env := s.env("PARLEY_API_KEY=" + key)
	bare := bareWindow(b)
	for i := 0; i < b.N; i++ {
		bareCmd, bareStart := launch(b, d, bare, "Bare", os.Environ())
		time.Sleep(3 * time.Second) // let it settle, as the app does below
		bareKB := residentKB(b, bareCmd.Process.Pid)
		bareCmd.Process.Signal(syscall.SIGTERM)

		app, appStart := launch(b, d, bin, "Parley", env)
		d.WaitForText(b, "What's on your mind?", 30*time.Second)
		for turn := 1; turn <= 20; turn++ {
			d.Type(b, "Turn number "+strconv.Itoa(turn)+" about the tides")
			d.Key(b, "Return")
			waitMessages(b, env, 2*turn)
		}
		time.Sleep(3 * time.Second)
		appKB := residentKB(b, app.Process.Pid)
		b.ReportMetric(float64(appStart.Milliseconds()), "start-ms")
		b.ReportMetric(float64(bareStart.Milliseconds()), "bare-start-ms")
		b.ReportMetric(float64(appKB)/1024, "rss-MB")
		b.ReportMetric(float64(bareKB)/1024, "bare-rss-MB")
		b.ReportMetric(float64(appKB)/float64(bareKB), "rss-ratio")
		app.Process.Signal(syscall.SIGTERM)
	}
}

// waitMessages waits until the service's only conversation holds n messages.
func waitMessages(tb testing.TB, env []string, n int) {
	tb.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := run(tb, env, "", "conversations", "--json")
		if id := firstID(r.Stdout); id != "" && len(history(tb, env, id).Messages) >= n {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("the conversation never reached %d messages", n)
		}
		time.Sleep(100 * time.Millisecond) // polling another process
	}
}

// firstID is the first conversation ID in `conversations --json` output.
func firstID(out string) string {
	const k = `"id": "`
	i := strings.Index(out, k)
	if i < 0 {
		return ""
	}
	rest := out[i+len(k):]
	return rest[:strings.IndexByte(rest, '"')]
}
