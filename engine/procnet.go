package engine

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"strconv"
	"strings"
)

// This file reads the systems' tables of TCP sockets (Linux's /proc/net/tcp, Windows'
// GetExtendedTcpTable) and decides whom Parley trusts. It is built on every system so that its
// tests and fuzz target run everywhere; owner_linux.go and owner_windows.go use it.

// States of sockets in /proc/net/tcp.
const (
	// tcpEstablished is a connected socket ("01").
	tcpEstablished = 0x01
	// tcpSynRecv is a connection whose handshake the listener has not finished seeing ("03").
	tcpSynRecv = 0x03
	// tcpListen is a listening socket ("0A").
	tcpListen = 0x0A
)

// procSocket is one line of /proc/net/tcp or /proc/net/tcp6.
type procSocket struct {
	Local, Remote netip.AddrPort
	State         uint8
	// UID is the socket's user: for a socket a program accepted, that program's user.
	UID uint32
	// Inode is the socket's inode; 0 while no program holds it (a connection waiting in a
	// listener's queue to be accepted, or one closed).
	Inode uint64
}

// maxProcLines caps how many sockets are read from one table.
const maxProcLines = 1 << 20

// parseProcNetTCP reads /proc/net/tcp or /proc/net/tcp6: a header line, then one socket a line,
// "sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode …",
// addresses in hex as the kernel keeps them (each 32-bit word in this machine's byte order) and
// ports in hex. A line it cannot read is an error, so that no socket goes unseen.
func parseProcNetTCP(data []byte) ([]procSocket, error) {
	var out []procSocket
	for n, line := range bytes.Split(data, []byte("\n")) {
		f := strings.Fields(string(line))
		if len(f) == 0 || n == 0 && f[0] == "sl" {
			continue
		}
		if len(out) == maxProcLines {
			return nil, errors.New("too many sockets")
		}
		if len(f) < 10 || !strings.HasSuffix(f[0], ":") {
			return nil, fmt.Errorf("line %d: not a socket: %.80q", n+1, line)
		}
		local, err := parseProcAddr(f[1])
		if err != nil {
			return nil, fmt.Errorf("line %d: local address: %w", n+1, err)
		}
		remote, err := parseProcAddr(f[2])
		if err != nil {
			return nil, fmt.Errorf("line %d: remote address: %w", n+1, err)
		}
		st, err := strconv.ParseUint(f[3], 16, 8)
		if err != nil || len(f[3]) != 2 {
			return nil, fmt.Errorf("line %d: state %.10q", n+1, f[3])
		}
		uid, err := strconv.ParseUint(f[7], 10, 32)
		if err != nil {
			return nil, fmt.Errorf("line %d: uid %.20q", n+1, f[7])
		}
		inode, err := strconv.ParseUint(f[9], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("line %d: inode %.30q", n+1, f[9])
		}
		out = append(out, procSocket{Local: local, Remote: remote, State: uint8(st), UID: uint32(uid), Inode: inode})
	}
	return out, nil
}

