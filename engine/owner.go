package engine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"syscall"

	"parley/internal/i18n"
	"parley/internal/loopback"
)

// Any user of this computer can listen on 127.0.0.1:11434 before Ollama does. Parley therefore
// asks the system whose program holds the other end of each connection it makes to a runtime on
// this computer before it sends anything there, the model-list probe included, and talks only to
// a program of this user, of root (or Windows' SYSTEM) or of a system account (such as the
// ollama user its Linux installer makes). The same goes for a server a person typed the address
// of, when that address is this computer's (localhost, 127.0.0.0/8, ::1): the person chose the
// port, not who listens there.
//
// The check asks about the connection made, not about whoever listens at the port when the
// check runs: a listener of another user could take the connection, close and be replaced by a
// program of this user in between, but the socket that accepted the connection stays its
// program's user's while the connection lasts.
//
// Linux reads /proc/net/tcp and /proc/net/tcp6 (owner_linux.go, procnet.go); Windows asks for
// the process that holds the connection's other end and its user (owner_windows.go, untested:
// see there). Other systems (macOS, the BSDs) are not checked (owner_other.go): there Parley
// trusts whatever listens on the port, as it did before this check existed.

// Owner is the user whose program holds the other end of a connection to a port of this computer.
type Owner struct {
	// ID is the user: a uid on Linux ("1000"), a SID on Windows; "" where the system does not say.
	ID string
	// Name is how messages name the user: "uid 1001", or a Windows account name.
	Name string
	// Trusted is true for this user, root (SYSTEM) and system accounts; and on systems where
	// Parley cannot tell who listens.
	Trusted bool
}

// OwnerCheck says whose program holds the other end of a connection Parley made on this computer
// from local to remote (addresses as Go names them; an IPv4-mapped one is taken as the IPv4 one).
// Its error says why it cannot tell: errNoPeer when that end is gone, else the system's tables
// could not be read or its user cannot be known.
type OwnerCheck func(local, remote netip.AddrPort) (Owner, error)

// errNoPeer is an OwnerCheck's error when nothing holds the other end of the connection: it was
// closed since it was accepted, or it was never there (see guard).
var errNoPeer = errors.New("nothing holds the other end of the connection")

// CheckOwner is this system's OwnerCheck (see the comment at the top of owner.go).
func CheckOwner(local, remote netip.AddrPort) (Owner, error) { return checkOwner(local, remote) }

// UntrustedError is a runtime Parley sends nothing to: the program that took the connection to
// its port is another user's, or Parley cannot tell whose it is.
type UntrustedError struct {
	// Runtime names the kind of runtime expected at the port ("Ollama").
	Runtime string
	Port    int
	// Owner is whose program took the connection; its Name is "" when Err says why it is not known.
	Owner Owner
	// Err is why the owner could not be found; nil when it was.
	Err error
}

// Error is one line for people: "Ollama on port 11434 belongs to another user (uid 1001):
// Parley does not send your conversations to it".
func (e *UntrustedError) Error() string {
	switch {
	case e.Runtime == "" && e.Err != nil:
		return fmt.Sprintf(i18n.T("the model server on port %d may belong to another user: Parley cannot tell (%v), so it does not send your conversations to it"), e.Port, e.Err)
	case e.Runtime == "":
		return fmt.Sprintf(i18n.T("the model server on port %d belongs to another user (%s): Parley does not send your conversations to it"), e.Port, e.Owner.Name)
	case e.Err != nil:
		return fmt.Sprintf(i18n.T("%s on port %d may belong to another user: Parley cannot tell (%v), so it does not send your conversations to it"), e.Runtime, e.Port, e.Err)
	}
	return fmt.Sprintf(i18n.T("%s on port %d belongs to another user (%s): Parley does not send your conversations to it"), e.Runtime, e.Port, e.Owner.Name)
}

// Where names the runtime and its port: "Ollama on port 11434", in English, for the service's
// sentences (Error is the one for people).
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

// SentenceAt says, for people, what is wrong with the server named where ("the model server at
// 127.0.0.1:8080 on this computer"), without a closing stop.
func (e *UntrustedError) SentenceAt(where string) string {
	if e.Err != nil {
		return fmt.Sprintf(i18n.T("%[1]s may belong to another user: Parley cannot tell (%[2]v), so it does not send your conversations to it"), where, e.Err)
	}
	return fmt.Sprintf(i18n.T("%[1]s belongs to another user (%[2]s): Parley does not send your conversations to it"), where, e.Owner.Name)
}

