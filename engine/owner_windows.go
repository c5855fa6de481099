//go:build windows

package engine

import (
	"errors"
	"fmt"
	"net/netip"
	"syscall"
	"unsafe"
)

// None of this file has run: Parley's tests run on Linux, and this file is only compiled there
// (GOOS=windows go vet ./engine/). Untested on Windows are GetExtendedTcpTable's answers (the
// layout parseWinTCPTable reads is Microsoft's documented one, tested with hand-made tables),
// whether Windows lists a connection still waiting to be accepted (winPeerPIDs judges the
// listeners when it does not), and what OpenProcess and OpenProcessToken let a user who is not
// an administrator read of a service's or another user's process: this file refuses wherever
// they do not let it read, which may refuse a runtime run as a service by a user Windows hides.

var (
	iphlpapi                = syscall.NewLazyDLL("iphlpapi.dll")
	procGetExtendedTcpTable = iphlpapi.NewProc("GetExtendedTcpTable")
)

const (
	tcpTableOwnerPIDAll   = 5 // TCP_TABLE_OWNER_PID_ALL: listeners and connections
	afInet6               = 23
	errInsufficientBuffer = 122
	processQueryLimited   = 0x1000 // PROCESS_QUERY_LIMITED_INFORMATION
	systemProcessPID      = 4      // the System process, which holds the sockets of HTTP.sys
)

// checkOwner finds the process that holds the other end of the connection from local to remote
// (GetExtendedTcpTable; see winPeerPIDs) and its user (the process's token). Only a user Parley
// can read is trusted, and only this user or a service account: a process whose token Windows
// does not let Parley read is refused, whichever session it runs in, and so are the sockets of
// HTTP.sys, which serves programs of any user an administrator allowed.
func checkOwner(local, remote netip.AddrPort) (Owner, error) {
	var rows []winTCPRow
	for _, af := range []uint32{syscall.AF_INET, afInet6} {
		table, err := tcpTable(af)
		if err != nil {
			return Owner{}, err
		}
		r, err := parseWinTCPTable(table, af == afInet6)
		if err != nil {
			return Owner{}, fmt.Errorf("reading GetExtendedTcpTable: %w", err)
		}
		rows = append(rows, r...)
	}
	pids, err := winPeerPIDs(rows, local, remote)
	if err != nil {
		return Owner{}, err
	}
	self, err := currentUserSID()
	if err != nil {
		return Owner{}, err
	}
	var first Owner
	for i, pid := range pids {
		o, err := processOwner(pid, self)
		if err != nil {
			return Owner{}, err
		}
		if !o.Trusted {
			return o, nil
		}
		if i == 0 {
			first = o
		}
	}
	return first, nil
}

// tcpTable is GetExtendedTcpTable's sockets of an address family, listeners and connections.
func tcpTable(af uint32) ([]byte, error) {
	size := uint32(16 << 10)
	for range 5 {
		buf := make([]byte, size)
		r, _, _ := procGetExtendedTcpTable.Call(uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&size)), 0,
			uintptr(af), tcpTableOwnerPIDAll, 0)
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

// processOwner is the user of process pid, judged against this user's SID; its error says why
// Windows does not tell whose the process is.
func processOwner(pid uint32, self string) (Owner, error) {
	if pid == systemProcessPID {
		return Owner{}, errors.New("the port is HTTP.sys's, which serves programs of any user an administrator allowed, and Windows does not say whose")
	}
	sid, name, err := processUser(pid)
	if err != nil {
		return Owner{}, fmt.Errorf("Windows does not say whose process %d is: %w", pid, err)
	}
	return Owner{ID: sid, Name: name, Trusted: trustedSID(sid, self)}, nil
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
