// Package display tells whether the desktop app has a display to open its window on, before
// GLFW tries: on Linux without Wayland, GLFW panics with a stack trace when DISPLAY names an X
// server that is not there (a variable left over an ssh session, or an X server that died).
package display

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/jezek/xgb"
)

// ProbeTimeout bounds the wait for an X server named by DISPLAY (one over the network may not
// answer at all).
const ProbeTimeout = 5 * time.Second

// ErrNone means that neither DISPLAY nor WAYLAND_DISPLAY is set.
var ErrNone = errors.New("there is no display (DISPLAY and WAYLAND_DISPLAY are unset)")

// OpenError means that the X display named by DISPLAY could not be opened.
type OpenError struct {
	Display string
	Err     error
}

func (e *OpenError) Error() string {
	return fmt.Sprintf("the X display %q named by DISPLAY cannot be opened (%s)", e.Display, oneLine(e.Err.Error(), 160))
}

func (e *OpenError) Unwrap() error { return e.Err }

// TimeoutError means that the X server named by DISPLAY did not answer in time.
type TimeoutError struct {
	Display string
	After   time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("the X display %q named by DISPLAY did not answer within %v", e.Display, e.After)
}

// Check returns why the desktop app has no display to open its window on (ErrNone, an
// *OpenError or a *TimeoutError), or nil when it has one. getenv reads DISPLAY and
// WAYLAND_DISPLAY. Only Linux without Wayland is checked: DISPLAY's X server is opened as
// GLFW's libX11 would open it, waiting at most timeout.
func Check(getenv func(string) string, timeout time.Duration) error {
	if runtime.GOOS != "linux" || getenv("WAYLAND_DISPLAY") != "" {
		return nil
	}
	name := getenv("DISPLAY")
	if name == "" {
		return ErrNone
	}
	opened := make(chan error, 1)
	go func() { opened <- open(name, time.Now().Add(timeout)) }()
	select {
	case err := <-opened:
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			return &TimeoutError{Display: name, After: timeout}
		case err != nil:
			return &OpenError{Display: name, Err: err}
		}
		return nil
	case <-time.After(timeout):
		return &TimeoutError{Display: name, After: timeout}
	}
}

// open opens the X display name, or says why it cannot. A local display (":N", "unix:N") is
// reached as libxcb reaches it: the socket file /tmp/.X11-unix/XN, else the abstract socket of
// the same name, which is all there is in some containers and sandboxes (they share the
// network namespace with the X server, not its /tmp). Through the file, the connection is
// opened and authenticated as xgb does it. Through the abstract socket, which xgb does not
// dial, the X connection setup is sent without credentials: any answer of protocol version 11
// (accepted, refused or "authenticate") shows an X server there. Whether it accepts this
// user's credentials is left to libX11, which reads them as xgb would.
//
// The file is never dialled only to be closed: an X server with no other client (a bare Xvfb)
// resets when a connection closes, and cuts the next one (xgb's) in the middle of its setup.
func open(name string, deadline time.Time) error {
	n, local := localDisplay(name)
	if !local {
		return openXgb(name)
	}
	file := "/tmp/.X11-unix/X" + n
	ferr := openXgb(name)
	var de *dialError
	if ferr == nil || !errors.As(ferr, &de) {
		return ferr
	}
	abstract := "@" + file
	c, aerr := net.DialTimeout("unix", abstract, time.Until(deadline))
	if aerr != nil {
		return fmt.Errorf("%s: %w; %s: %w", file, de.err, abstract, cause(aerr))
	}
	defer c.Close()
	c.SetDeadline(deadline)
	if err := greet(c); err != nil {
		return fmt.Errorf("%s: %w", abstract, err)
	}
	return nil
}

// dialError is xgb's failure to reach the display at all (no socket file, or nothing listening
// on it), told apart from a failure of the X connection setup.
type dialError struct{ err error }

func (e *dialError) Error() string { return e.err.Error() }

// openXgb opens and authenticates the display name as xgb does, then closes it. xgb says it
// could not reach the display only in words ("cannot connect to :N: dial unix …"), its one
// error before any byte is sent; the cause after "connect: " is kept.
func openXgb(name string) error {
	c, err := xgb.NewConnDisplay(name)
	if err != nil {
		msg := err.Error()
		if strings.HasPrefix(msg, "cannot connect to ") {
			if _, why, ok := strings.Cut(msg, "connect: "); ok {
				return &dialError{errors.New(why)}
			}
			return &dialError{err}
		}
		return err
	}
	c.Close()
	return nil
}

// localDisplay reports whether name is a display on this computer reached by a Unix socket
// (":N", "unix:N", each with an optional ".screen"), and its number N.
func localDisplay(name string) (string, bool) {
	host, rest, ok := strings.Cut(name, ":")
	if !ok || strings.Contains(rest, ":") || host != "" && host != "unix" {
		return "", false
	}
	n, _, _ := strings.Cut(rest, ".")
	if v, err := strconv.Atoi(n); err != nil || v < 0 || strconv.Itoa(v) != n {
		return "", false
	}
	return n, true
}

// cause is a dial error without the operation and address it repeats ("connection refused").
func cause(err error) error {
	if sys := (*os.SyscallError)(nil); errors.As(err, &sys) {
		return sys.Err
	}
	return err
}

// greet sends the X connection setup without credentials and reads the head of the answer:
// an X server answers "refused" or "accepted" with its protocol version, 11.0, or asks for
// more authentication.
func greet(c net.Conn) error {
	setup := []byte{'l', 0, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0} // little-endian, version 11.0, no auth
	if _, err := c.Write(setup); err != nil {
		return err
	}
	head := make([]byte, 8)
	if _, err := io.ReadFull(c, head); err != nil {
		return fmt.Errorf("no X server answered: %w", err)
	}
	const refused, accepted, authenticate = 0, 1, 2
	major, minor := binary.LittleEndian.Uint16(head[2:]), binary.LittleEndian.Uint16(head[4:])
	switch {
	case head[0] == authenticate:
		return nil
	case head[0] != refused && head[0] != accepted:
		return fmt.Errorf("no X server answered (a setup status of %d)", head[0])
	case major != 11 || minor != 0:
		return fmt.Errorf("no X server answered (protocol version %d.%d)", major, minor)
	}
	return nil
}

// oneLine is s on one line, cut to n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
