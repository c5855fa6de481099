//go:build linux

package engine

import (
	"errors"
	"net"
	"os"
	"strconv"
	"testing"
)

// The owner of a socket this test listens on is found in the kernel's tables: this user.
func TestCheckOwner_FindsThisUser(t *testing.T) {
	for _, network := range []string{"tcp4", "tcp"} {
		addr := "127.0.0.1:0"
		if network == "tcp" {
			addr = ":0" // the wildcard, dual-stack where the kernel has IPv6
		}
		ln, err := net.Listen(network, addr)
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		o, err := CheckOwner(port)
		if err != nil || o.ID != strconv.Itoa(os.Getuid()) || !o.Trusted || o.Name != "uid "+o.ID {
			t.Errorf("%s %s: owner %+v, %v; want uid %d, trusted", network, ln.Addr(), o, err, os.Getuid())
		}
		ln.Close()
		if _, err := CheckOwner(port); err == nil {
			t.Errorf("%s: an owner found once nothing listens at port %d", network, port)
		}
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
