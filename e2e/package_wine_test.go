package e2e

// The Windows archive under Wine. (This file is not named package_windows_test.go: that suffix
// would make Go build it only on Windows.)

import (
	"archive/zip"
	"bytes"
	"context"
	"debug/pe"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"

	"parley/internal/testenv"
)

// wine64 is where Debian's wine64 package puts the loader (it is not on PATH).
const wine64 = "/usr/lib/wine/wine64"

// winePrefix is a Wine installation of a test's own.
type winePrefix struct {
	dir string
	env []string
}

// newWinePrefix makes a Wine prefix in a temporary folder for programs that use the X display
// (such as ":42", or "" for none), adds the bcryptprimitives.dll stand-in that Go 1.26 programs
// need to start (test scaffolding, built here from testdata and never shipped), and stops the
// prefix's wineserver when the test ends. A prefix made without a display and then used with one
// failed to open windows two times out of three ("Failed to create helper window").
func newWinePrefix(t *testing.T, display string) *winePrefix {
	t.Helper()
	if _, err := os.Stat(wine64); err != nil {
		msg := "this test needs Debian's wine64 (%s): run `make package-test`, which installs it"
		if testenv.InCI() {
			t.Fatalf(msg, wine64)
		}
		t.Skipf(msg, wine64)
	}
	testenv.RequireCommands(t, "x86_64-w64-mingw32-gcc")
	w := &winePrefix{dir: t.TempDir()}
	w.env = cleanEnv("HOME="+t.TempDir(), "WINEPREFIX="+w.dir, "WINEDEBUG=-all",
		"WINEDLLOVERRIDES=mscoree,mshtml=", "DISPLAY="+display, "LANG=en_US.UTF-8")
	t.Cleanup(func() {
		kill := exec.Command("/usr/lib/wine/wineserver", "-k")
		kill.Env = w.env
		kill.Run()
	})
	start := time.Now()
	if r := w.run(t, 3*time.Minute, "wineboot", "-i"); r.Code != 0 {
		t.Fatalf("wineboot -i: %s", r)
	}
	dll := filepath.Join(w.dir, "drive_c", "windows", "system32", "bcryptprimitives.dll")
	cc := exec.Command("x86_64-w64-mingw32-gcc", "-shared", "-O2", "-o", dll,
		"testdata/winefwd/bcryptprimitives.c", "testdata/winefwd/bcryptprimitives.def", "-lbcrypt")
	if out, err := cc.CombinedOutput(); err != nil {
		t.Fatalf("building the bcryptprimitives.dll stand-in: %v\n%s", err, out)
	}
	t.Logf("Wine prefix ready in %v", time.Since(start).Round(100*time.Millisecond))
	return w
}

// run runs a program under Wine with extra environment entries and waits at most timeout. Output
// goes through files, not pipes: Wine's background processes (wineserver, winedevice) inherit
// the standard streams, and a pipe would stay open as long as they live.
func (w *winePrefix) run(t *testing.T, timeout time.Duration, args ...string) result {
	t.Helper()
	return w.runEnv(t, timeout, nil, args...)
}

// start starts a program under Wine with extra environment entries, and kills it when the test ends.
func (w *winePrefix) start(t *testing.T, extra []string, args ...string) {
	t.Helper()
	logs, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(wine64, args...)
	cmd.Env = append(append([]string{}, w.env...), extra...)
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("wine64 %v: %v", args, err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		logs.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logs.Name())
			t.Logf("wine64 %v printed:\n%s", args, b)
		}
	})
}

func (w *winePrefix) runEnv(t *testing.T, timeout time.Duration, extra []string, args ...string) result {
	t.Helper()
	dir := t.TempDir()
	stdout, _ := os.Create(filepath.Join(dir, "stdout"))
	stderr, _ := os.Create(filepath.Join(dir, "stderr"))
	defer stdout.Close()
	defer stderr.Close()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, wine64, args...)
	cmd.Env = append(append([]string{}, w.env...), extra...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := cmd.Run()
	o, _ := os.ReadFile(stdout.Name())
	e, _ := os.ReadFile(stderr.Name())
	r := result{Stdout: string(o), Stderr: string(e)}
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			r.Code = ee.ExitCode()
		} else {
			t.Fatalf("wine64 %v: %v", args, err)
		}
	}
	return r
}

