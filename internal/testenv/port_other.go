//go:build !unix

package testenv

import (
	"net"
	"testing"
)

// reservedPort is a port of 127.0.0.1 just let go: elsewhere than Unix, another program may be
// given it before the test uses it.
func reservedPort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return p
}
