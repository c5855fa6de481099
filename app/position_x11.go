//go:build cgo && !wayland && (linux || freebsd || openbsd || netbsd)

package app

/*
#cgo LDFLAGS: -lX11 -lXrandr
#include <stdlib.h>
#include <X11/Xlib.h>
#include <X11/Xatom.h>
#include <X11/extensions/Xrandr.h>

// Every call opens a connection of its own to the X server (the display GLFW uses is not
// reachable from Go), with an error handler that records X errors instead of ending the
// program, as Xlib's default does: the window may be gone by the time it is asked about.
// Fyne calls these on its main goroutine, where GLFW makes its own X calls, so the handler is
// set and put back with nothing in between.

static int parley_x_failed;

static int parley_x_error(Display *d, XErrorEvent *e) {
	(void)d; (void)e;
	parley_x_failed = 1;
	return 0;
}

typedef int (*parley_handler)(Display *, XErrorEvent *);

static Display *parley_open(parley_handler *prev) {
	Display *d = XOpenDisplay(NULL);
	if (d == NULL) return NULL;
	parley_x_failed = 0;
	*prev = XSetErrorHandler(parley_x_error);
	return d;
}

static int parley_close(Display *d, parley_handler prev) {
	XSync(d, False);
	XSetErrorHandler(prev);
	XCloseDisplay(d);
	return parley_x_failed ? -1 : 0;
}

// parley_window_frame reads where a window's content is on the root window, its size, and the
// window manager's frame around it (_NET_FRAME_EXTENTS: left, right, top, bottom; zero without one).
static int parley_window_frame(Window w, int out[8]) {
	parley_handler prev;
	Display *d = parley_open(&prev);
	if (d == NULL) return -1;
	XWindowAttributes a;
	Window child;
	int x = 0, y = 0;
	if (XGetWindowAttributes(d, w, &a) && XTranslateCoordinates(d, w, a.root, 0, 0, &x, &y, &child)) {
		out[0] = x; out[1] = y; out[2] = a.width; out[3] = a.height;
	} else {
		parley_x_failed = 1;
	}
	out[4] = out[5] = out[6] = out[7] = 0;
	Atom extents = XInternAtom(d, "_NET_FRAME_EXTENTS", True);
	if (!parley_x_failed && extents != None) {
		Atom type;
		int format;
		unsigned long n, after;
		unsigned char *data = NULL;
		if (XGetWindowProperty(d, w, extents, 0, 4, False, XA_CARDINAL, &type, &format, &n, &after, &data) == Success
			&& data != NULL && format == 32 && n == 4) {
			long *e = (long *)data;
			for (int i = 0; i < 4; i++) out[4+i] = (int)e[i];
		}
		if (data != NULL) XFree(data);
	}
	return parley_close(d, prev);
}

// parley_move_window moves a window's content to x, y of the root window. GLFW gives its
// windows StaticGravity, so a window manager puts the content, not its frame, there.
static int parley_move_window(Window w, int x, int y) {
	parley_handler prev;
	Display *d = parley_open(&prev);
	if (d == NULL) return -1;
	XMoveWindow(d, w, x, y);
	return parley_close(d, prev);
}

// parley_monitors writes up to max monitors (x, y, width, height each) and returns how many
// there are: RandR 1.5's monitors, else the whole screen as one.
static int parley_monitors(int *out, int max) {
	parley_handler prev;
	Display *d = parley_open(&prev);
	if (d == NULL) return -1;
	int n = 0, event, error, major = 0, minor = 0;
	Window root = DefaultRootWindow(d);
	if (XRRQueryExtension(d, &event, &error) && XRRQueryVersion(d, &major, &minor) && (major > 1 || (major == 1 && minor >= 5))) {
		int count = 0;
		XRRMonitorInfo *m = XRRGetMonitors(d, root, True, &count);
		if (m != NULL) {
			for (int i = 0; i < count && n < max; i++) {
				if (m[i].width <= 0 || m[i].height <= 0) continue;
				out[4*n] = m[i].x; out[4*n+1] = m[i].y; out[4*n+2] = m[i].width; out[4*n+3] = m[i].height;
				n++;
			}
			XRRFreeMonitors(m);
		}
	}
	if (n == 0 && max > 0) {
		int s = DefaultScreen(d);
		out[0] = 0; out[1] = 0; out[2] = DisplayWidth(d, s); out[3] = DisplayHeight(d, s);
		n = 1;
	}
	if (parley_close(d, prev) != 0) return -1;
	return n;
}
*/
import "C"

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver"
)

// x11Window is the X11 window behind a Fyne window (0: none, such as a test window, or not
// shown yet).
func x11Window(win fyne.Window) C.Window {
	nw, ok := win.(driver.NativeWindow)
	if !ok {
		return 0
	}
	var handle uintptr
	nw.RunNative(func(ctx any) {
		if x, ok := ctx.(driver.X11WindowContext); ok {
			handle = x.WindowHandle
		}
	})
	return C.Window(handle)
}

// nativeWindowFrame reads where the window is on the screen.
func nativeWindowFrame(win fyne.Window) (frame, bool) {
	w := x11Window(win)
	if w == 0 {
		return frame{}, false
	}
	var out [8]C.int
	if C.parley_window_frame(w, &out[0]) != 0 {
		return frame{}, false
	}
	return frame{
		content: screenRect{int(out[0]), int(out[1]), int(out[2]), int(out[3])},
		left:    int(out[4]), right: int(out[5]), top: int(out[6]), bottom: int(out[7]),
	}, true
}

// nativeMoveWindow moves the window's content to x, y of the screen.
func nativeMoveWindow(win fyne.Window, x, y int) bool {
	w := x11Window(win)
	return w != 0 && C.parley_move_window(w, C.int(x), C.int(y)) == 0
}

// nativeMonitors lists the monitors' rectangles (nil when the X server cannot be asked).
func nativeMonitors() []screenRect {
	const most = 16
	var out [4 * most]C.int
	n := int(C.parley_monitors(&out[0], most))
	if n <= 0 {
		return nil
	}
	ms := make([]screenRect, n)
	for i := range ms {
		ms[i] = screenRect{int(out[4*i]), int(out[4*i+1]), int(out[4*i+2]), int(out[4*i+3])}
	}
	return ms
}
