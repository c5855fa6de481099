//go:build linux

package engine

import (
	"errors"
	"net"
	"os"
	"strconv"
	"testing"
)

// The kernel's tables name the socket that accepted a connection, and its user: this one's, for
// a listener of this test. Before it is accepted the listener's user is judged; once the program
// that took the connection closes it, nothing is trusted, though a listener of this user is
// still there. Over IPv4, a dual-stack listener (its connections in tcp6, IPv4-mapped) and ::1.
func TestCheckOwner_FindsThisUser(t *testing.T) {
	self := strconv.Itoa(os.Getuid())
	for _, c := range []struct{ network, listen, dial string }{
		{"tcp4", "127.0.0.1:0", "127.0.0.1"},
		{"tcp", ":0", "127.0.0.1"}, // the wildcard, dual-stack where the kernel has IPv6
		{"tcp6", "[::1]:0", "::1"},
	} {
		t.Run(c.network+" "+c.listen, func(t *testing.T) {
			ln, err := net.Listen(c.network, c.listen)
			if err != nil {
				if c.network == "tcp6" {
					t.Skipf("no IPv6 here: %v", err)
				}
				t.Fatal(err)
			}
			defer ln.Close()
			conn, err := net.Dial("tcp", net.JoinHostPort(c.dial, strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			local, _ := addrPort(conn.LocalAddr())
			remote, _ := addrPort(conn.RemoteAddr())
			peer := func() (accepted []uint32, queued bool) {
				t.Helper()
				var socks []procSocket
				for _, name := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
					b, err := os.ReadFile(name)
					if err != nil {
						t.Fatal(err)
					}
					s, err := parseProcNetTCP(b)
					if err != nil {
						t.Fatal(err)
					}
					socks = append(socks, s...)
				}
				return peerOwners(socks, local, remote)
			}
			trusted := func(when string) {
				t.Helper()
				if o, err := CheckOwner(local, remote); err != nil || o.ID != self || !o.Trusted || o.Name != "uid "+self {
					t.Errorf("%s: owner %+v, %v; want uid %s, trusted", when, o, err, self)
				}
			}

			if accepted, queued := peer(); len(accepted) != 0 || !queued {
				t.Errorf("before it is accepted: accepted by %v, waiting %v; want waiting", accepted, queued)
			}
			trusted("waiting to be accepted")
			a, err := ln.Accept()
			if err != nil {
				t.Fatal(err)
			}
			if accepted, queued := peer(); len(accepted) != 1 || strconv.Itoa(int(accepted[0])) != self || queued {
				t.Errorf("accepted: by %v, waiting %v; want by uid %s", accepted, queued, self)
			}
			trusted("accepted")
			a.Close()
			if o, err := CheckOwner(local, remote); !errors.Is(err, errNoPeer) {
				t.Errorf("closed by the program that accepted it, its listener still there: %+v, %v; want %v", o, err, errNoPeer)
			}
		})
	}
}

// GuardDial connects to a listener of this user; a check that refuses closes the connection
// before anything is written.
func TestGuardDial(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan []byte, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		b := make([]byte, 16)
		n, _ := c.Read(b)
		got <- b[:n]
	}()
	c, err := GuardDial("Ollama", ownedBy(1001, false))(t.Context(), "tcp", ln.Addr().String())
	var ue *UntrustedError
	if c != nil || !errors.As(err, &ue) || ue.Runtime != "Ollama" || ue.Port != ln.Addr().(*net.TCPAddr).Port {
		t.Fatalf("dialled another user's runtime: %v, %v", c, err)
	}
	if b := <-got; len(b) != 0 {
		t.Errorf("the listener read %q", b)
	}
	c, err = GuardDial("Ollama", nil)(t.Context(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatalf("this user's listener: %v", err)
	}
	c.Close()
	if _, err := GuardDial("Ollama", nil)(t.Context(), "tcp", "192.0.2.1:11434"); err == nil {
		t.Error("dialled off this computer")
	}
}
