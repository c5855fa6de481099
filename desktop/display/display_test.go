package display_test

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"parley/desktop/display"
	"parley/internal/testenv"
)

// free is a display number no X server uses (checked by needFree): the tests listen on its
// abstract socket themselves.
const free = "9731"

// needFree skips the test where something listens on display free already.
func needFree(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the display checks, and abstract sockets, are Linux's")
	}
	if _, err := os.Stat("/tmp/.X11-unix/X" + free); err == nil {
		t.Skipf("an X server listens on :%s here", free)
	}
	if c, err := net.Dial("unix", "@/tmp/.X11-unix/X"+free); err == nil {
		c.Close()
		t.Skipf("something listens on the abstract socket of :%s here", free)
	}
}

// env is a getenv with these variables only.
func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// listenAbstract listens on display free's abstract socket, as an X server in another mount
// namespace (a container's host) does, and has serve answer each connection.
func listenAbstract(t *testing.T, serve func(net.Conn)) {
	t.Helper()
	ln, err := net.Listen("unix", "@/tmp/.X11-unix/X"+free)
	if err != nil {
		t.Fatal(err)
	}
	testenv.HoldConnections(t, ln, serve)
}

// refuseSetup answers an X connection setup as an X server that wants credentials does: the
// setup is refused, in protocol version 11.0.
func refuseSetup(c net.Conn) {
	defer c.Close()
	setup := make([]byte, 12)
	if _, err := io.ReadFull(c, setup); err != nil {
		return
	}
	reason := "No protocol specified\n\x00\x00" // padded to 4 bytes
	head := make([]byte, 8)
	head[0], head[1] = 0, byte(len("No protocol specified\n"))
	binary.LittleEndian.PutUint16(head[2:], 11)
	binary.LittleEndian.PutUint16(head[4:], 0)
	binary.LittleEndian.PutUint16(head[6:], uint16(len(reason)/4))
	c.Write(append(head, reason...))
}

func TestCheck_NoDisplayOrWayland(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the display checks are Linux's")
	}
	if err := display.Check(env(), time.Second); !errors.Is(err, display.ErrNone) {
		t.Errorf("no DISPLAY nor WAYLAND_DISPLAY: %v, want ErrNone", err)
	}
	if err := display.Check(env("WAYLAND_DISPLAY", "wayland-0", "DISPLAY", ":"+free), time.Second); err != nil {
		t.Errorf("under Wayland: %v, want nil (GLFW uses Wayland)", err)
	}
}

// Nothing on either socket: the display is refused, and the message names both.
func TestCheck_NothingListens(t *testing.T) {
	needFree(t)
	err := display.Check(env("DISPLAY", ":"+free), 5*time.Second)
	var oe *display.OpenError
	if !errors.As(err, &oe) {
		t.Fatalf("Check = %v, want an *OpenError", err)
	}
	msg := err.Error()
	for _, want := range []string{`the X display ":` + free + `" named by DISPLAY cannot be opened (`, "/tmp/.X11-unix/X" + free + ": ", "@/tmp/.X11-unix/X" + free + ": "} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
}

// An X server reached only through its abstract socket (a container sharing the host's network
// namespace, not its /tmp) is a display: GLFW's libxcb reaches it there. Before, xgb tried only
// the file, and Parley refused to start on a working display.
func TestCheck_AbstractSocketOnly(t *testing.T) {
	needFree(t)
	listenAbstract(t, refuseSetup)
	for _, name := range []string{":" + free, ":" + free + ".0", "unix:" + free} {
		if err := display.Check(env("DISPLAY", name), 5*time.Second); err != nil {
			t.Errorf("DISPLAY=%s with only the abstract socket: %v, want a display", name, err)
		}
	}
}

// Something on the abstract socket that is not an X server is no display.
func TestCheck_AbstractSocketThatIsNotX(t *testing.T) {
	needFree(t)
	listenAbstract(t, func(c net.Conn) {
		defer c.Close()
		bufio.NewReader(c).Peek(12)
		c.Write([]byte("HTTP/1.1 400 Bad Request\r\n\r\n"))
	})
	err := display.Check(env("DISPLAY", ":"+free), 5*time.Second)
	var oe *display.OpenError
	if !errors.As(err, &oe) || !strings.Contains(err.Error(), "no X server answered") {
		t.Errorf("Check = %v, want an *OpenError saying no X server answered", err)
	}
}

// An X server that takes the connection and never answers is reported as not answering in
// time, not waited on.
func TestCheck_AbstractSocketThatNeverAnswers(t *testing.T) {
	needFree(t)
	listenAbstract(t, func(c net.Conn) { io.Copy(io.Discard, c) })
	err := display.Check(env("DISPLAY", ":"+free), 100*time.Millisecond)
	var te *display.TimeoutError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "did not answer within 100ms") {
		t.Errorf("Check = %v, want a *TimeoutError", err)
	}
}

// A real X server (Xvfb) that listens only on its abstract socket (-nolisten unix), and one
// that listens on both, are displays.
func TestCheck_RealXServer(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the display checks are Linux's")
	}
	testenv.RequireCommands(t, "Xvfb")
	for _, c := range []struct {
		name string
		args []string
	}{
		{"abstract socket only", []string{"-nolisten", "unix"}},
		{"socket file too", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			name := testenv.StartXvfb(t, "64x64x24", c.args...)
			if c.args != nil {
				// A file left by an X server that was killed may be there: nothing answers on it.
				if conn, err := net.Dial("unix", "/tmp/.X11-unix/X"+name[1:]); err == nil {
					conn.Close()
					t.Fatalf("Xvfb %v listens on its socket file: the test proves nothing", c.args)
				}
			}
			if err := display.Check(env("DISPLAY", name), 20*time.Second); err != nil {
				t.Errorf("DISPLAY=%s: %v, want a display", name, err)
			}
		})
	}
}

// An X server with no client but Parley (a bare Xvfb, as xvfb-run starts) resets when a
// connection closes. Check once dialled the socket file only to close it, and the reset cut
// xgb's connection in its setup: 12% of starts on an idle machine failed with "EOF" or
// "connection reset by peer". Each of 40 fresh servers must be found.
func TestCheck_BareXServerThatResets(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the display checks are Linux's")
	}
	testenv.RequireCommands(t, "Xvfb")
	for i := 0; i < 40; i++ {
		t.Run("", func(t *testing.T) {
			name := testenv.StartXvfb(t, "64x64x24") // no -noreset
			if err := display.Check(env("DISPLAY", name), 20*time.Second); err != nil {
				t.Errorf("DISPLAY=%s, a server that resets when its last client goes: %v, want a display", name, err)
			}
		})
	}
}
