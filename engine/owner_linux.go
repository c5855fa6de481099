//go:build linux

package engine

import (
	"net/netip"
	"os"
)

// checkOwner reads /proc/net/tcp and tcp6 for the socket at the other end of the connection from
// local to remote (see ownerFromProc), and trusts this user, root and the system accounts (uids
// below /etc/login.defs' UID_MIN).
func checkOwner(local, remote netip.AddrPort) (Owner, error) {
	return ownerFromProc(os.ReadFile, systemUIDPolicy(), local, remote)
}

// systemUIDPolicy is this process's user and this system's UID_MIN.
func systemUIDPolicy() uidPolicy {
	min := defaultUIDMin
	if b, err := os.ReadFile("/etc/login.defs"); err == nil {
		min = parseUIDMin(b)
	}
	return uidPolicy{Self: os.Getuid(), Min: min}
}
