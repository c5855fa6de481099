//go:build windows

package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"syscall"
	"unsafe"
)

var (
	iphlpapi                 = syscall.NewLazyDLL("iphlpapi.dll")
	procGetExtendedTcpTable  = iphlpapi.NewProc("GetExtendedTcpTable")
	kernel32                 = syscall.NewLazyDLL("kernel32.dll")
	procProcessIdToSessionId = kernel32.NewProc("ProcessIdToSessionId")
)

const (
	tcpTableOwnerPIDListener = 3 // TCP_TABLE_OWNER_PID_LISTENER
	afInet6                  = 23
	errInsufficientBuffer    = 122
	processQueryLimited      = 0x1000 // PROCESS_QUERY_LIMITED_INFORMATION
)

// The service accounts of Windows, trusted as Linux's system accounts are: LocalSystem,
// LocalService and NetworkService.
var windowsServiceSIDs = map[string]bool{"S-1-5-18": true, "S-1-5-19": true, "S-1-5-20": true}

// checkOwner finds the processes listening at port (GetExtendedTcpTable) and their users (the
// process's token): this user, the service accounts and the System process (PID 4, which owns
// the sockets of HTTP.sys) are trusted. A process whose token Windows does not let Parley read
// is trusted when it runs in session 0 (a service) or in this session, not in another user's.
func checkOwner(port int) (Owner, error) {
	pids, err := listenerPIDs(port)
	if err != nil {
		return Owner{}, err
	}
	if len(pids) == 0 {
		return Owner{}, fmt.Errorf("port %d: %w", port, errNoListener)
	}
	self, err := currentUserSID()
	if err != nil {
		return Owner{}, err
	}
	var first Owner
	for i, pid := range pids {
		o := processOwner(pid, self)
		if !o.Trusted {
			return o, nil
		}
		if i == 0 {
			first = o
		}
	}
	return first, nil
}

// listenerPIDs are the processes listening at port on an address reaching 127.0.0.1.
func listenerPIDs(port int) ([]uint32, error) {
	var pids []uint32
	for _, af := range []uint32{syscall.AF_INET, afInet6} {
		table, err := tcpTable(af)
		if err != nil {
			return nil, err
		}
		if len(table) < 4 {
			continue
		}
		n := int(binary.LittleEndian.Uint32(table))
		size, addrLen, portAt, pidAt := 24, 4, 8, 20 // MIB_TCPROW_OWNER_PID
		if af == afInet6 {
			size, addrLen, portAt, pidAt = 56, 16, 20, 52 // MIB_TCP6ROW_OWNER_PID
		}
		for i := 0; i < n && 4+(i+1)*size <= len(table); i++ {
			row := table[4+i*size : 4+(i+1)*size]
			addrAt := 4 // after dwState
			if af == afInet6 {
				addrAt = 0
			}
			addr, _ := netip.AddrFromSlice(row[addrAt : addrAt+addrLen])
			p := int(row[portAt])<<8 | int(row[portAt+1]) // network order in the low 16 bits
			if p == port && reachesLoopback(addr) {
				pids = append(pids, binary.LittleEndian.Uint32(row[pidAt:]))
			}
		}
	}
	return pids, nil
}

// tcpTable is GetExtendedTcpTable's listeners of an address family.
func tcpTable(af uint32) ([]byte, error) {
	size := uint32(16 << 10)
	for range 5 {
		buf := make([]byte, size)
		r, _, _ := procGetExtendedTcpTable.Call(uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&size)), 0,
			uintptr(af), tcpTableOwnerPIDListener, 0)
		switch r {
		case 0:
			return buf[:size], nil
		case errInsufficientBuffer:
			continue // size now holds what it needs
		}
		return nil, fmt.Errorf("GetExtendedTcpTable: %w", syscall.Errno(r))
	}
	return nil, errors.New("GetExtendedTcpTable: the table keeps growing")
}

// currentUserSID is the user of this process.
func currentUserSID() (string, error) {
	tok, err := syscall.OpenCurrentProcessToken()
	if err != nil {
		return "", fmt.Errorf("reading this process's user: %w", err)
	}
	defer tok.Close()
	u, err := tok.GetTokenUser()
	if err != nil {
		return "", fmt.Errorf("reading this process's user: %w", err)
	}
	return u.User.Sid.String()
}

// processOwner is the user of process pid, judged against this user's SID.
func processOwner(pid uint32, self string) Owner {
	if pid == 4 || pid == 0 {
		return Owner{ID: "S-1-5-18", Name: "the System process", Trusted: true}
	}
	sid, name, err := processUser(pid)
	if err == nil {
		return Owner{ID: sid, Name: name, Trusted: sid == self || windowsServiceSIDs[sid]}
	}
	// Windows lets nobody but administrators read the token of another user's process, or of a
	// service: its session tells them apart.
	var session, own uint32
	r1, _, _ := procProcessIdToSessionId.Call(uintptr(pid), uintptr(unsafe.Pointer(&session)))
	r2, _, _ := procProcessIdToSessionId.Call(uintptr(syscall.Getpid()), uintptr(unsafe.Pointer(&own)))
	s := strconv.FormatUint(uint64(session), 10)
	switch {
	case r1 == 0 || r2 == 0:
		return Owner{ID: "pid " + strconv.FormatUint(uint64(pid), 10), Name: "process " + strconv.FormatUint(uint64(pid), 10) + ", whose user Windows does not say"}
	case session == 0:
		return Owner{ID: "session 0", Name: "a Windows service", Trusted: true}
	case session == own:
		return Owner{ID: "session " + s, Name: "a program in this session", Trusted: true}
	}
	return Owner{ID: "session " + s, Name: "a program of the user signed in to session " + s}
}

// processUser is the SID and account name of process pid's user.
func processUser(pid uint32) (sid, name string, err error) {
	h, err := syscall.OpenProcess(processQueryLimited, false, pid)
	if err != nil {
		return "", "", err
	}
	defer syscall.CloseHandle(h)
	var tok syscall.Token
	if err := syscall.OpenProcessToken(h, syscall.TOKEN_QUERY, &tok); err != nil {
		return "", "", err
	}
	defer tok.Close()
	u, err := tok.GetTokenUser()
	if err != nil {
		return "", "", err
	}
	sid, err = u.User.Sid.String()
	if err != nil {
		return "", "", err
	}
	name = sid
	if account, domain, _, err := u.User.Sid.LookupAccount(""); err == nil {
		name = domain + `\` + account
	}
	return sid, name, nil
}
