//go:build !no_emoji

package app

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
)

// heapMB is the live heap, after collecting, in MB.
func heapMB() float64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapAlloc) / (1 << 20)
}

// The app draws regular and bold text. Fyne (2.7.1, and 2.8.1 with its symbol font too) parses
// the 4 MB emoji font, and looks up and parses a system font, once for each of them (8.5 MB of
// heap a style; 23 MB of the app's resident memory in all); third_party/fyne.patch loads those
// only when a rune needs them,
// and shares each parsed font file between styles. Measured here as heap growth: these fail on
// Fyne as published.
//
// Parsed font files are kept for the process's life (they are the same under any theme), so the
// test runs in a process of its own, where no other test has drawn an emoji yet.
func TestFonts_FallbacksAreLoadedOnceAndOnlyWhenNeeded(t *testing.T) {
	if os.Getenv("PARLEY_FONTS_ALONE") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestFonts_FallbacksAreLoadedOnceAndOnlyWhenNeeded$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "PARLEY_FONTS_ALONE=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestFonts_FallbacksAreLoadedOnceAndOnlyWhenNeeded") {
			t.Fatalf("the test in a process of its own: %v\n%s", err, out)
		}
		return
	}
	test.NewTempApp(t)
	size := theme.TextSize()
	measure := func(text string, style fyne.TextStyle) float64 {
		before := heapMB()
		if w := fyne.MeasureText(text, size, style).Width; w <= 0 {
			t.Fatalf("%q measured %v wide", text, w)
		}
		return heapMB() - before
	}
	regular, bold := fyne.TextStyle{}, fyne.TextStyle{Bold: true}

	measure("Regular words", regular)
	if grew := measure("Bold words", bold); grew > 3 {
		t.Errorf("bold text grew the heap by %.1f MB: more than its own font (about 1.5 MB), so a fallback font was loaded that no rune needed", grew)
	}
	if grew := measure("Bold 😀", bold); grew < 3 {
		t.Errorf("an emoji in bold grew the heap by only %.1f MB: the emoji font (about 4.7 MB) should have been loaded for it", grew)
	}
	if grew := measure("Regular 😀", regular); grew > 1 {
		t.Errorf("an emoji in regular text grew the heap by %.1f MB after bold had loaded the emoji font: the parsed font should be shared", grew)
	}
	emojiBold := fyne.MeasureText("😀", size, bold).Width
	emojiRegular := fyne.MeasureText("😀", size, regular).Width
	if emojiBold != emojiRegular {
		t.Errorf("😀 is %v wide in bold and %v in regular: both should come from the one emoji font", emojiBold, emojiRegular)
	}
}