// Unwrap returns why the owner could not be found.
func (e *UntrustedError) Unwrap() error { return e.Err }

// OwnerChanged says, for people, that the runtime chosen when the user c.Owner ran it now runs
// as another user: "" when it did not change, or when either is not known.
func (c Chat) OwnerChanged(now Owner) string {
	if c.Owner == "" || now.ID == "" || c.Owner == now.ID {
		return ""
	}
	if n, err := loopbackPort(c.URL); err == nil {
		return fmt.Sprintf(i18n.T("%s now runs as %s, not as %s as when you chose it. If you did not change that, check what listens on port %d."),
			c.Where(), now.Name, ownerName(c.Owner), n)
	}
	return fmt.Sprintf(i18n.T("%s now runs as %s, not as %s as when you chose it. If you did not change that, check what listens on its port."),
		c.Where(), now.Name, ownerName(c.Owner))
}

// ownerName names a user by the ID an Owner gives it.
func ownerName(id string) string {
	if _, err := strconv.Atoi(id); err == nil {
		return "uid " + id
	}
	return id
}

// GuardDial is a dialer for a runtime found on this computer: it connects to 127.0.0.1 only and
// then, before anything is sent, closes the connection and returns an *UntrustedError unless
// check (nil: CheckOwner) trusts the user of the program that holds its other end. runtime names
// the runtime in that error.
func GuardDial(runtime string, check OwnerCheck) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return guard(runtime, check, (&net.Dialer{}).DialContext, nil)
}

// LoopbackTransport is the HTTP transport to a server on this computer whose address a person
// gave (localhost, 127.0.0.0/8 or ::1; see loopback.Host): no proxy, and each connection checked
// as GuardDial checks it (check nil: CheckOwner; name names the server in an *UntrustedError, ""
// for "the model server"). A connection kept for the next request needs no new check: the
// program at its other end cannot change while it lasts.
func LoopbackTransport(name string, check OwnerCheck) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil
	t.DialContext = guardConn(name, check, thisComputerOnly((&net.Dialer{}).DialContext), nil)
	return t
}

// guard is GuardDial over dial; seen, when not nil, is told the owner of each connection made.
func guard(runtime string, check OwnerCheck, dial dialFunc, seen func(Owner)) dialFunc {
	return guardConn(runtime, check, loopbackOnly(dial), seen)
}

// guardConn connects with dial, which dials this computer only, and keeps the connection when
// check trusts the user of the program at its other end.
func guardConn(runtime string, check OwnerCheck, dial dialFunc, seen func(Owner)) dialFunc {
	if check == nil {
		check = CheckOwner
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		refused := &net.OpError{Op: "dial", Net: network, Addr: conn.RemoteAddr(), Err: syscall.ECONNREFUSED}
		local, lok := addrPort(conn.LocalAddr())
		remote, rok := addrPort(conn.RemoteAddr())
		if !lok || !rok {
			conn.Close()
			return nil, &UntrustedError{Runtime: runtime, Port: int(remote.Port()),
				Err: fmt.Errorf("the connection's ends are %s and %s, not TCP addresses", conn.LocalAddr(), conn.RemoteAddr())}
		}
		if local == remote {
			// Dialled from the very port it dials, with nothing listening there: Linux connects
			// such a socket to itself. That is no runtime.
			conn.Close()
			return nil, refused
		}
		port := int(remote.Port())
		owner, err := check(local, remote)
		switch {
		case errors.Is(err, errNoPeer):
			// Closed since it took the connection (or never there: see above): not running.
			conn.Close()
			return nil, refused
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

// addrPort is a TCP connection's end a, an IPv4-mapped address as the IPv4 one.
func addrPort(a net.Addr) (netip.AddrPort, bool) {
	t, ok := a.(*net.TCPAddr)
	if !ok {
		return netip.AddrPort{}, false
	}
	ap := t.AddrPort()
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), ap.IsValid()
}

// thisComputerOnly refuses to dial anything but this computer: localhost, 127.0.0.0/8 or ::1.
// Where localhost leads is the system's hosts file's say, so the address connected to is
// checked too.
func thisComputerOnly(dial dialFunc) dialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if !loopback.URL("http://" + addr) {
			return nil, fmt.Errorf("a server on this computer is at localhost, 127.0.0.1 or ::1, not %q", addr)
		}
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		if ap, ok := addrPort(conn.RemoteAddr()); !ok || !ap.Addr().IsLoopback() {
			conn.Close()
			return nil, fmt.Errorf("%s led to %s, which is not this computer", addr, conn.RemoteAddr())
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
