//go:build !linux && !windows

package engine

import "net/netip"

// checkOwner trusts whatever holds the other end of a connection: on macOS and the BSDs Parley
// does not find the owner of a socket (lsof or libproc could; neither is used yet), so another
// user's program listening on a runtime's port first would get the conversations sent to it, as
// before this check existed.
func checkOwner(local, remote netip.AddrPort) (Owner, error) {
	return Owner{Trusted: true}, nil
}
