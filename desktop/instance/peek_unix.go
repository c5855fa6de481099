//go:build unix

package instance

import (
	"net"
	"syscall"
)

// hasData reports, without waiting and without taking the connection's reader's place, whether
// c has bytes waiting to be read: a start of Parley sends its request as soon as it connects.
func hasData(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	n := 0
	// Control, not Read: a goroutine may be blocked reading c, and Read would wait for it.
	// Go's sockets do not block, so the peek returns at once when nothing is there.
	rc.Control(func(fd uintptr) {
		var b [1]byte
		n, _, _ = syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK)
	})
	return n > 0
}
