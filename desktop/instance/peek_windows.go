package instance

import (
	"net"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// fionread is Winsock's FIONREAD, _IOR('f', 127, u_long): how many bytes wait to be read.
const fionread = 0x4004667f

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
	var n, size uint32
	rc.Control(func(fd uintptr) {
		if windows.WSAIoctl(windows.Handle(fd), fionread, nil, 0, (*byte)(unsafe.Pointer(&n)), 4, &size, nil, 0) != nil {
			n = 0
		}
	})
	return n > 0
}
