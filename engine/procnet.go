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

// This file reads Linux's tables of TCP sockets and decides whom Parley trusts. It is built on
// every system so that its tests and fuzz target run everywhere; only owner_linux.go uses it.

// tcpListen is the state of a listening socket in /proc/net/tcp ("0A").
const tcpListen = 0x0A

// procSocket is one line of /proc/net/tcp or /proc/net/tcp6.
type procSocket struct {
	Local netip.AddrPort
	State uint8
	UID   uint32
}

// maxProcLines caps how many sockets are read from one table.
const maxProcLines = 1 << 20

// parseProcNetTCP reads /proc/net/tcp or /proc/net/tcp6: a header line, then one socket a line,
// "sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode …",
// addresses in hex as the kernel keeps them (each 32-bit word in this machine's byte order) and
// ports in hex. A line it cannot read is an error, so that no listener goes unseen.
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
		if len(f) < 8 || !strings.HasSuffix(f[0], ":") {
			return nil, fmt.Errorf("line %d: not a socket: %.80q", n+1, line)
		}
		local, err := parseProcAddr(f[1])
		if err != nil {
			return nil, fmt.Errorf("line %d: local address: %w", n+1, err)
		}
		if _, err := parseProcAddr(f[2]); err != nil {
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
		out = append(out, procSocket{Local: local, State: uint8(st), UID: uint32(uid)})
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

// listenerOwners are the uids of the sockets in tables (the texts of /proc/net/tcp and tcp6)
// that listen at port on an address reaching 127.0.0.1, the most specific first (127.0.0.1,
// then the wildcard addresses).
func listenerOwners(tables [][]byte, port int) ([]uint32, error) {
	var exact, wild []uint32
	for _, t := range tables {
		socks, err := parseProcNetTCP(t)
		if err != nil {
			return nil, err
		}
		for _, s := range socks {
			if s.State != tcpListen || int(s.Local.Port()) != port || !reachesLoopback(s.Local.Addr()) {
				continue
			}
			if s.Local.Addr().Unmap().Is4() && !s.Local.Addr().Unmap().IsUnspecified() {
				exact = append(exact, s.UID)
			} else {
				wild = append(wild, s.UID)
			}
		}
	}
	return append(exact, wild...), nil
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

// ownerFromProc finds who owns the socket listening at port, reading the socket tables with
// read (os.ReadFile on Linux) and judging with p. Every listener reaching 127.0.0.1 at the port
// must be trusted; the Owner is the first untrusted one, else the most specific.
func ownerFromProc(read func(name string) ([]byte, error), p uidPolicy, port int) (Owner, error) {
	var tables [][]byte
	for _, name := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := read(name)
		if err != nil {
			if name == "/proc/net/tcp6" && errors.Is(err, fs.ErrNotExist) {
				continue // a kernel without IPv6
			}
			return Owner{}, fmt.Errorf("reading %s: %w", name, err)
		}
		tables = append(tables, b)
	}
	uids, err := listenerOwners(tables, port)
	if err != nil {
		return Owner{}, fmt.Errorf("reading the socket tables: %w", err)
	}
	if len(uids) == 0 {
		return Owner{}, fmt.Errorf("port %d: %w", port, errNoListener)
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