// parseProcAddr reads "0100007F:2CAA" (127.0.0.1:11434) or its 32-hex-digit IPv6 form.
func parseProcAddr(s string) (netip.AddrPort, error) {
	a, p, ok := strings.Cut(s, ":")
	if !ok || len(p) != 4 || len(a) != 8 && len(a) != 32 {
		return netip.AddrPort{}, fmt.Errorf("%.60q is not an address", s)
	}
	port, err := strconv.ParseUint(p, 16, 16)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("%.60q: port: %w", s, err)
	}
	raw, err := hex.DecodeString(a)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("%.60q: %w", s, err)
	}
	// The kernel prints each 32-bit word of the address (kept in network order) as a number
	// of this machine's byte order: put the words back as they are in memory.
	b := make([]byte, len(raw))
	for i := 0; i < len(raw); i += 4 {
		binary.NativeEndian.PutUint32(b[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	addr, _ := netip.AddrFromSlice(b)
	return netip.AddrPortFrom(addr, uint16(port)), nil
}

// reachesLoopback reports whether a socket listening at a reaches connections to 127.0.0.1:
// 127.0.0.1 itself, 0.0.0.0, :: (dual-stack) or their IPv4-mapped forms. ::1 is taken too: a
// program of another user listening there is reason enough to stay away from the port.
func reachesLoopback(a netip.Addr) bool {
	a = a.Unmap()
	return a == netip.AddrFrom4([4]byte{127, 0, 0, 1}) || a.IsUnspecified() || a == netip.IPv6Loopback()
}

// unmap is a with an IPv4-mapped IPv6 address (::ffff:127.0.0.1) as the IPv4 address it maps:
// the kernel lists a connection to a dual-stack listener in /proc/net/tcp6 that way, Go
// names its ends in either form.
func unmap(a netip.AddrPort) netip.AddrPort { return netip.AddrPortFrom(a.Addr().Unmap(), a.Port()) }

// listenerOwners are the uids of the sockets in socks that listen at to's port on an address
// reaching to (to's own, the wildcard addresses, or 127.0.0.1 and ::1 as reachesLoopback
// says), the most specific first (to's own address, then the others).
func listenerOwners(socks []procSocket, to netip.AddrPort) []uint32 {
	var exact, wild []uint32
	for _, s := range socks {
		if s.State != tcpListen || s.Local.Port() != to.Port() {
			continue
		}
		switch a := s.Local.Addr().Unmap(); {
		case a == to.Addr().Unmap():
			exact = append(exact, s.UID)
		case reachesLoopback(a):
			wild = append(wild, s.UID)
		}
	}
	return append(exact, wild...)
}

// peerOwners finds, in socks, the other end of the connection Parley made from local to remote:
// the socket whose local address is remote and whose remote address is local, connected or
// finishing its handshake. accepted are the uids of such sockets a program holds (it accepted the
// connection: its user is the uid, which no other program can change while the connection
// lasts); queued is true when one waits in its listener's queue, accepted by no program yet.
// Neither means the other end is gone: it was closed, or shut for sending, since it took the
// connection.
func peerOwners(socks []procSocket, local, remote netip.AddrPort) (accepted []uint32, queued bool) {
	local, remote = unmap(local), unmap(remote)
	for _, s := range socks {
		if s.State != tcpEstablished && s.State != tcpSynRecv || unmap(s.Local) != remote || unmap(s.Remote) != local {
			continue
		}
		if s.Inode == 0 {
			queued = true
		} else {
			accepted = append(accepted, s.UID)
		}
	}
	return accepted, queued
}

// uidPolicy says whose programs Parley trusts with conversations on a system with uids.
type uidPolicy struct {
	// Self is this process's user.
	Self int
	// Min is the first uid of an ordinary user (login.defs' UID_MIN): those below it are root
	// and system accounts, which only an administrator creates.
	Min int
}

// trusts reports whether p trusts a program of uid.
func (p uidPolicy) trusts(uid uint32) bool {
	return int64(uid) == int64(p.Self) || uid == 0 || int64(uid) < int64(p.Min)
}

// defaultUIDMin is UID_MIN when /etc/login.defs does not say.
const defaultUIDMin = 1000

// parseUIDMin reads UID_MIN from the text of /etc/login.defs: defaultUIDMin when it is missing
// or not a number.
func parseUIDMin(data []byte) int {
	for line := range strings.SplitSeq(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "UID_MIN" {
			n, err := strconv.ParseUint(f[1], 10, 31)
			if err != nil {
				return defaultUIDMin
			}
			return int(n)
		}
	}
	return defaultUIDMin
}

// ownerFromProc finds who holds the other end of the connection Parley made from local to remote,
// reading the socket tables with read (os.ReadFile on Linux) and judging with p.
//
// The other end is found among the connected sockets (peerOwners), not among the listeners: a
// listener of another user could take the connection, close, and give the port to a program of
// this user before the tables are read, but the socket that accepted the connection stays its
// user's for as long as the connection lasts. While no program has accepted it yet, the kernel
// gives it no user of its own (older kernels show uid 0, newer ones the listener's): it waits in
// the queue of the listener at remote, and is reset should that listener close, so the listeners
// at remote's port are judged instead: every one reaching remote must be trusted. The Owner is the
// first untrusted user found, else the first.
func ownerFromProc(read func(name string) ([]byte, error), p uidPolicy, local, remote netip.AddrPort) (Owner, error) {
	var socks []procSocket
	for _, name := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := read(name)
		if err != nil {
			if name == "/proc/net/tcp6" && errors.Is(err, fs.ErrNotExist) {
				continue // a kernel without IPv6
			}
			return Owner{}, fmt.Errorf("reading %s: %w", name, err)
		}
		s, err := parseProcNetTCP(b)
		if err != nil {
			return Owner{}, fmt.Errorf("reading the socket tables: %w", err)
		}
		socks = append(socks, s...)
	}
	uids, queued := peerOwners(socks, local, remote)
	if len(uids) == 0 && queued {
		uids = listenerOwners(socks, remote)
	}
	if len(uids) == 0 {
		return Owner{}, fmt.Errorf("port %d: %w", remote.Port(), errNoPeer)
	}
	pick := uids[0]
	for _, u := range uids {
		if !p.trusts(u) {
			pick = u
			break
		}
	}
	id := strconv.FormatUint(uint64(pick), 10)
	return Owner{ID: id, Name: "uid " + id, Trusted: p.trusts(pick)}, nil
}

// The service accounts of Windows, trusted as Linux's system accounts are: LocalSystem,
// LocalService and NetworkService. A service's own virtual account (NT SERVICE\name,
// S-1-5-80-…), which only installing a service makes, is trusted too.
var windowsServiceSIDs = map[string]bool{"S-1-5-18": true, "S-1-5-19": true, "S-1-5-20": true}

// trustedSID reports whether Parley trusts a program running as sid, this process's user being
// self.
func trustedSID(sid, self string) bool {
	return sid == self || windowsServiceSIDs[sid] || strings.HasPrefix(sid, "S-1-5-80-")
}

// States of sockets in Windows' tables (MIB_TCP_STATE).
const (
	winTCPListen  = 2 // MIB_TCP_STATE_LISTEN
	winTCPSynRcvd = 4 // MIB_TCP_STATE_SYN_RCVD
	winTCPEstab   = 5 // MIB_TCP_STATE_ESTAB
)

// winTCPRow is one row of Windows' GetExtendedTcpTable(TCP_TABLE_OWNER_PID_ALL): a socket, its
// state and the process that owns it.
type winTCPRow struct {
	Local, Remote netip.AddrPort
	State         uint32
	PID           uint32
}

// parseWinTCPTable reads a MIB_TCPTABLE_OWNER_PID (v6 false) or a MIB_TCP6TABLE_OWNER_PID, as
// Microsoft's documentation lays them out: a DWORD count, then rows of 24 bytes (dwState,
// dwLocalAddr, dwLocalPort, dwRemoteAddr, dwRemotePort, dwOwningPid) or 56 (ucLocalAddr[16],
// dwLocalScopeId, dwLocalPort, ucRemoteAddr[16], dwRemoteScopeId, dwRemotePort, dwState,
// dwOwningPid). DWORDs are little-endian, addresses in network order, ports in network order in
// a DWORD's first two bytes. A table shorter than its count says is an error, so that no socket
// goes unseen.
func parseWinTCPTable(b []byte, v6 bool) ([]winTCPRow, error) {
	if len(b) < 4 {
		return nil, errors.New("the socket table has no count")
	}
	size := 24
	if v6 {
		size = 56
	}
	n := binary.LittleEndian.Uint32(b)
	if uint64(n) > uint64(len(b)-4)/uint64(size) {
		return nil, fmt.Errorf("the socket table has %d bytes for %d sockets", len(b)-4, n)
	}
	port := func(b []byte) uint16 { return binary.BigEndian.Uint16(b) }
	out := make([]winTCPRow, n)
	for i := range out {
		row := b[4+i*size : 4+(i+1)*size]
		if v6 {
			la, _ := netip.AddrFromSlice(row[0:16])
			ra, _ := netip.AddrFromSlice(row[24:40])
			out[i] = winTCPRow{Local: netip.AddrPortFrom(la, port(row[20:])), Remote: netip.AddrPortFrom(ra, port(row[44:])),
				State: binary.LittleEndian.Uint32(row[48:]), PID: binary.LittleEndian.Uint32(row[52:])}
			continue
		}
		la, _ := netip.AddrFromSlice(row[4:8])
		ra, _ := netip.AddrFromSlice(row[12:16])
		out[i] = winTCPRow{Local: netip.AddrPortFrom(la, port(row[8:])), Remote: netip.AddrPortFrom(ra, port(row[16:])),
			State: binary.LittleEndian.Uint32(row[0:]), PID: binary.LittleEndian.Uint32(row[20:])}
	}
	return out, nil
}

// winPeerPIDs are the processes whose users decide whether Parley keeps the connection it made
// from local to remote, as ownerFromProc decides on Linux: the process that holds its other end
// (connected, or finishing its handshake). Should Windows list no socket at all for that end (a
// connection not yet accepted may not be listed), the processes listening at remote's port on an
// address reaching remote. errNoPeer when that end is listed in other states only (closed, or
// shut for sending, since it took the connection), or nothing is found.
func winPeerPIDs(rows []winTCPRow, local, remote netip.AddrPort) ([]uint32, error) {
	local, remote = unmap(local), unmap(remote)
	var peers, exact, wild []uint32
	listed := false
	for _, r := range rows {
		switch {
		case unmap(r.Local) == remote && unmap(r.Remote) == local:
			listed = true
			if r.State == winTCPEstab || r.State == winTCPSynRcvd {
				peers = append(peers, r.PID)
			}
		case r.State == winTCPListen && r.Local.Port() == remote.Port() && r.Local.Addr().Unmap() == remote.Addr():
			exact = append(exact, r.PID)
		case r.State == winTCPListen && r.Local.Port() == remote.Port() && reachesLoopback(r.Local.Addr()):
			wild = append(wild, r.PID)
		}
	}
	switch {
	case len(peers) > 0:
		return peers, nil
	case !listed && len(exact)+len(wild) > 0:
		return append(exact, wild...), nil
	}
	return nil, fmt.Errorf("port %d: %w", remote.Port(), errNoPeer)
}
