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
func residentKB(tb testing.TB, pid int) int { return statusKB(tb, pid, "VmRSS") }

// statusKB reads a size in kB from /proc/PID/status: VmRSS (resident memory), RssAnon (the part
// that is the process's own: heaps and stacks, not files mapped such as its binary)…
func statusKB(tb testing.TB, pid int, field string) int {
	tb.Helper()
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return kb
		}
	}
	tb.Fatal("no " + field)
	return 0
}

// bareWindow builds internal/barewindow with the Fyne that Parley builds with (third_party/fyne,
// which has Parley's patch).
func bareWindow(b *testing.B) string {
	b.Helper()
	out := filepath.Join(b.TempDir(), "barewindow")
	if msg, err := exec.Command("go", "build", "-o", out, "parley/internal/barewindow").CombinedOutput(); err != nil {
		b.Fatalf("building barewindow: %v: %s", err, msg)
	}
	return out
}

// stockBareWindow builds internal/barewindow with Fyne as published (the version go.mod names,
// fetched through the module proxy): the yardstick, a bare window as any Fyne app has it.
func stockBareWindow(b *testing.B) string {
	b.Helper()
	return stockBareWindowOn(b, "")
}

// stockBareWindowOn is stockBareWindow with Fyne's version fyneVersion ("": go.mod's).
func stockBareWindowOn(b *testing.B, fyneVersion string) string {
	b.Helper()
	dir := b.TempDir()
	root := filepath.Join("..")
	src, err := os.ReadFile(filepath.Join(root, "internal", "barewindow", "main.go"))
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), src, 0o644); err != nil {
		b.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum")) // most of what the proxy would be asked
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		b.Fatal(err)
	}
	if fyneVersion == "" {
		fyneVersion = requiredVersion(b, filepath.Join(root, "go.mod"), "fyne.io/fyne/v2")
	}
	// A module of its own that needs only Fyne: no replace (Parley's go.mod replaces Fyne and
	// fyne.io/systray with its patched copies), and what Fyne requires at its own versions.
	mod := "module barewindow\n\ngo 1.26\n\nrequire fyne.io/fyne/v2 " + fyneVersion + "\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644); err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(dir, "barewindow-stock")
	for _, args := range [][]string{{"mod", "tidy"}, {"build", "-mod=mod", "-o", out, "."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		if msg, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("building the bare window on Fyne %s as published: go %s: %v: %s", fyneVersion, strings.Join(args, " "), err, msg)
		}
	}
	return out
}

// requiredVersion is the version of module path that the go.mod at file requires.
func requiredVersion(b *testing.B, file, path string) string {
	b.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == path {
			return f[1]
		}
	}
	b.Fatalf("%s requires no %s", file, path)
	return ""
}

// beforeBuilds are what a benchmark measures beside this build, in the same run, when it is asked
// to (for a change of Fyne, say): PARLEY_BENCH_BEFORE names another parley binary, measured as
// this one is, its metrics named "before-…"; PARLEY_BENCH_BEFORE_FYNE a Fyne version whose bare
// window, as published, is measured too ("before-bare-…"). The two parley binaries are returned as
// fresh copies, written the same way, so that the page cache holds both alike: a binary written
// long ago and partly read back has fewer of its pages mapped for the same use than one just
// written (5 MB fewer of 28 in one measurement), which would count as a difference in memory.
func beforeBuilds(b *testing.B) (this, before, fyneVersion string) {
	b.Helper()
	before = os.Getenv("PARLEY_BENCH_BEFORE")
	if before == "" {
		return bin, "", os.Getenv("PARLEY_BENCH_BEFORE_FYNE")
	}
	dir := b.TempDir()
	copyBin := func(src, name string) string {
		data, err := os.ReadFile(src)
		if err != nil {
			b.Fatal(err)
		}
		dst := filepath.Join(dir, name)
		if err := os.WriteFile(dst, data, 0o755); err != nil {
			b.Fatal(err)
		}
		return dst
	}
	return copyBin(bin, "parley"), copyBin(before, "parley-before"), os.Getenv("PARLEY_BENCH_BEFORE_FYNE")
}

// stop ends a program that launch started, and waits for it (once: later calls return at once).
func stop(cmd *exec.Cmd) {
	if cmd.ProcessState != nil {
		return
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	testenv.EndProcess(cmd, syscall.SIGTERM, done, 10*time.Second)
}

// launch starts bin (with args) on d and returns it with the time until its window titled title is shown.
func launch(b *testing.B, d *testenv.Display, bin, title string, env []string, args ...string) (*exec.Cmd, time.Duration) {
	b.Helper()
	home := b.TempDir()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(env, appHome(d, home)...)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { stop(cmd) })
	// Polled every 10 ms: `xdotool search --sync` looks only every 500 ms, which the start times
	// measured before 2026-11-23 included, and dies with BadWindow when a window changes while
	// it searches.
	deadline := time.Now().Add(30 * time.Second)
	for {
		search := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^"+title+"$")
		search.Env = append(os.Environ(), d.Env())
		if out, err := search.Output(); err == nil && len(strings.TrimSpace(string(out))) > 0 {
			return cmd, time.Since(start)
		}
		if time.Now().After(deadline) {
			b.Fatalf("no window titled %q was shown within 30s", title)
		}
		time.Sleep(10 * time.Millisecond) // polling an outside program: no channel to wait on
	}
}