// unzipWindowsArchive unpacks the archive into a new folder and checks that it holds parley.exe,
// its licence and the third-party notices, and nothing else.
func unzipWindowsArchive(t *testing.T, archive string) string {
	t.Helper()
	zr, err := zip.OpenReader(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var names []string
	dir := t.TempDir()
	for _, f := range zr.File {
		names = append(names, f.Name)
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, filepath.Base(f.Name)), b, 0o755)
	}
	if strings.Join(names, ",") != "parley.exe,LICENSE.txt,THIRD_PARTY_NOTICES.txt" {
		t.Fatalf("the Windows archive holds %q; want parley.exe, LICENSE.txt and THIRD_PARTY_NOTICES.txt", names)
	}
	exe := filepath.Join(dir, "parley.exe")
	checkLicenceFiles(t, filepath.Join(dir, "LICENSE.txt"), filepath.Join(dir, "THIRD_PARTY_NOTICES.txt"), exe)
	return exe
}

// Resource types of a PE file (winuser.h).
const (
	rtIcon      = 3
	rtGroupIcon = 14
	rtVersion   = 16
	rtManifest  = 24
)

// peResources returns the data of the first resource of each type in exe's resource section.
func peResources(t *testing.T, exe string) map[uint32][]byte {
	t.Helper()
	f, err := pe.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sec := f.Section(".rsrc")
	if sec == nil {
		t.Fatal("parley.exe has no resource section (.rsrc): no icon, no version information")
	}
	data, err := sec.Data()
	if err != nil {
		t.Fatal(err)
	}
	u16 := func(off uint32) uint32 { return uint32(binary.LittleEndian.Uint16(data[off:])) }
	u32 := func(off uint32) uint32 { return binary.LittleEndian.Uint32(data[off:]) }
	// A directory: 16 bytes of header, then named and ID entries of 8 bytes each; an entry's
	// offset has its high bit set when it points to another directory.
	firstLeaf := func(off uint32) (uint32, bool) {
		for depth := 0; depth < 3; depth++ {
			if u16(off+12)+u16(off+14) == 0 {
				return 0, false
			}
			next := u32(off + 16 + 4)
			if next&0x80000000 == 0 {
				return next, true
			}
			off = next &^ 0x80000000
		}
		return 0, false
	}
	out := map[uint32][]byte{}
	n := u16(12) + u16(14)
	for i := uint32(0); i < n; i++ {
		entry := 16 + 8*i
		typ, child := u32(entry), u32(entry+4)
		if child&0x80000000 == 0 {
			continue
		}
		leaf, ok := firstLeaf(child &^ 0x80000000)
		if !ok {
			continue
		}
		rva, size := u32(leaf), u32(leaf+4)
		start := rva - sec.VirtualAddress
		if int(start+size) <= len(data) {
			out[typ] = data[start : start+size]
		}
	}
	return out
}

// utf16Bytes is s as UTF-16LE, as version resources hold their strings.
func utf16Bytes(s string) []byte {
	var b []byte
	for _, r := range utf16.Encode([]rune(s)) {
		b = binary.LittleEndian.AppendUint16(b, r)
	}
	return b
}

// uploadRecorder is a loopback proxy in front of the service that keeps the audio of each
// transcription request, so the test sees what parley.exe uploaded.
type uploadRecorder struct {
	mu     sync.Mutex
	audio  [][]byte
	mime   []string
	server *http.Server
	url    string
}

func startUploadRecorder(t *testing.T, service string) *uploadRecorder {
	t.Helper()
	target, _ := url.Parse(service)
	proxy := httputil.NewSingleHostReverseProxy(target)
	u := &uploadRecorder{}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u.url = "http://" + l.Addr().String()
	u.server = &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/chat/transcribe" {
			body, _ := io.ReadAll(io.LimitReader(r.Body, 20<<20))
			r.Body = io.NopCloser(bytes.NewReader(body))
			var req struct{ Audio string }
			if json.Unmarshal(body, &req) == nil {
				if head, b64, ok := strings.Cut(req.Audio, ";base64,"); ok {
					if audio, err := base64.StdEncoding.DecodeString(b64); err == nil {
						u.mu.Lock()
						u.audio = append(u.audio, audio)
						u.mime = append(u.mime, strings.TrimPrefix(head, "data:"))
						u.mu.Unlock()
					}
				}
			}
		}
		proxy.ServeHTTP(w, r)
	})}
	go u.server.Serve(l)
	t.Cleanup(func() { u.server.Close() })
	return u
}

