package testenv

import (
	"bufio"
	"errors"
	"fmt"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Display is an X server (Xvfb) of a test's own, for opening real windows, typing into them with
// xdotool, and taking screenshots with ImageMagick's import.
type Display struct {
	// Name is the X display, such as ":42".
	Name string
}

// StartDisplay starts Xvfb on a free display (1280×800, 24 bits) and stops it at cleanup. It
// skips the test (fails it under CI=true) when Xvfb, xdotool or import is missing.
func StartDisplay(t testing.TB) *Display {
	t.Helper()
	RequireCommands(t, "Xvfb", "xdotool", "import")
	return &Display{Name: StartXvfb(t, "1280x800x24", "-noreset")}
}

// Env is the environment entry that points programs at the display.
func (d *Display) Env() string { return "DISPLAY=" + d.Name }

// run runs an X tool on the display and returns its output.
func (d *Display) run(name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), d.Env())
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// WaitForWindow waits until a window whose title is title exists and returns its ID.
func (d *Display) WaitForWindow(t testing.TB, title string, timeout time.Duration) string {
	t.Helper()
	var id string
	Poll(t, timeout, 100*time.Millisecond, func() error {
		out, err := d.run("xdotool", "search", "--name", "^"+title+"$")
		if err == nil && out != "" {
			id = strings.Fields(out)[0]
			return nil
		}
		return fmt.Errorf("no window titled %q appeared", title)
	})
	return id
}

// Type types text into the window that has the keyboard (ASCII only: xdotool drops the rest).
func (d *Display) Type(t testing.TB, text string) {
	t.Helper()
	if out, err := d.run("xdotool", "type", "--delay", "15", text); err != nil {
		t.Fatalf("xdotool type: %v: %s", err, out)
	}
}

// Key presses keys, such as "Return", "shift+Return" or "ctrl+comma".
func (d *Display) Key(t testing.TB, keys ...string) {
	t.Helper()
	if out, err := d.run("xdotool", append([]string{"key", "--delay", "60"}, keys...)...); err != nil {
		t.Fatalf("xdotool key %v: %v: %s", keys, err, out)
	}
}

// KeyDown presses keys, such as "ctrl+alt+space", and holds them until KeyUp.
func (d *Display) KeyDown(t testing.TB, keys string) {
	t.Helper()
	if out, err := d.run("xdotool", "keydown", keys); err != nil {
		t.Fatalf("xdotool keydown %s: %v: %s", keys, err, out)
	}
}

// KeyUp releases keys KeyDown pressed.
func (d *Display) KeyUp(t testing.TB, keys string) {
	t.Helper()
	if out, err := d.run("xdotool", "keyup", keys); err != nil {
		t.Fatalf("xdotool keyup %s: %v: %s", keys, err, out)
	}
}

// Click clicks at a point of the screen.
func (d *Display) Click(t testing.TB, x, y int) {
	t.Helper()
	if out, err := d.run("xdotool", "mousemove", fmt.Sprint(x), fmt.Sprint(y), "click", "1"); err != nil {
		t.Fatalf("xdotool click: %v: %s", err, out)
	}
}

// ClickSettled moves the pointer to a point, gives the app a moment to take the move (a frame
// or two: a press handled before the move lands on what was under the pointer before), then
// clicks there.
func (d *Display) ClickSettled(t testing.TB, x, y int) {
	t.Helper()
	if out, err := d.run("xdotool", "mousemove", fmt.Sprint(x), fmt.Sprint(y), "sleep", "0.3", "click", "1"); err != nil {
		t.Fatalf("xdotool click: %v: %s", err, out)
	}
}

// WheelDown turns the mouse wheel n notches down with the pointer at a point of the screen.
func (d *Display) WheelDown(t testing.TB, x, y, n int) {
	t.Helper()
	if out, err := d.run("xdotool", "mousemove", fmt.Sprint(x), fmt.Sprint(y), "sleep", "0.3", "click", "--repeat", fmt.Sprint(n), "--delay", "100", "5"); err != nil {
		t.Fatalf("xdotool wheel: %v: %s", err, out)
	}
}

// Screenshot saves the whole screen as a PNG at path.
func (d *Display) Screenshot(t testing.TB, path string) {
	t.Helper()
	if out, err := d.run("import", "-window", "root", path); err != nil {
		t.Fatalf("import: %v: %s", err, out)
	}
}

// Read returns the text tesseract reads on the screen (empty when tesseract is missing outside CI).
func (d *Display) Read(t testing.TB) string {
	t.Helper()
	return d.ocr(t)
}

