package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"parley/internal/testenv"
)

// The package tests install and run the archives that `make package` and `make package-windows`
// made; `make package-test` builds them and names them in these variables.
const (
	linuxArchiveVar   = "PARLEY_LINUX_ARCHIVE"
	windowsArchiveVar = "PARLEY_WINDOWS_ARCHIVE"
	packageVersionVar = "PARLEY_PACKAGE_VERSION"
	fyneVar           = "PARLEY_FYNE"
)

// packageInput returns the value of the environment variable name, which `make package-test`
// sets; without it the test is skipped, or fails under CI=true.
func packageInput(t *testing.T, name string) string {
	t.Helper()
	v := os.Getenv(name)
	if v != "" {
		return v
	}
	msg := "%s is not set: run `make package-test`, which builds the archives and runs this test"
	if testenv.InCI() {
		t.Fatalf(msg, name)
	}
	t.Skipf(msg, name)
	return ""
}

// packagedVersionLine matches what `parley --version` prints for a packaged build of version v:
// the version, a commit and a build date, all set by the Makefile through fyne package.
func packagedVersionLine(v, goos string) *regexp.Regexp {
	return regexp.MustCompile(`^parley ` + regexp.QuoteMeta(v) +
		` \(commit [0-9a-f]{12}, built \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ, go[0-9.]+ ` + goos + `/amd64\)\s*$`)
}

// cleanEnv is the test's environment without the variables of the make that runs it (a make
// started inside would take them as its own) and without PARLEY_ settings.
func cleanEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "MAKEFLAGS", name == "MFLAGS", name == "MAKELEVEL", name == "MAKEOVERRIDES",
			strings.HasPrefix(name, "PARLEY_"), name == "HOME", strings.HasPrefix(name, "XDG_"):
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}

// filesUnder lists the regular files and symbolic links under dir, relative to it, sorted.
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

// desktopEntry reads the keys of a .desktop file's [Desktop Entry] group.
func desktopEntry(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	keys := map[string]string{}
	group := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "["):
			group = line
		case group == "[Desktop Entry]":
			k, v, _ := strings.Cut(line, "=")
			keys[k] = v
		}
	}
	return keys
}

// validateDesktopFile fails the test with desktop-file-validate's complaints about path.
func validateDesktopFile(t *testing.T, path string) {
	t.Helper()
	out, err := exec.Command("desktop-file-validate", path).CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("desktop-file-validate %s: %v\n%s", filepath.Base(path), err, out)
	}
}

