package app

import (
	"testing"

	"fyne.io/fyne/v2"
)

func TestPlaceOnScreen(t *testing.T) {
	laptop := screenRect{0, 0, 1280, 800}
	right := screenRect{1280, 0, 1920, 1080}
	// A 1000×700 window with a window manager's frame: 20 px of title bar, 1 px borders.
	win := func(x, y int) frame {
		return frame{content: screenRect{x, y, 1000, 700}, left: 1, right: 1, top: 20, bottom: 1}
	}
	tests := []struct {
		name     string
		f        frame
		monitors []screenRect
		x, y     int
	}{
		{"on screen: stays", win(200, 100), []screenRect{laptop}, 200, 100},
		{"partly off the right, title bar reachable: stays", win(1000, 100), []screenRect{laptop}, 1000, 100},
		{"on the second monitor: stays", win(1500, 200), []screenRect{laptop, right}, 1500, 200},
		{"second monitor gone: onto the first, inside it", win(1500, 200), []screenRect{laptop}, 279, 99},
		{"title bar above the screen: down to its top", win(200, -300), []screenRect{laptop}, 200, 20},
		{"title bar just below the top: stays", win(200, 20), []screenRect{laptop}, 200, 20},
		{"far left: back in", win(-2000, 50), []screenRect{laptop}, 1, 50},
		{"below the bottom: up, inside", win(100, 900), []screenRect{laptop}, 100, 99},
		{"mostly on the second monitor, title bar off: onto the one it overlaps most", win(1200, -100), []screenRect{laptop, right}, 1281, 20},
		{"larger than the monitor: its top left", frame{content: screenRect{-50, -50, 1600, 1000}, top: 20}, []screenRect{laptop}, 0, 20},
		{"no monitors known: unchanged", win(5000, 5000), nil, 5000, 5000},
		{"no frame (no window manager)", frame{content: screenRect{3000, 10, 1000, 700}}, []screenRect{laptop}, 280, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, y := placeOnScreen(tt.f, tt.monitors)
			if x != tt.x || y != tt.y {
				t.Errorf("placed at %d,%d; want %d,%d", x, y, tt.x, tt.y)
			}
		})
	}
}

func TestApp_SizeIsKeptWhenTheAppLeavesTheForeground(t *testing.T) {
	h := start(t, newFakeService())
	h.u.win.Resize(fyne.NewSize(900, 640))
	h.u.app.Lifecycle().(interface{ OnExitedForeground() func() }).OnExitedForeground()()
	prefs := h.u.app.Preferences()
	if w, ht := prefs.Float(prefWidth), prefs.Float(prefHeight); w != 900 || ht != 640 {
		t.Errorf("saved size %vx%v, want 900x640", w, ht)
	}
}