// BenchmarkApp_StartAndMemory measures, under Xvfb against the real service: the time from
// starting `parley` to its window on screen, and its resident memory after 20 typed turns, each
// beside the same for a bare Fyne window started in the same run; and (rich-rss) the memory
// after 20 turns whose replies are 10,000 characters of Markdown with code blocks and a table
// of 50 rows, from a model the service calls, answering whole (rich) and streaming them at 2,000
// tokens a second (streamed, read 3 s after the last reply and again 70 s after:
// streamed-rss-settled-MB). Run it with -benchtime 1x.
//
// The yardstick (bare-rss-MB, rss-ratio) is the bare window on Fyne as published. The app is
// built with third_party/fyne, whose patch saves about 15 MB a window and 8 MB more for each
// further text style; same-fyne-bare-rss-MB and same-fyne-ratio compare the app with a bare
// window that has the patch too, which is what the app's own code adds.
//
// Where that difference goes (smaps, heap profiles, heaptrack; 2026-11-23): the binary, 9 MB
// more of it resident (the reference service, the CLI, the codecs); Mesa's software renderer
// (textures and compiled shaders for what the bare window does not draw: bubbles, icons, and
// a texture for every string the composer has shown in the last minute, which Fyne keeps),
// 9 MB of C heap; the bold font, 1.5 MB; the app's own state, about 2 MB.
func BenchmarkApp_StartAndMemory(b *testing.B) {
	d := testenv.StartDisplay(b)
	testenv.StartSessionBus(b)
	s := startService(b)
	key := s.newKey(b, 1000)
	env := s.env("PARLEY_API_KEY=" + key)
	rs := startService(b, "--llm-url", newMarkdownModel(b, testenv.RichReply()), "--llm-model", "m")
	richEnv := rs.env("PARLEY_API_KEY=" + rs.newKey(b, 1000))
	ss := startService(b, "--llm-url", newStreamingModel(b, testenv.RichReply(), 100*time.Millisecond, 2000), "--llm-model", "m")
	streamEnv := ss.env("PARLEY_API_KEY=" + ss.newKey(b, 1000))
	stock := stockBareWindow(b)
	bare := bareWindow(b)
	for i := 0; i < b.N; i++ {
		// settled measures a bare window's resident memory after it has been shown for 3 s
		// (the app gets as long after its last turn).
		settled := func(bin string) (int, time.Duration) {
			cmd, start := launch(b, d, bin, "Bare", os.Environ())
			time.Sleep(3 * time.Second)
			kb := residentKB(b, cmd.Process.Pid)
			stop(cmd)
			return kb, start
		}
		bareKB, bareStart := settled(stock)
		sameKB, sameStart := settled(bare)

		app, appStart := launch(b, d, bin, "Parley", env)
		d.WaitForText(b, "What's on your mind?", 30*time.Second)
		typeTurns(b, d, env, tidesTurn, 20, nil, 0, nil)
		time.Sleep(3 * time.Second)
		appKB := residentKB(b, app.Process.Pid)
		stop(app)

		// The same with replies of 10,000 characters with code and a table of 50 rows.
		rich, _ := launch(b, d, bin, "Parley", richEnv)
		d.WaitForText(b, "What's on your mind?", 30*time.Second)
		typeTurns(b, d, richEnv, "Rich turn %d", 20, nil, 0, nil)
		time.Sleep(3 * time.Second)
		richKB := residentKB(b, rich.Process.Pid)
		stop(rich)
		// The same replies streamed, 2,000 tokens a second.
		streamed, _ := launch(b, d, bin, "Parley", streamEnv)
		d.WaitForText(b, "What's on your mind?", 30*time.Second)
		typeTurns(b, d, streamEnv, "Streamed turn %d", 20, nil, 0, nil)
		time.Sleep(3 * time.Second)
		streamedKB := residentKB(b, streamed.Process.Pid)
		// Fyne keeps what it drew (the objects, and the texture of each string) for a minute
		// after it was last drawn; the reply's objects are reused from one piece to the next
		// (chatview's replyLayout.text), the textures of its lines' earlier states are not.
		time.Sleep(70 * time.Second)
		b.ReportMetric(float64(residentKB(b, streamed.Process.Pid))/1024, "streamed-rss-settled-MB")
		stop(streamed)
		b.ReportMetric(float64(streamedKB)/1024, "streamed-rss-MB")
		b.ReportMetric(float64(streamedKB)/float64(bareKB), "streamed-rss-ratio")
		b.ReportMetric(float64(richKB)/1024, "rich-rss-MB")
		b.ReportMetric(float64(richKB)/float64(bareKB), "rich-rss-ratio")
		b.ReportMetric(float64(appStart.Milliseconds()), "start-ms")
		b.ReportMetric(float64(bareStart.Milliseconds()), "bare-start-ms")
		b.ReportMetric(float64(appKB)/1024, "rss-MB")
		b.ReportMetric(float64(bareKB)/1024, "bare-rss-MB")
		b.ReportMetric(float64(appKB)/float64(bareKB), "rss-ratio")
		b.ReportMetric(float64(sameKB)/1024, "same-fyne-bare-rss-MB")
		b.ReportMetric(float64(appKB)/float64(sameKB), "same-fyne-ratio")
		b.ReportMetric(float64(sameStart.Milliseconds()), "same-fyne-bare-start-ms")
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
