package instance

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"parley/internal/atomicfile"
)

// endpoint is where the running instance listens, as written in its address file: a network,
// an address, and a token a request must carry (the file is readable by its owner only, so
// only the same person's programs can make requests, even over loopback TCP).
type endpoint struct {
	network, address, token string
	files                   []string // the address files
	socket                  string   // the socket file to remove on Close ("" for TCP)
}

// addrFile names the file holding the endpoint.
const addrFile = "instance.addr"

// maxSocketPath is below the shortest limit on a Unix socket's path (104 bytes on macOS).
const maxSocketPath = 100

// listen listens where a later start can reach this instance, and writes the address file:
// a Unix socket beside the lock where the system has them (or in a private folder under the
// temporary directory when that path is too long), else loopback TCP.
func listen(dir string) (net.Listener, endpoint, error) {
	tok := make([]byte, 16)
	rand.Read(tok)
	ep := endpoint{token: hex.EncodeToString(tok)}
	var ln net.Listener
	var err error
	if runtime.GOOS == "windows" {
		ep.network = "tcp"
		ln, err = net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, endpoint{}, err
		}
		ep.address = ln.Addr().String()
	} else {
		ep.network = "unix"
		ep.socket, err = socketPath(dir)
		if err != nil {
			return nil, endpoint{}, err
		}
		os.Remove(ep.socket) // left by an instance that ended without closing; the lock is ours
		ln, err = net.Listen("unix", ep.socket)
		if err != nil {
			return nil, endpoint{}, err
		}
		ln.(*net.UnixListener).SetUnlinkOnClose(false) // Close removes it, after the address file
		ep.address = ep.socket
		// Its owner only, whatever the umask (the folder is private too, and a request needs
		// the token besides).
		if err := os.Chmod(ep.socket, 0o600); err != nil {
			ln.Close()
			return nil, endpoint{}, err
		}
	}
	if err := ep.alsoIn(dir); err != nil {
		ln.Close()
		return nil, endpoint{}, err
	}
	return ln, ep, nil
}

// alsoIn writes the address file in dir too, whole and readable by its owner only.
func (ep *endpoint) alsoIn(dir string) error {
	file := filepath.Join(dir, addrFile)
	if err := atomicfile.WritePrivate(file, []byte(fmt.Sprintf("%s %s %s\n", ep.network, ep.address, ep.token))); err != nil {
		return err
	}
	ep.files = append(ep.files, file)
	return nil
}

// socketPath is the Unix socket's path for dir.
func socketPath(dir string) (string, error) {
	p := filepath.Join(dir, "instance.sock")
	if len(p) <= maxSocketPath {
		return p, nil
	}
	sum := sha256.Sum256([]byte(dir))
	private := filepath.Join(os.TempDir(), fmt.Sprintf("parley-%d", os.Getuid()))
	if err := os.Mkdir(private, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", err
	}
	if err := ownedPrivateDir(private); err != nil {
		return "", err
	}
	p = filepath.Join(private, hex.EncodeToString(sum[:6])+".sock")
	if len(p) > maxSocketPath {
		return "", fmt.Errorf("no short enough path for a socket (%s)", p)
	}
	return p, nil
}

// remove deletes the address files and the socket.
func (ep endpoint) remove() {
	for _, f := range ep.files {
		os.Remove(f)
	}
	if ep.socket != "" {
		os.Remove(ep.socket)
	}
}

// findEndpoint reads the address file of the instance that holds the lock in dir.
func findEndpoint(dir string) (endpoint, error) {
	b, err := os.ReadFile(filepath.Join(dir, addrFile))
	if err != nil {
		return endpoint{}, err
	}
	return parseEndpoint(string(b))
}

// parseEndpoint reads an address file's line: network, address, token.
func parseEndpoint(s string) (endpoint, error) {
	if len(s) > 4096 {
		return endpoint{}, errors.New("address file too long")
	}
	f := strings.Fields(s)
	if len(f) != 3 {
		return endpoint{}, fmt.Errorf("address file holds %d fields, want 3", len(f))
	}
	ep := endpoint{network: f[0], address: f[1], token: f[2]}
	switch ep.network {
	case "unix":
	case "tcp":
		host, _, err := net.SplitHostPort(ep.address)
		if err != nil || host != "127.0.0.1" {
			return endpoint{}, fmt.Errorf("address %q is not on this computer", ep.address)
		}
	default:
		return endpoint{}, fmt.Errorf("unknown network %q", ep.network)
	}
	return ep, nil
}