// TestPackageWindows_UnderWine runs parley.exe from the Windows archive under Wine: its version,
// its resources (icon, version information), what it links against, and `chat` and `transcribe`
// (a WAV that parley.exe encodes to WebM/Opus) against the Linux reference service on loopback.
func TestPackageWindows_UnderWine(t *testing.T) {
	archive := packageInput(t, windowsArchiveVar)
	version := packageInput(t, packageVersionVar)
	testenv.RequireCommands(t, "espeak-ng")
	exe := unzipWindowsArchive(t, archive)

	// The icon and version information that Explorer shows, and no DLL beyond Windows' own.
	res := peResources(t, exe)
	for typ, what := range map[uint32]string{rtIcon: "icon", rtGroupIcon: "icon group", rtVersion: "version information", rtManifest: "manifest"} {
		if len(res[typ]) == 0 {
			t.Errorf("parley.exe has no %s resource", what)
		}
	}
	for _, s := range []string{"ProductName", "Parley", "ProductVersion"} {
		if !bytes.Contains(res[rtVersion], utf16Bytes(s)) {
			t.Errorf("parley.exe's version information does not hold %q", s)
		}
	}
	f, err := pe.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	libs, _ := f.ImportedLibraries()
	f.Close()
	system := map[string]bool{}
	for _, l := range []string{"kernel32.dll", "advapi32.dll", "msvcrt.dll", "user32.dll", "gdi32.dll", "shell32.dll",
		"opengl32.dll", "winmm.dll", "ole32.dll", "ws2_32.dll", "dwmapi.dll", "imm32.dll", "crypt32.dll", "bcrypt.dll"} {
		system[l] = true
	}
	for _, l := range libs {
		if !system[strings.ToLower(l)] {
			t.Errorf("parley.exe needs %s, which Windows does not have (imports: %v)", l, libs)
		}
	}

	w := newWinePrefix(t, "")
	r := w.run(t, 2*time.Minute, exe, "--version")
	if re := packagedVersionLine(version, "windows"); r.Code != 0 || !re.MatchString(strings.ReplaceAll(r.Stdout, "\r", "")) {
		t.Errorf("parley.exe --version: %s\nwant a line matching %s", r, re)
	}

	s := startService(t)
	key := s.newKey(t, 10)
	rec := startUploadRecorder(t, s.url)
	env := []string{"PARLEY_BASE_URL=" + rec.url, "PARLEY_API_KEY=" + key}
	r = w.runEnv(t, 2*time.Minute, env, exe, "chat", "Hello from Windows")
	if r.Code != 0 || strings.TrimSpace(r.Stdout) == "" {
		t.Errorf("parley.exe chat: %s", r)
	}

	wav := filepath.Join(t.TempDir(), "question.wav")
	if out, err := exec.Command("espeak-ng", "-v", "en-us", "-w", wav, "what is the weather like in paris today").CombinedOutput(); err != nil {
		t.Fatalf("espeak-ng: %v: %s", err, out)
	}
	r = w.runEnv(t, 2*time.Minute, env, exe, "transcribe", "--json", wav)
	var tr struct{ Text string }
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &tr) != nil || strings.TrimSpace(tr.Text) == "" {
		t.Errorf("parley.exe transcribe: %s", r)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.audio) != 1 {
		t.Fatalf("the service got %d transcription uploads, want 1", len(rec.audio))
	}
	wavSize := fileSize(t, wav)
	audio := rec.audio[0]
	// WebM is EBML (1A 45 DF A3) with the Opus codec ID; Opus at 16 kbit/s is far smaller than the WAV.
	if rec.mime[0] != "audio/webm" || !bytes.HasPrefix(audio, []byte{0x1A, 0x45, 0xDF, 0xA3}) || !bytes.Contains(audio, []byte("A_OPUS")) ||
		int64(len(audio))*5 > wavSize {
		t.Errorf("parley.exe uploaded %d bytes of %q for a %d-byte WAV; want WebM/Opus, at most a fifth of the WAV",
			len(audio), rec.mime[0], wavSize)
	}
}

