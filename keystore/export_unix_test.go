//go:build linux || freebsd || openbsd || netbsd || dragonfly

package keystore

// SetUserRuntimeDir changes where the session bus check looks for a bus socket, for one test.
func SetUserRuntimeDir(dir string) (restore func()) {
	old := userRuntimeDir
	userRuntimeDir = dir
	return func() { userRuntimeDir = old }
}