// ocr reads the screen with tesseract, with its extra arguments ("tsv" for word boxes, at twice
// the screen's scale).
func (d *Display) ocr(t testing.TB, args ...string) string {
	t.Helper()
	RequireCommands(t, "tesseract")
	dir := t.TempDir()
	shot, clear := dir+"/screen.png", dir+"/clear.png"
	d.Screenshot(t, shot)
	// Dark text on a light ground, larger, reads best: grey, inverted when the theme is dark,
	// with the contrast stretched so that dim captions read too.
	if out, err := exec.Command("convert", shot, "-colorspace", "gray", "-negate", "-normalize", "-resize", "200%", clear).CombinedOutput(); err != nil {
		t.Fatalf("convert: %v: %s", err, out)
	}
	out, err := exec.Command("tesseract", append([]string{clear, "-"}, args...)...).Output()
	if err != nil {
		t.Fatalf("tesseract: %v", err)
	}
	return string(out)
}

// ReadIn is Read with tesseract's language models langs ("deu", "ukr+eng"): each language's
// package (tesseract-ocr-deu, ...) must be installed.
func (d *Display) ReadIn(t testing.TB, langs string) string {
	t.Helper()
	return d.ocr(t, "-l", langs)
}

// WaitForTextIn is WaitForText, read with tesseract's language models langs.
func (d *Display) WaitForTextIn(t testing.TB, text, langs string, timeout time.Duration) string {
	t.Helper()
	var got string
	Poll(t, timeout, 200*time.Millisecond, func() error {
		got = d.ReadIn(t, langs)
		if strings.Contains(strings.ToLower(strings.Join(strings.Fields(got), " ")), strings.ToLower(text)) {
			return nil
		}
		return fmt.Errorf("the screen did not show %q; it read:\n%s", text, got)
	})
	return got
}

// WaitForText waits until the screen shows text (read by tesseract), and returns what it read.
func (d *Display) WaitForText(t testing.TB, text string, timeout time.Duration) string {
	t.Helper()
	var got string
	Poll(t, timeout, 200*time.Millisecond, func() error {
		got = d.Read(t)
		if strings.Contains(strings.Join(strings.Fields(got), " "), text) {
			return nil
		}
		return fmt.Errorf("the screen did not show %q; it read:\n%s", text, got)
	})
	return got
}

// StartWindowManager runs openbox on d until the test ends, for tests of what a window manager
// does to windows (frames, placement, closing with Alt+F4). It skips the test (fails it under
// CI=true) when openbox is missing.
func (d *Display) StartWindowManager(t testing.TB) {
	t.Helper()
	RequireCommands(t, "openbox")
	home := t.TempDir()
	cmd := exec.Command("openbox", "--sm-disable")
	cmd.Env = append(os.Environ(), d.Env(), "HOME="+home, "XDG_CONFIG_HOME="+home, "XDG_CACHE_HOME="+home)
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting openbox: %v", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	// Ready when it has claimed the screen: until then xdotool says that the window manager
	// "claims not to support _NET_ACTIVE_WINDOW".
	Poll(t, 15*time.Second, 50*time.Millisecond, func() error {
		if out, err := d.run("xdotool", "getactivewindow"); err == nil || !strings.Contains(out, "claims not to support") {
			return nil
		}
		select {
		case <-exited:
			t.Fatal("openbox exited at start")
		default:
		}
		return errors.New("openbox did not start")
	})
}

// Geometry is a window's place and size as xdotool reports them. Under a reparenting window
// manager xdotool adds the frame's offset (border, title bar) to the position: compare positions
// read the same way, not with what was asked of xdotool windowmove.
type Geometry struct{ X, Y, Width, Height int }

// WindowGeometry reads a window's geometry.
func (d *Display) WindowGeometry(t testing.TB, id string) Geometry {
	t.Helper()
	out, err := d.run("xdotool", "getwindowgeometry", "--shell", id)
	if err != nil {
		t.Fatalf("xdotool getwindowgeometry: %v: %s", err, out)
	}
	var g Geometry
	for _, line := range strings.Fields(out) {
		k, v, _ := strings.Cut(line, "=")
		n, _ := strconv.Atoi(v)
		switch k {
		case "X":
			g.X = n
		case "Y":
			g.Y = n
		case "WIDTH":
			g.Width = n
		case "HEIGHT":
			g.Height = n
		}
	}
	return g
}

// MoveWindow moves a window as a person dragging it would (through the window manager, when
// one runs).
func (d *Display) MoveWindow(t testing.TB, id string, x, y int) {
	t.Helper()
	if out, err := d.run("xdotool", "windowmove", id, strconv.Itoa(x), strconv.Itoa(y)); err != nil {
		t.Fatalf("xdotool windowmove: %v: %s", err, out)
	}
}

// ResizeWindow gives a window a new size, as a person dragging its edge would.
func (d *Display) ResizeWindow(t testing.TB, id string, width, height int) {
	t.Helper()
	if out, err := d.run("xdotool", "windowsize", id, strconv.Itoa(width), strconv.Itoa(height)); err != nil {
		t.Fatalf("xdotool windowsize: %v: %s", err, out)
	}
}