// TestPackageWindows_EchoCancellerUnderWine has parley.exe, with the SpeexDSP it carries, clean a
// recording of a reply heard in a reverberant room.
func TestPackageWindows_EchoCancellerUnderWine(t *testing.T) {
	archive := packageInput(t, windowsArchiveVar)
	testenv.RequireCommands(t, "flite", "sox")
	exe := unzipWindowsArchive(t, archive)
	dir := t.TempDir()
	played, heard := filepath.Join(dir, "played.wav"), filepath.Join(dir, "heard.wav")
	wet, floor := filepath.Join(dir, "wet.wav"), filepath.Join(dir, "floor.wav")
	for _, c := range [][]string{
		{"flite", "-voice", "slt", "-t", "As a patient guide who explains every step slowly and thoroughly, with an example " +
			"for each point, here is the answer to your question about the weather in Paris today.", "-o", played},
		{"sox", played, "-r", "16000", "-c", "1", wet, "pad", "0.12", "0", "reverb", "50", "50", "80", "gain", "-6"},
		{"sox", "-R", "-n", "-r", "16000", "-c", "1", "-b", "16", floor, "synth", "15", "whitenoise", "vol", "0.001"},
		{"sox", "-m", wet, floor, "-b", "16", heard, "trim", "0", "10"},
	} {
		if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v: %s", c, err, out)
		}
	}
	w := newWinePrefix(t, "")
	r := w.run(t, 2*time.Minute, exe, "cancel-echo", "--json", played, heard)
	var got struct {
		ERLE    float64 `json:"erle_db"`
		DelayMS *int64  `json:"delay_ms"`
	}
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &got) != nil {
		t.Fatalf("parley.exe cancel-echo: %s", r)
	}
	if got.DelayMS == nil {
		t.Fatalf("parley.exe cancel-echo found no delay: %s", r)
	}
	t.Logf("under Wine the echo came out %.1f dB quieter, %d ms late", got.ERLE, *got.DelayMS)
	if got.ERLE < 15 || *got.DelayMS < 100 || *got.DelayMS > 160 {
		t.Errorf("parley.exe cancel-echo: %.1f dB, delay %d ms; want at least 15 dB, about 120 ms", got.ERLE, *got.DelayMS)
	}
}

// TestPackageWindows_GUIUnderWine opens parley.exe's window under Wine on Xvfb, where Wine draws
// with the host's OpenGL (Mesa's software renderer), and uses it against the Linux service.
func TestPackageWindows_GUIUnderWine(t *testing.T) {
	archive := packageInput(t, windowsArchiveVar)
	version := packageInput(t, packageVersionVar)
	exe := unzipWindowsArchive(t, archive)
	d := testenv.StartDisplay(t)
	w := newWinePrefix(t, d.Name)
	s := startService(t)
	key := s.newKey(t, 10)
	// Windows gives Fyne the light theme; the dark one is what the screen reading is tuned for.
	w.start(t, []string{"FYNE_THEME=dark", "PARLEY_BASE_URL=" + s.url, "PARLEY_API_KEY=" + key}, exe)
	win := d.WaitForWindow(t, "Parley", 90*time.Second)
	out, _ := exec.Command("xprop", "-display", d.Name, "-id", win, "WM_CLASS").CombinedOutput()
	t.Logf("parley.exe's window under Wine: %s", strings.TrimSpace(string(out)))
	useInstalledApp(t, d, s, key, version)

	// A second parley.exe hands over to the first and exits; one window stays.
	start := time.Now()
	r := w.runEnv(t, 2*time.Minute, []string{"FYNE_THEME=dark", "PARLEY_BASE_URL=" + s.url, "PARLEY_API_KEY=" + key}, exe)
	t.Logf("a second parley.exe exited %d after %v: %s%s", r.Code, time.Since(start).Round(time.Millisecond), r.Stdout, r.Stderr)
	if r.Code != 0 {
		t.Errorf("a second parley.exe exited %d", r.Code)
	}
	search := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^Parley$")
	search.Env = append(os.Environ(), d.Env())
	if out, _ := search.CombinedOutput(); len(strings.Fields(string(out))) != 1 {
		t.Errorf("Parley windows after a second start: %q", out)
	}
}

// TestPackageWindows_DesktopPartsUnderWine runs the Windows builds of the desktop packages'
// tests under Wine: the Run key that starts Parley at login (in Wine's registry), the one-
// instance lock (LockFileEx, loopback TCP), and RegisterHotKey (registered, refused as taken,
// given back). Wine's hotkeys fire only for keys typed into Wine's own windows, so a press
// from another program cannot be tested here.
func TestPackageWindows_DesktopPartsUnderWine(t *testing.T) {
	packageInput(t, windowsArchiveVar) // run with the package tests, which install Wine
	d := testenv.StartDisplay(t)
	w := newWinePrefix(t, d.Name)
	for _, pkg := range []string{"autostart", "instance", "hotkey"} {
		t.Run(pkg, func(t *testing.T) {
			exe := filepath.Join(t.TempDir(), pkg+".test.exe")
			build := exec.Command("go", "test", "-c", "-o", exe, "parley/desktop/"+pkg)
			build.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
			if out, err := build.CombinedOutput(); err != nil {
				t.Fatalf("building the %s tests for Windows: %v\n%s", pkg, err, out)
			}
			r := w.run(t, 3*time.Minute, exe, "-test.v", "-test.count=1")
			t.Logf("%s tests under Wine:\n%s%s", pkg, r.Stdout, r.Stderr)
			if r.Code != 0 || !strings.Contains(r.Stdout, "PASS") {
				t.Errorf("the %s tests failed under Wine (exit %d)", pkg, r.Code)
			}
		})
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
