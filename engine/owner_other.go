//go:build !linux && !windows

package engine

// checkOwner trusts whatever listens at port: on macOS and the BSDs Parley does not find the
// owner of a socket (lsof or libproc could; neither is used yet), so another user's program
// listening on a runtime's port first would get the conversations sent to it, as before this
// check existed.
func checkOwner(port int) (Owner, error) {
	return Owner{Trusted: true}, nil
}