// Lightness is the mean lightness of the screen (0 black, 1 white), read from a screenshot.
func (d *Display) Lightness(t testing.TB) float64 {
	t.Helper()
	path := filepath.Join(t.TempDir(), "screen.png")
	d.Screenshot(t, path)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("reading the screenshot: %v", err)
	}
	var sum float64
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			sum += float64(color.GrayModel.Convert(img.At(x, y)).(color.Gray).Y) / 255
		}
	}
	return sum / float64(((b.Dx()+1)/2)*((b.Dy()+1)/2))
}

// Box is where a word is on the screen.
type Box struct{ X, Y, W, H int }

// Center is the middle of the box.
func (b Box) Center() (int, int) { return b.X + b.W/2, b.Y + b.H/2 }

// FindWord waits until tesseract reads word on the screen, and returns where (the first such
// word, top to bottom, in either case; a word read with an icon's marks glued to its front,
// "[]Copy", counts).
func (d *Display) FindWord(t testing.TB, word string, timeout time.Duration) Box {
	t.Helper()
	var box Box
	Poll(t, timeout, 200*time.Millisecond, func() error {
		if boxes := d.Words(t, word); len(boxes) > 0 {
			box = boxes[0]
			return nil
		}
		return fmt.Errorf("the screen did not show the word %q", word)
	})
	return box
}

// Words is where tesseract reads word on the screen now, top to bottom (in either case; a word
// read with an icon's marks glued to its front, "[]Copy", counts).
func (d *Display) Words(t testing.TB, word string) []Box {
	t.Helper()
	var boxes []Box
	// level page block par line word left top width height conf text
	for _, ln := range strings.Split(d.ocr(t, "tsv"), "\n") {
		f := strings.Split(ln, "\t")
		// Case aside: tesseract reads a bold "Copy" as "copy" now and then.
		if len(f) < 12 || f[0] != "5" || !strings.HasSuffix(strings.ToLower(strings.TrimSpace(f[11])), strings.ToLower(word)) {
			continue
		}
		var b Box
		fmt.Sscan(f[6], &b.X)
		fmt.Sscan(f[7], &b.Y)
		fmt.Sscan(f[8], &b.W)
		fmt.Sscan(f[9], &b.H)
		// The image was read at twice its size; the word is at the end of what was read.
		read := strings.TrimSpace(f[11])
		cut := b.W * (len(read) - len(word)) / max(len(read), 1)
		boxes = append(boxes, Box{(b.X + cut) / 2, b.Y / 2, (b.W - cut) / 2, b.H / 2})
	}
	return boxes
}

// Drag presses the first mouse button at one point, moves to another and releases it there.
func (d *Display) Drag(t testing.TB, x0, y0, x1, y1 int) {
	t.Helper()
	steps := []string{"mousemove", fmt.Sprint(x0), fmt.Sprint(y0), "mousedown", "1", "sleep", "0.2"}
	for i := 1; i <= 5; i++ {
		steps = append(steps, "mousemove", fmt.Sprint(x0+(x1-x0)*i/5), fmt.Sprint(y0+(y1-y0)*i/5), "sleep", "0.05")
	}
	steps = append(steps, "sleep", "0.2", "mouseup", "1")
	if out, err := d.run("xdotool", steps...); err != nil {
		t.Fatalf("xdotool drag: %v: %s", err, out)
	}
}

// Clipboard is the text on the display's clipboard (read with xclip), "" when it holds none.
func (d *Display) Clipboard(t testing.TB) string {
	t.Helper()
	RequireCommands(t, "xclip")
	cmd := exec.Command("xclip", "-o", "-selection", "clipboard")
	cmd.Env = append(os.Environ(), d.Env())
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return string(out)
}

// StartXvfb starts Xvfb on a free display with a screen of the size given ("1280x800x24") and
// extra arguments, and returns the display's name (":42"). It ends Xvfb at cleanup: SIGTERM
// first, on which it removes its lock and socket files, then a kill after 10 s.
func StartXvfb(t testing.TB, screen string, args ...string) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("Xvfb", append([]string{"-displayfd", "3", "-screen", "0", screen, "-nolisten", "tcp"}, args...)...)
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting Xvfb: %v", err)
	}
	w.Close()
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { EndProcess(cmd, syscall.SIGTERM, exited, 10*time.Second) })
	number := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		number <- strings.TrimSpace(line)
		r.Close()
	}()
	select {
	case n := <-number:
		if n == "" {
			t.Fatal("Xvfb did not report its display")
		}
		return ":" + n
	case <-exited:
		t.Fatal("Xvfb exited at start")
	case <-time.After(20 * time.Second):
		t.Fatal("Xvfb did not start within 20 s")
	}
	return ""
}