// runMake runs make with args in dir and env, and fails the test unless it succeeds.
func runMake(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("make", args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestPackageLinux_InstallRunUninstall installs the Linux archive the way its README says: unpack,
// `make user-install` (HOME is a temporary folder), then checks the installed files, opens the
// installed app under Xvfb, uses its CLI against the reference service, and uninstalls.
func TestPackageLinux_InstallRunUninstall(t *testing.T) {
	archive := packageInput(t, linuxArchiveVar)
	version := packageInput(t, packageVersionVar)
	testenv.RequireCommands(t, "tar", "xz", "make", "desktop-file-validate", "xprop")

	// Unpack: one folder, parley/, with the licence, the third-party notices, the Makefile, the
	// binary, the .desktop file and the icon.
	unpacked := t.TempDir()
	if out, err := exec.Command("tar", "-xJf", archive, "-C", unpacked).CombinedOutput(); err != nil {
		t.Fatalf("tar -xJf %s: %v\n%s", archive, err, out)
	}
	root := filepath.Join(unpacked, "parley")
	wantInArchive := []string{
		"LICENSE",
		"Makefile",
		"THIRD_PARTY_NOTICES",
		"usr/local/bin/parley",
		"usr/local/share/applications/io.github.parley.desktop",
		"usr/local/share/pixmaps/io.github.parley.png",
	}
	if got := filesUnder(t, unpacked); strings.Join(got, "\n") != "parley/"+strings.Join(wantInArchive, "\nparley/") {
		t.Fatalf("the archive holds %q; want parley/ with %q", got, wantInArchive)
	}
	checkLicenceFiles(t, filepath.Join(root, "LICENSE"), filepath.Join(root, "THIRD_PARTY_NOTICES"), filepath.Join(root, "usr/local/bin/parley"))
	validateDesktopFile(t, filepath.Join(root, wantInArchive[4]))
	entry := desktopEntry(t, filepath.Join(root, wantInArchive[4]))
	for k, want := range map[string]string{"Name": "Parley", "Exec": "parley", "Icon": "io.github.parley", "StartupWMClass": "Parley"} {
		if entry[k] != want {
			t.Errorf("the archive's .desktop file has %s=%q, want %q", k, entry[k], want)
		}
	}

	// Install for one user.
	home := t.TempDir()
	runMake(t, root, cleanEnv("HOME="+home), "user-install")
	installed := filesUnder(t, home)
	wantInstalled := []string{
		".local/bin/parley",
		".local/share/applications/io.github.parley.desktop",
		".local/share/icons/io.github.parley.png",
	}
	if strings.Join(installed, "\n") != strings.Join(wantInstalled, "\n") {
		t.Fatalf("make user-install installed %q; want %q", installed, wantInstalled)
	}
	bin := filepath.Join(home, wantInstalled[0])
	if fi, err := os.Stat(bin); err != nil || fi.Mode().Perm()&0o111 == 0 {
		t.Fatalf("the installed binary %s is not executable: %v", bin, err)
	}
	icon, _ := os.ReadFile(filepath.Join(home, wantInstalled[2]))
	source, err := os.ReadFile(filepath.Join("..", "assets", "icon.png"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(icon, source) {
		t.Errorf("the installed icon is not assets/icon.png (%d bytes, want %d)", len(icon), len(source))
	}
	desktop := filepath.Join(home, wantInstalled[1])
	validateDesktopFile(t, desktop)
	if got := desktopEntry(t, desktop)["Exec"]; got != bin {
		t.Errorf("the installed .desktop file runs %q, want %q", got, bin)
	}

	// The CLI of the installed binary: its version, and a chat with the reference service.
	r := testenv.Run(t, testenv.Cmd{Bin: bin, Env: cleanEnv("HOME=" + home)}, "--version")
	if re := packagedVersionLine(version, "linux"); r.Code != 0 || !re.MatchString(r.Stdout) {
		t.Errorf("parley --version: %s\nwant a line matching %s", r, re)
	}
	s := startService(t)
	key := s.newKey(t, 10)
	r = testenv.Run(t, testenv.Cmd{Bin: bin, Env: s.env("HOME="+home, "PARLEY_API_KEY="+key)}, "chat", "Hello from the installed Parley")
	if r.Code != 0 || strings.TrimSpace(r.Stdout) == "" {
		t.Errorf("parley chat: %s", r)
	}

	// The installed app opens its window, grouped by docks under the .desktop file's StartupWMClass.
	d := testenv.StartDisplay(t)
	testenv.StartSessionBus(t)
	appHome := t.TempDir()
	app := exec.Command(bin)
	appKey := s.newKey(t, 10) // an account of the app's own: it opens on an empty conversation
	app.Env = append(s.env("PARLEY_API_KEY="+appKey), d.Env(), "HOME="+appHome,
		"XDG_CACHE_HOME="+filepath.Join(appHome, "cache"), "DBUS_SESSION_BUS_ADDRESS="+os.Getenv("DBUS_SESSION_BUS_ADDRESS"))
	var logs bytes.Buffer
	app.Stdout, app.Stderr = &logs, &logs
	if err := app.Start(); err != nil {
		t.Fatalf("starting the installed app: %v", err)
	}
	exited := make(chan struct{})
	go func() { app.Wait(); close(exited) }()
	t.Cleanup(func() {
		if testenv.EndProcess(app, syscall.SIGTERM, exited, 15*time.Second) {
			t.Error("the installed app did not quit within 15 s of SIGTERM")
		}
		if t.Failed() {
			t.Logf("app log:\n%s", logs.String())
		}
	})
	win := d.WaitForWindow(t, "Parley", 60*time.Second)
	out, err := exec.Command("xprop", "-display", d.Name, "-id", win, "WM_CLASS").CombinedOutput()
	if err != nil {
		t.Fatalf("xprop WM_CLASS: %v: %s", err, out)
	}
	// WM_CLASS(STRING) = "instance", "class"
	m := regexp.MustCompile(`"([^"]*)", "([^"]*)"`).FindStringSubmatch(string(out))
	if m == nil || m[2] != entry["StartupWMClass"] {
		t.Errorf("the window's WM_CLASS is %s; its class should be the .desktop file's StartupWMClass %q",
			strings.TrimSpace(string(out)), entry["StartupWMClass"])
	}
	useInstalledApp(t, d, s, appKey, version)
	app.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(15 * time.Second):
		t.Error("the installed app did not quit within 15 s of SIGTERM")
	}

	// Uninstall: every file that was installed is gone.
	runMake(t, root, cleanEnv("HOME="+home), "user-uninstall")
	for _, f := range installed {
		if _, err := os.Lstat(filepath.Join(home, f)); !os.IsNotExist(err) {
			t.Errorf("make user-uninstall left %s", f)
		}
	}
	if left := filesUnder(t, filepath.Join(home, ".local")); len(left) > 0 {
		t.Errorf("after make user-uninstall, ~/.local still holds %q", left)
	}
}

// TestPackageDarwin_MicrophonePermission checks the Info.plist that `fyne package -os darwin`
// writes from FyneApp.toml: macOS shows NSMicrophoneUsageDescription when it asks for the
// microphone, and refuses the microphone to an app without it. A Mac build cannot be made here,
// so fyne packages a stand-in executable; the plist is what it would write on a Mac.
func TestPackageDarwin_MicrophonePermission(t *testing.T) {
	fyne := packageInput(t, fyneVar)
	src := t.TempDir() // a copy, as fyne package bumps Build in the FyneApp.toml it reads
	for _, f := range []string{"FyneApp.toml", "go.mod", "main.go", "assets/icon.png"} {
		b, err := os.ReadFile(filepath.Join("..", f))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(src, filepath.Dir(f)), 0o755)
		if err := os.WriteFile(filepath.Join(src, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(src, "parley"), []byte("stand-in for the macOS binary"), 0o755)
	cmd := exec.Command(fyne, "package", "-os", "darwin", "--exe", "parley", "--app-version", "0.1.0", "--app-build", "1")
	cmd.Dir, cmd.Env = src, cleanEnv("HOME="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fyne package -os darwin: %v\n%s", err, out)
	}
	plist, err := os.ReadFile(filepath.Join(src, "Parley.app", "Contents", "Info.plist"))
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(plist))
	for {
		if _, err := dec.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("Info.plist is not well-formed XML: %v\n%s", err, plist)
		}
	}
	toml, _ := os.ReadFile(filepath.Join("..", "FyneApp.toml"))
	usage := regexp.MustCompile(`(?m)^MicrophoneUsage = "(.+)"$`).FindSubmatch(toml)
	if usage == nil {
		t.Fatal(`FyneApp.toml has no [Capabilities] MicrophoneUsage = "..."`)
	}
	want := "<key>NSMicrophoneUsageDescription</key>\n\t<string>" + string(usage[1]) + "</string>"
	if !bytes.Contains(plist, []byte(want)) {
		t.Errorf("Info.plist does not hold\n%s\nIt reads:\n%s", want, plist)
	}
	for _, kv := range [][2]string{{"CFBundleIdentifier", "io.github.parley"}, {"CFBundleExecutable", "parley"}, {"CFBundleName", "Parley"}} {
		if !bytes.Contains(plist, []byte("<key>"+kv[0]+"</key>\n\t<string>"+kv[1]+"</string>")) {
			t.Errorf("Info.plist does not give %s %q:\n%s", kv[0], kv[1], plist)
		}
	}
}

// clickWord clicks the middle of the first word on the screen that tesseract reads as word,
// waiting up to timeout for it to appear.
func clickWord(t *testing.T, d *testenv.Display, word string, timeout time.Duration) {
	t.Helper()
	testenv.RequireCommands(t, "tesseract", "convert")
	dir := t.TempDir()
	shot, clear := filepath.Join(dir, "screen.png"), filepath.Join(dir, "clear.png")
	testenv.Poll(t, timeout, 300*time.Millisecond, func() error {
		d.Screenshot(t, shot)
		// Grey, contrast stretched and twice the size, as testenv's Read does: coordinates halve.
		if out, err := exec.Command("convert", shot, "-colorspace", "gray", "-normalize", "-resize", "200%", clear).CombinedOutput(); err != nil {
			t.Fatalf("convert: %v: %s", err, out)
		}
		tsv, err := exec.Command("tesseract", clear, "-", "--psm", "11", "tsv").Output() // sparse text: menus too
		if err != nil {
			t.Fatalf("tesseract: %v", err)
		}
		for _, line := range strings.Split(string(tsv), "\n") {
			f := strings.Split(line, "\t")
			if len(f) < 12 || strings.TrimSpace(f[11]) != word {
				continue
			}
			var left, top, width, height int
			fmt.Sscan(f[6], &left)
			fmt.Sscan(f[7], &top)
			fmt.Sscan(f[8], &width)
			fmt.Sscan(f[9], &height)
			d.Click(t, (left+width/2)/2, (top+height/2)/2)
			return nil
		}
		return fmt.Errorf("no word %q appeared on the screen", word)
	})
}

// useInstalledApp drives an installed app whose window is on d and which talks to s: a message
// typed and sent reaches the service and its reply shows, and Help → About names the version,
// the commit and the build date.
func useInstalledApp(t *testing.T, d *testenv.Display, s *service, key, version string) {
	t.Helper()
	testenv.RequireCommands(t, "tesseract")
	d.WaitForText(t, "What's on your mind?", 90*time.Second)
	const text = "Hello from the installed app"
	d.Type(t, text)
	d.Key(t, "Return")
	env := s.env("PARLEY_API_KEY=" + key)
	testenv.WaitUntil(t, 60*time.Second, poll, "the message to reach the service", func() bool {
		r := run(t, env, "", "conversations", "--json")
		var list []map[string]any
		if json.Unmarshal([]byte(r.Stdout), &list) != nil || len(list) == 0 {
			return false
		}
		id, _ := list[0]["id"].(string)
		h := history(t, env, id)
		return len(h.Messages) == 2 && h.Messages[0].Content == text && h.Messages[1].Role == "assistant"
	})
	d.WaitForText(t, "you asked about", 30*time.Second) // the offline responder's reply

	clickWord(t, d, "Help", 20*time.Second)
	clickWord(t, d, "About", 20*time.Second)
	read := strings.Join(strings.Fields(d.WaitForText(t, "commit", 20*time.Second)), " ")
	release, _, _ := strings.Cut(version, "-")
	for _, want := range []string{"About Parley", "parley " + release, "built 20"} {
		if !strings.Contains(read, want) {
			t.Errorf("the About dialog does not show %q; the screen read:\n%s", want, read)
		}
	}
}
