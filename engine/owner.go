package engine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"syscall"
)

// Any user of this computer can listen on 127.0.0.1:11434 before Ollama does. Parley therefore
// asks the system who owns the socket listening at a runtime's port before it sends anything
// there, the model-list probe included, and talks only to a program of this user, of root (or
// Windows' SYSTEM) or of a system account (such as the ollama user its Linux installer makes).
//
// Linux reads /proc/net/tcp and /proc/net/tcp6 (owner_linux.go); Windows asks for the process
// that owns the listening socket and its user (owner_windows.go). Other systems (macOS, the
// BSDs) are not checked (owner_other.go): there Parley trusts whatever listens on the port, as
// it did before this check existed.

// Owner is the user whose program listens at a port of this computer.
type Owner struct {
	// ID is the user: a uid on Linux ("1000"), a SID on Windows; "" where the system does not say.
	ID string
	// Name is how messages name the user: "uid 1001", or a Windows account name.
	Name string
	// Trusted is true for this user, root (SYSTEM) and system accounts; and on systems where
	// Parley cannot tell who listens.
	Trusted bool
}

// OwnerCheck says who owns the socket listening at port of 127.0.0.1. Its error says why it
// cannot tell: errNoListener when nothing listens there, else the system's tables could not be
// read.
type OwnerCheck func(port int) (Owner, error)

// errNoListener is an OwnerCheck's error when no socket listens at the port.
var errNoListener = errors.New("no socket listens there")

// CheckOwner is this system's OwnerCheck (see the comment at the top of owner.go).
func CheckOwner(port int) (Owner, error) { return checkOwner(port) }

// UntrustedError is a runtime Parley sends nothing to: the program listening at its port is
// another user's, or Parley cannot tell whose it is.
type UntrustedError struct {
	// Runtime names the kind of runtime expected at the port ("Ollama").
	Runtime string
	Port    int
	// Owner is who listens there; its Name is "" when Err says why it is not known.
	Owner Owner
	// Err is why the owner could not be found; nil when it was.
	Err error
}

// Error is one line for people: "Ollama on port 11434 belongs to another user (uid 1001):
// Parley does not send your conversations to it".
func (e *UntrustedError) Error() string { return e.Where() + " " + e.What() }

// Where names the runtime and its port: "Ollama on port 11434".
func (e *UntrustedError) Where() string {
	name := e.Runtime
	if name == "" {
		name = "the model server"
	}
	return name + " on port " + strconv.Itoa(e.Port)
}

// What says what is wrong with it, after Where.
func (e *UntrustedError) What() string {
	if e.Err != nil {
		return fmt.Sprintf("may belong to another user: Parley cannot tell (%v), so it does not send your conversations to it", e.Err)
	}
	return "belongs to another user (" + e.Owner.Name + "): Parley does not send your conversations to it"
}

// Unwrap returns why the owner could not be found.
func (e *UntrustedError) Unwrap() error { return e.Err }

// OwnerChanged says, for people, that the runtime chosen when the user c.Owner ran it now runs
// as another user: "" when it did not change, or when either is not known.
func (c Chat) OwnerChanged(now Owner) string {
	if c.Owner == "" || now.ID == "" || c.Owner == now.ID {
		return ""
	}
	port := "its port"
	if n, err := loopbackPort(c.URL); err == nil {
		port = "port " + strconv.Itoa(n)
	}
	return fmt.Sprintf("%s now runs as %s, not as %s as when you chose it. If you did not change that, check what listens on %s.",
		c.Where(), now.Name, ownerName(c.Owner), port)
}

// ownerName names a user by the ID an Owner gives it.
func ownerName(id string) string {
	if _, err := strconv.Atoi(id); err == nil {
		return "uid " + id
	}
	return id
}

// GuardDial is a dialer for a runtime on this computer: it connects to 127.0.0.1 only and then,
// before anything is sent, closes the connection and returns an *UntrustedError unless check
// trusts the owner of the socket listening at the port. runtime names the runtime in that error.
func GuardDial(runtime string, check OwnerCheck) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return guard(runtime, check, (&net.Dialer{}).DialContext, nil)
}

// guard is GuardDial over dial; seen, when not nil, is told the owner of each connection made.
func guard(runtime string, check OwnerCheck, dial dialFunc, seen func(Owner)) dialFunc {
	if check == nil {
		check = CheckOwner
	}
	dial = loopbackOnly(dial)
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		if conn.LocalAddr().String() == conn.RemoteAddr().String() {
			// Dialled from the very port it dials, with nothing listening there: Linux connects
			// such a socket to itself. That is no runtime.
			conn.Close()
			return nil, &net.OpError{Op: "dial", Net: network, Addr: conn.RemoteAddr(), Err: syscall.ECONNREFUSED}
		}
		// The check comes after the connection is made: the listener that took it is there to
		// be found, and no other program can take the port from it while the connection lasts.
		_, p, _ := net.SplitHostPort(addr) // loopbackOnly parsed it
		port, _ := strconv.Atoi(p)
		owner, err := check(port)
		switch {
		case errors.Is(err, errNoListener):
			// Gone since it took the connection (or never there: see above): not running.
			conn.Close()
			return nil, &net.OpError{Op: "dial", Net: network, Addr: conn.RemoteAddr(), Err: syscall.ECONNREFUSED}
		case err != nil:
			conn.Close()
			return nil, &UntrustedError{Runtime: runtime, Port: port, Err: err}
		case !owner.Trusted:
			conn.Close()
			return nil, &UntrustedError{Runtime: runtime, Port: port, Owner: owner}
		}
		if seen != nil {
			seen(owner)
		}
		return conn, nil
	}
}

// loopbackPort is the port of a runtime's base URL on 127.0.0.1.
func loopbackPort(base string) (int, error) {
	u, err := url.Parse(base)
	if err != nil || u.Scheme != "http" || u.Hostname() != "127.0.0.1" {
		return 0, fmt.Errorf("%q is not a runtime on 127.0.0.1", base)
	}
	n, err := strconv.Atoi(u.Port())
	if err != nil || n < 1 || n > 65535 {
		return 0, fmt.Errorf("%q has no port", base)
	}
	return n, nil
}
