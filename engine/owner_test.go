package engine

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// trustAll is an OwnerCheck that trusts every connection, as the user's own.
func trustAll(_, _ netip.AddrPort) (Owner, error) {
	return Owner{ID: "1000", Name: "uid 1000", Trusted: true}, nil
}

// ownedBy is an OwnerCheck that finds every connection held by a program of uid, trusted or not.
func ownedBy(uid int, trusted bool) OwnerCheck {
	return func(_, _ netip.AddrPort) (Owner, error) {
		id := strconv.Itoa(uid)
		return Owner{ID: id, Name: "uid " + id, Trusted: trusted}, nil
	}
}

// Socket tables as a little-endian Linux prints them.
const (
	procTCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:2CAA 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1001        0 41234 1 0000000000000000 100 0 0 10 0
   1: 00000000:04D2 00000000:0000 0A 00000000:00000000 00:00000000 00000000   998        0 41235 1 0000000000000000 100 0 0 10 0
   2: 0100007F:2CAA 0100007F:D431 01 00000000:00000000 00:00000000 00000000  1002        0 41236 1 0000000000000000 20 4 30 10 -1
   3: 0100007F:D431 0100007F:2CAA 01 00000000:00000000 00:00000000 00000000  1000        0 41237 1 0000000000000000 20 4 30 10 -1
   4: 0501A8C0:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1003        0 41238 1 0000000000000000 100 0 0 10 0
`
	procTCP6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000000000000:1F40 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000   997        0 51234 1 0000000000000000 100 0 0 10 0
   1: 00000000000000000000000001000000:0277 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 51235 1 0000000000000000 100 0 0 10 0
   2: 0000000000000000FFFF00000100007F:2CAA 0000000000000000FFFF00000100007F:D432 06 00000000:00000000 03:00000DAC 00000000     0        0 0 3 0000000000000000
   3: 0000000000000000FFFF00000100007F:1F91 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1004        0 51237 1 0000000000000000 100 0 0 10 0
`
)

func TestParseProcNetTCP(t *testing.T) {
	if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		t.Skip("the tables here are as a little-endian machine prints them")
	}
	sock := func(local, remote string, state uint8, uid uint32, inode uint64) procSocket {
		return procSocket{Local: netip.MustParseAddrPort(local), Remote: netip.MustParseAddrPort(remote), State: state, UID: uid, Inode: inode}
	}
	for _, c := range []struct {
		name, table string
		want        []procSocket
		bad         bool
	}{
		{name: "IPv4", table: procTCP, want: []procSocket{
			sock("127.0.0.1:11434", "0.0.0.0:0", 0x0A, 1001, 41234), sock("0.0.0.0:1234", "0.0.0.0:0", 0x0A, 998, 41235),
			sock("127.0.0.1:11434", "127.0.0.1:54321", 0x01, 1002, 41236), sock("127.0.0.1:54321", "127.0.0.1:11434", 0x01, 1000, 41237),
			sock("192.168.1.5:8080", "0.0.0.0:0", 0x0A, 1003, 41238)}},
		{name: "IPv6", table: procTCP6, want: []procSocket{
			sock("[::]:8000", "[::]:0", 0x0A, 997, 51234), sock("[::1]:631", "[::]:0", 0x0A, 0, 51235),
			sock("[::ffff:127.0.0.1]:11434", "[::ffff:127.0.0.1]:54322", 0x06, 0, 0), sock("[::ffff:127.0.0.1]:8081", "[::]:0", 0x0A, 1004, 51237)}},
		{name: "header only", table: "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"},
		{name: "empty", table: ""},
		{name: "cut short", table: "   0: 0100007F:2CAA 00000000:0000 0A 00000000:00000000\n", bad: true},
		{name: "address not hex", table: "   0: 0100007G:2CAA 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1001 0 1\n", bad: true},
		{name: "short address", table: "   0: 7F:2CAA 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1001 0 1\n", bad: true},
		{name: "uid not a number", table: "   0: 0100007F:2CAA 00000000:0000 0A 00000000:00000000 00:00000000 00000000  -1 0 1\n", bad: true},
		{name: "state too long", table: "   0: 0100007F:2CAA 00000000:0000 00A 00000000:00000000 00:00000000 00000000  1 0 1\n", bad: true},
		{name: "no inode", table: "   0: 0100007F:2CAA 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1001 0\n", bad: true},
		{name: "inode not a number", table: "   0: 0100007F:2CAA 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1001 0 x1\n", bad: true},
		{name: "a header later on", table: procTCP + "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n", bad: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseProcNetTCP([]byte(c.table))
			if (err != nil) != c.bad {
				t.Fatalf("err = %v", err)
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("got  %v\nwant %v", got, c.want)
			}
		})
	}
}

// formatProcLine is s as a line of /proc/net/tcp or tcp6, as this machine's kernel prints it.
func formatProcLine(n int, s procSocket) string {
	return fmt.Sprintf("%4d: %s %s %02X 00000000:00000000 00:00000000 00000000 %5d        0 %d 1 0000000000000000 100 0 0 10 0",
		n, formatProcAddr(s.Local), formatProcAddr(s.Remote), s.State, s.UID, s.Inode)
}

// formatProcAddr is a as /proc/net/tcp prints an address: "0100007F:2CAA" on this machine.
func formatProcAddr(a netip.AddrPort) string {
	b := a.Addr().AsSlice()
	var hexAddr strings.Builder
	for i := 0; i < len(b); i += 4 {
		fmt.Fprintf(&hexAddr, "%08X", binary.NativeEndian.Uint32(b[i:]))
	}
	return fmt.Sprintf("%s:%04X", hexAddr.String(), a.Port())
}

func FuzzParseProcNetTCP(f *testing.F) {
	for _, s := range []string{procTCP, procTCP6, "", "   0: 0100007F:2CAA 00000000:0000 0A 0 0 0 1000 0 7\n", "sl\n0: :\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		socks, err := parseProcNetTCP(data)
		if err != nil {
			if socks != nil {
				t.Fatal("sockets with an error")
			}
			return
		}
		if len(socks) > strings.Count(string(data), "\n")+1 {
			t.Fatalf("%d sockets from %d lines", len(socks), strings.Count(string(data), "\n")+1)
		}
		// What was read, printed again, reads the same.
		var lines []string
		for i, s := range socks {
			if !s.Local.Addr().Is4() && !s.Local.Addr().Is6() || !s.Remote.Addr().Is4() && !s.Remote.Addr().Is6() {
				t.Fatalf("socket %d has no address: %v", i, s)
			}
			lines = append(lines, formatProcLine(i, s))
		}
		again, err := parseProcNetTCP([]byte(strings.Join(lines, "\n")))
		if err != nil || fmt.Sprint(again) != fmt.Sprint(socks) {
			t.Fatalf("printed and read again: %v, %v; want %v", again, err, socks)
		}
	})
}

// procFiles is a reader of /proc with the given tables; a missing one does not exist.
func procFiles(tables map[string]string) func(string) ([]byte, error) {
	return func(name string) ([]byte, error) {
		if t, ok := tables[name]; ok {
			return []byte(t), nil
		}
		return nil, fmt.Errorf("open %s: %w", name, fs.ErrNotExist)
	}
}

// procTables is a reader of /proc whose /proc/net/tcp and tcp6 hold socks, each in the table of
// its local address's family (an IPv4-mapped one in tcp6, as the kernel lists it).
func procTables(socks ...procSocket) func(string) ([]byte, error) {
	header := "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
	tables := map[string]string{"/proc/net/tcp": header, "/proc/net/tcp6": header}
	for i, s := range socks {
		name := "/proc/net/tcp"
		if s.Local.Addr().Is6() {
			name = "/proc/net/tcp6"
		}
		tables[name] += formatProcLine(i, s) + "\n"
	}
	return procFiles(tables)
}

// listening is a socket of uid listening at addr.
func listening(addr string, uid uint32) procSocket {
	a := netip.MustParseAddrPort(addr)
	unspecified := netip.IPv4Unspecified()
	if a.Addr().Is6() {
		unspecified = netip.IPv6Unspecified()
	}
	return procSocket{Local: a, Remote: netip.AddrPortFrom(unspecified, 0), State: tcpListen, UID: uid, Inode: 100}
}

// connected is a socket from local to remote in state, of uid; inode 0 is held by no program.
func connected(local, remote string, state uint8, uid uint32, inode uint64) procSocket {
	return procSocket{Local: netip.MustParseAddrPort(local), Remote: netip.MustParseAddrPort(remote), State: state, UID: uid, Inode: inode}
}

// The owner of a connection Parley made is the user of the socket that accepted it (its local
// address the connection's remote one, its remote address the connection's local one), not the
// user listening at the port when the tables are read.
func TestOwnerFromProc(t *testing.T) {
	const (
		parley  = "127.0.0.1:40000"
		runtime = "127.0.0.1:11434"
		// The same as the kernel lists a connection to a dual-stack listener.
		parley6  = "[::ffff:127.0.0.1]:40000"
		runtime6 = "[::ffff:127.0.0.1]:11434"
		finWait1 = 0x04
		timeWait = 0x06
	)
	ours := connected(parley, runtime, tcpEstablished, 1000, 8) // Parley's own end
	me := uidPolicy{Self: 1000, Min: 1000}
	for _, c := range []struct {
		name          string
		read          func(string) ([]byte, error)
		local, remote string
		want          Owner
		err           string
	}{
		// Another user's program took the connection, and a program of this user listens
		// at the port now: the connection is still the other's.
		{name: "taken by another user's program, the port this user's now", local: parley, remote: runtime,
			read: procTables(listening(runtime, 1000), ours, connected(runtime, parley, tcpEstablished, 1001, 9)),
			want: Owner{ID: "1001", Name: "uid 1001"}},
		{name: "taken by this user's program", local: parley, remote: runtime,
			read: procTables(listening(runtime, 1000), ours, connected(runtime, parley, tcpEstablished, 1000, 9)),
			want: Owner{ID: "1000", Name: "uid 1000", Trusted: true}},
		{name: "taken by a system account's program", local: parley, remote: runtime,
			read: procTables(listening("0.0.0.0:11434", 998), ours, connected(runtime, parley, tcpEstablished, 998, 9)),
			want: Owner{ID: "998", Name: "uid 998", Trusted: true}},
		// A dual-stack listener's connections are in tcp6, in IPv4-mapped form.
		{name: "IPv4-mapped, another user's", local: parley, remote: runtime,
			read: procTables(listening("[::]:11434", 1000), ours, connected(runtime6, parley6, tcpEstablished, 1001, 9)),
			want: Owner{ID: "1001", Name: "uid 1001"}},
		{name: "IPv4-mapped, named so by Go too", local: parley6, remote: runtime6,
			read: procTables(listening("[::]:11434", 1001), ours, connected(runtime6, parley6, tcpEstablished, 1000, 9)),
			want: Owner{ID: "1000", Name: "uid 1000", Trusted: true}},
		{name: "::1, another user's", local: "[::1]:40000", remote: "[::1]:11434",
			read: procTables(listening("[::1]:11434", 1000), connected("[::1]:11434", "[::1]:40000", tcpEstablished, 1001, 9)),
			want: Owner{ID: "1001", Name: "uid 1001"}},
		// Not accepted yet: no program holds it (inode 0), and older kernels say uid 0. It is
		// its listener's, which is judged.
		{name: "waiting to be accepted by this user's listener", local: parley, remote: runtime,
			read: procTables(listening(runtime, 1000), ours, connected(runtime, parley, tcpEstablished, 0, 0)),
			want: Owner{ID: "1000", Name: "uid 1000", Trusted: true}},
		{name: "waiting to be accepted by another user's listener", local: parley, remote: runtime,
			read: procTables(listening(runtime, 1001), ours, connected(runtime, parley, tcpEstablished, 0, 0)),
			want: Owner{ID: "1001", Name: "uid 1001"}},
		{name: "handshake unfinished at another user's dual-stack listener", local: parley, remote: runtime,
			read: procTables(listening("[::]:11434", 1001), ours, connected(runtime, parley, tcpSynRecv, 1001, 0)),
			want: Owner{ID: "1001", Name: "uid 1001"}},
		{name: "waiting, another user's listener beside this user's", local: parley, remote: runtime,
			read: procTables(listening(runtime, 1000), listening("[::1]:11434", 1002), ours, connected(runtime, parley, tcpEstablished, 0, 0)),
			want: Owner{ID: "1002", Name: "uid 1002"}},
		{name: "waiting, its listener gone", local: parley, remote: runtime,
			read: procTables(ours, connected(runtime, parley, tcpEstablished, 0, 0)), err: "port 11434: " + errNoPeer.Error()},
		// The program that took the connection closed it: whoever listens now is not asked.
		{name: "closed since it was taken", local: parley, remote: runtime,
			read: procTables(listening(runtime, 1000), ours, connected(runtime, parley, finWait1, 1001, 9)), err: errNoPeer.Error()},
		{name: "closed and gone", local: parley, remote: runtime,
			read: procTables(listening(runtime, 1000), ours, connected(runtime, parley, timeWait, 0, 0)), err: errNoPeer.Error()},
		{name: "Parley's own end is not the other", local: parley, remote: runtime,
			read: procTables(listening(runtime, 1000), ours), err: errNoPeer.Error()},
		{name: "a connection of other ports", local: parley, remote: runtime,
			read: procTables(listening(runtime, 1000), ours, connected(runtime, "127.0.0.1:40001", tcpEstablished, 1000, 9)), err: errNoPeer.Error()},
		{name: "no IPv6", local: parley, remote: runtime,
			read: procFiles(map[string]string{"/proc/net/tcp": formatProcLine(0, connected(runtime, parley, tcpEstablished, 998, 9))}),
			want: Owner{ID: "998", Name: "uid 998", Trusted: true}},
		{name: "no /proc", local: parley, remote: runtime, read: procFiles(nil), err: "reading /proc/net/tcp"},
		{name: "a line that cannot be read", local: parley, remote: runtime,
			read: procFiles(map[string]string{"/proc/net/tcp": procTCP + "   9: garbage\n"}), err: "reading the socket tables"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ownerFromProc(c.read, me, netip.MustParseAddrPort(c.local), netip.MustParseAddrPort(c.remote))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("owner %+v, err = %v; want %q", got, err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Errorf("owner %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
}

// GuardDial judges the program that accepted its connection: a listener of this user does not
// make the connection another user's program holds trusted, and one closed since it was taken
// is not running.
func TestGuardDial_JudgesTheAcceptedSocket(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan []byte, 2)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b, _ := io.ReadAll(c)
			c.Close()
			got <- b
		}
	}()
	me := uidPolicy{Self: 1000, Min: 1000}
	// The tables as the kernel would list them for the connection made: the listener this
	// user's, the socket that accepted the connection in state, of uid.
	tables := func(state uint8, uid uint32) OwnerCheck {
		return func(local, remote netip.AddrPort) (Owner, error) {
			read := procTables(listening(remote.String(), 1000), connected(remote.String(), local.String(), state, uid, 9))
			return ownerFromProc(read, me, local, remote)
		}
	}
	c, err := GuardDial("Ollama", tables(tcpEstablished, 1001))(t.Context(), "tcp", ln.Addr().String())
	var ue *UntrustedError
	if c != nil || !errors.As(err, &ue) || ue.Owner.ID != "1001" || ue.Port != ln.Addr().(*net.TCPAddr).Port {
		t.Fatalf("dialled a connection another user's program holds: %v, %v", c, err)
	}
	if b := <-got; len(b) != 0 {
		t.Errorf("the listener read %q", b)
	}
	if _, err := GuardDial("Ollama", tables(0x04, 1001))(t.Context(), "tcp", ln.Addr().String()); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("a connection closed since it was taken: %v; want ECONNREFUSED", err)
	}
	<-got
	c, err = GuardDial("Ollama", tables(tcpEstablished, 1000))(t.Context(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatalf("a connection this user's program holds: %v", err)
	}
	c.Write([]byte("hello"))
	c.Close()
	if b := <-got; string(b) != "hello" {
		t.Errorf("the listener read %q", b)
	}
}

// A server a person gave the address of on this computer is sent nothing when another user's
// program holds the connection; its transport dials nowhere else.
func TestLoopbackTransport_ChecksTheOwner(t *testing.T) {
	port, requests := runtimeServer(t, `{"data":[{"id":"llama3.2"}]}`)
	for _, host := range []string{"127.0.0.1", "localhost"} {
		url := "http://" + net.JoinHostPort(host, strconv.Itoa(port)) + "/v1/models"
		hc := &http.Client{Transport: LoopbackTransport("", ownedBy(1001, false))}
		_, err := hc.Get(url)
		var ue *UntrustedError
		if !errors.As(err, &ue) || ue.Error() != "the model server on port "+strconv.Itoa(port)+" belongs to another user (uid 1001): Parley does not send your conversations to it" {
			t.Errorf("%s: %v", host, err)
		}
		hc = &http.Client{Transport: LoopbackTransport("", ownedBy(998, true))}
		resp, err := hc.Get(url)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s, a system account's: %v", host, err)
		}
		resp.Body.Close()
	}
	if requests.Load() != 2 {
		t.Errorf("the server got %d requests; want the 2 of the trusted clients", requests.Load())
	}
	hc := &http.Client{Transport: LoopbackTransport("", trustAll)}
	if _, err := hc.Get("http://192.0.2.1:" + strconv.Itoa(port) + "/v1/models"); err == nil || !strings.Contains(err.Error(), "not \"192.0.2.1:") {
		t.Errorf("dialled off this computer: %v", err)
	}
}

func TestUIDPolicy(t *testing.T) {
	p := uidPolicy{Self: 1000, Min: 1000}
	for uid, want := range map[uint32]bool{0: true, 1: true, 998: true, 999: true, 1000: true, 1001: false, 65534: false, 4294967295: false} {
		if got := p.trusts(uid); got != want {
			t.Errorf("trusts(%d) = %v; want %v", uid, got, want)
		}
	}
	for text, want := range map[string]int{
		"# comment\nUID_MIN\t\t\t 1000\nUID_MAX\t\t\t60000\n": 1000,
		"UID_MIN 500\n":                   500,
		"#UID_MIN 500\nSUB_UID_MIN 100\n": 1000,
		"UID_MIN\n":                       1000,
		"UID_MIN many\n":                  1000,
		"UID_MIN -5\n":                    1000,
		"":                                1000,
	} {
		if got := parseUIDMin([]byte(text)); got != want {
			t.Errorf("parseUIDMin(%q) = %d; want %d", text, got, want)
		}
	}
}

// Nothing is sent to a port where another user's program listens, not even the probe; the
// search says which it left alone, in one line.
func TestDetect_LeavesAnotherUsersRuntimeAlone(t *testing.T) {
	port, requests := runtimeServer(t, `{"data":[{"id":"llama3.2:latest","owned_by":"library"}]}`)
	got := detect(t.Context(), []Port{{port, "Ollama"}}, 0, (&net.Dialer{}).DialContext, ownedBy(1001, false))
	if len(got.Runtimes) != 0 || len(got.Refused) != 1 {
		t.Fatalf("found %+v", got)
	}
	want := "Ollama on port " + strconv.Itoa(port) + " belongs to another user (uid 1001): Parley does not send your conversations to it"
	if got.Refused[0].Error() != want {
		t.Errorf("refused: %q\nwant      %q", got.Refused[0].Error(), want)
	}
	if requests.Load() != 0 {
		t.Errorf("the runtime got %d requests", requests.Load())
	}

	got = detect(t.Context(), []Port{{port, "Ollama"}}, 0, (&net.Dialer{}).DialContext, ownedBy(998, true))
	if len(got.Runtimes) != 1 || len(got.Refused) != 0 || got.Runtimes[0].Owner.ID != "998" {
		t.Fatalf("found %+v; want the runtime of a system account", got)
	}
	if c := got.Runtimes[0].Chat(got.Runtimes[0].Models[0]); c.Owner != "998" {
		t.Errorf("the choice does not record its owner: %+v", c)
	}

	// A check that cannot tell refuses too, saying why.
	cannot := func(_, _ netip.AddrPort) (Owner, error) {
		return Owner{}, errors.New("reading /proc/net/tcp: permission denied")
	}
	got = detect(t.Context(), []Port{{port, "Ollama"}}, 0, (&net.Dialer{}).DialContext, cannot)
	if len(got.Refused) != 1 || !strings.Contains(got.Refused[0].Error(), "cannot tell (reading /proc/net/tcp: permission denied)") {
		t.Errorf("found %+v", got)
	}
	if requests.Load() != 1 {
		t.Errorf("the runtime got %d requests; want the one of the trusted search", requests.Load())
	}

	// Nothing found at the other end once connected (the program that took the connection closed
	// it, or Linux connected the socket to itself): not running, not refused.
	none := func(_, _ netip.AddrPort) (Owner, error) { return Owner{}, fmt.Errorf("port %d: %w", port, errNoPeer) }
	got = detect(t.Context(), []Port{{port, "Ollama"}}, 0, (&net.Dialer{}).DialContext, none)
	if len(got.Runtimes) != 0 || len(got.Refused) != 0 || requests.Load() != 1 {
		t.Errorf("found %+v, %d requests", got, requests.Load())
	}
	if _, err := GuardDial("Ollama", none)(t.Context(), "tcp", "127.0.0.1:"+strconv.Itoa(port)); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("dialling where nothing holds the other end: %v; want ECONNREFUSED", err)
	}
}

func TestCheckRuntime(t *testing.T) {
	port, requests := runtimeServer(t, `{"data":[{"id":"llama3.2:latest","owned_by":"library"}]}`)
	c := Chat{Kind: Detected, URL: "http://127.0.0.1:" + strconv.Itoa(port) + "/v1", Model: "llama3.2:latest", Runtime: "Ollama"}
	if o, err := CheckRuntime(t.Context(), c, ownedBy(1000, true)); err != nil || o.ID != "1000" {
		t.Errorf("running: %+v, %v", o, err)
	}
	var ue *UntrustedError
	if o, err := CheckRuntime(t.Context(), c, ownedBy(1001, false)); !errors.As(err, &ue) || o.ID != "1001" || ue.Port != port {
		t.Errorf("another user's: %+v, %v", o, err)
	}
	if requests.Load() != 1 {
		t.Errorf("the runtime got %d requests; want the first check's only", requests.Load())
	}
	other := c
	other.Model = "qwen2.5"
	if _, err := CheckRuntime(t.Context(), other, ownedBy(1000, true)); !errors.Is(err, ErrNotRunning) {
		t.Errorf("without the model: %v", err)
	}
	gone := c
	gone.URL = "http://127.0.0.1:" + strconv.Itoa(closedPort(t)) + "/v1"
	if _, err := CheckRuntime(t.Context(), gone, ownedBy(1000, true)); !errors.Is(err, ErrNotRunning) {
		t.Errorf("nothing listening: %v", err)
	}
}

func TestChat_OwnerChanged(t *testing.T) {
	c := Chat{Kind: Detected, URL: "http://127.0.0.1:11434/v1", Model: "llama3.2", Runtime: "Ollama", Owner: "1000"}
	if got := c.OwnerChanged(Owner{ID: "1000", Name: "uid 1000", Trusted: true}); got != "" {
		t.Errorf("the same owner: %q", got)
	}
	want := "Ollama on this computer now runs as uid 998, not as uid 1000 as when you chose it. If you did not change that, check what listens on port 11434."
	if got := c.OwnerChanged(Owner{ID: "998", Name: "uid 998", Trusted: true}); got != want {
		t.Errorf("a new owner: %q\nwant         %q", got, want)
	}
	c.Owner = ""
	if got := c.OwnerChanged(Owner{ID: "998", Name: "uid 998", Trusted: true}); got != "" {
		t.Errorf("no owner recorded: %q", got)
	}
}

// The address of a socket survives printing as the kernel does and reading back.
func TestParseProcAddr_RoundTrip(t *testing.T) {
	for _, a := range []string{"127.0.0.1:11434", "[::1]:1234", "[fe80::1:2:3:4]:8080", "[::ffff:127.0.0.1]:80"} {
		ap := netip.MustParseAddrPort(a)
		line := formatProcLine(0, procSocket{Local: ap, Remote: ap, State: tcpListen, UID: 5})
		got, err := parseProcAddr(strings.Fields(line)[1])
		if err != nil || got != ap {
			t.Errorf("%s: printed %s, read %v, %v", a, strings.Fields(line)[1], got, err)
		}
	}
	if _, err := parseProcAddr(hex.EncodeToString(make([]byte, 5)) + ":0050"); err == nil {
		t.Error("a 5-byte address was read")
	}
}

// winTable is a MIB_TCPTABLE_OWNER_PID (or, v6, a MIB_TCP6TABLE_OWNER_PID) holding rows, laid
// out as Microsoft documents it.
func winTable(v6 bool, rows ...winTCPRow) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(rows)))
	port := func(b []byte, p uint16) []byte { return append(binary.BigEndian.AppendUint16(b, p), 0, 0) }
	for _, r := range rows {
		if v6 {
			b = append(b, r.Local.Addr().AsSlice()...)
			b = port(binary.LittleEndian.AppendUint32(b, 0), r.Local.Port())
			b = append(b, r.Remote.Addr().AsSlice()...)
			b = port(binary.LittleEndian.AppendUint32(b, 0), r.Remote.Port())
			b = binary.LittleEndian.AppendUint32(b, r.State)
		} else {
			b = binary.LittleEndian.AppendUint32(b, r.State)
			b = port(append(b, r.Local.Addr().AsSlice()...), r.Local.Port())
			b = port(append(b, r.Remote.Addr().AsSlice()...), r.Remote.Port())
		}
		b = binary.LittleEndian.AppendUint32(b, r.PID)
	}
	return b
}

// winRow is a socket of Windows' tables.
func winRow(local, remote string, state, pid uint32) winTCPRow {
	return winTCPRow{Local: netip.MustParseAddrPort(local), Remote: netip.MustParseAddrPort(remote), State: state, PID: pid}
}

func TestOwnerWindows_ParseTable(t *testing.T) {
	v4 := []winTCPRow{winRow("127.0.0.1:11434", "0.0.0.0:0", winTCPListen, 700), winRow("127.0.0.1:11434", "127.0.0.1:40000", winTCPEstab, 701)}
	v6 := []winTCPRow{winRow("[::]:11434", "[::]:0", winTCPListen, 702), winRow("[::1]:11434", "[::1]:40000", winTCPSynRcvd, 703)}
	for _, c := range []struct {
		name string
		b    []byte
		v6   bool
		want []winTCPRow
		bad  bool
	}{
		{name: "IPv4", b: winTable(false, v4...), want: v4},
		{name: "IPv6", b: winTable(true, v6...), v6: true, want: v6},
		{name: "empty", b: winTable(false)},
		{name: "no count", b: []byte{1, 0}, bad: true},
		{name: "cut short", b: winTable(false, v4...)[:40], bad: true},
		{name: "a count too large", b: append([]byte{0xff, 0xff, 0xff, 0xff}, winTable(true, v6...)[4:]...), v6: true, bad: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseWinTCPTable(c.b, c.v6)
			if (err != nil) != c.bad || fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("got %v, %v; want %v", got, err, c.want)
			}
		})
	}
}

// On Windows as on Linux, the process that holds the connection's other end is judged, not the
// one listening at the port now.
func TestOwnerWindows_PeerPIDs(t *testing.T) {
	const parley, runtime = "127.0.0.1:40000", "127.0.0.1:11434"
	const finWait2 = 7 // MIB_TCP_STATE_FIN_WAIT2
	listener := winRow(runtime, "0.0.0.0:0", winTCPListen, 500)
	ours := winRow(parley, runtime, winTCPEstab, 100)
	for _, c := range []struct {
		name string
		rows []winTCPRow
		want []uint32
	}{
		{name: "the process that accepted it", rows: []winTCPRow{listener, ours, winRow(runtime, parley, winTCPEstab, 600)}, want: []uint32{600}},
		{name: "IPv4-mapped", rows: []winTCPRow{winRow("[::]:11434", "[::]:0", winTCPListen, 500), ours,
			winRow("[::ffff:127.0.0.1]:11434", "[::ffff:127.0.0.1]:40000", winTCPEstab, 600)}, want: []uint32{600}},
		{name: "handshake unfinished", rows: []winTCPRow{listener, winRow(runtime, parley, winTCPSynRcvd, 500)}, want: []uint32{500}},
		{name: "not listed: the listeners", rows: []winTCPRow{winRow("[::1]:11434", "[::]:0", winTCPListen, 501), listener, ours}, want: []uint32{500, 501}},
		{name: "closed since it was taken", rows: []winTCPRow{listener, ours, winRow(runtime, parley, finWait2, 600)}},
		{name: "nothing", rows: []winTCPRow{ours, winRow("127.0.0.1:8080", "0.0.0.0:0", winTCPListen, 500)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := winPeerPIDs(c.rows, netip.MustParseAddrPort(parley), netip.MustParseAddrPort(runtime))
			if c.want == nil {
				if !errors.Is(err, errNoPeer) {
					t.Errorf("got %v, %v; want %v", got, err, errNoPeer)
				}
				return
			}
			if err != nil || fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("got %v, %v; want %v", got, err, c.want)
			}
		})
	}
}

// Windows trusts this user, the service accounts and services' own accounts; no one else.
func TestOwnerWindows_TrustedSID(t *testing.T) {
	const self = "S-1-5-21-1004336348-1177238915-682003330-1001"
	for sid, want := range map[string]bool{
		self:       true,
		"S-1-5-18": true, "S-1-5-19": true, "S-1-5-20": true,
		"S-1-5-80-3232712927-1625117661-2590453128-1738570065-3637376297": true,  // NT SERVICE\…
		"S-1-5-21-1004336348-1177238915-682003330-1002":                   false, // another user
		"S-1-5-21-1004336348-1177238915-682003330-500":                    false, // the Administrator
		"S-1-5-32-544": false, "S-1-5-180": false, "S-1-5-7": false, "": false,
	} {
		if got := trustedSID(sid, self); got != want {
			t.Errorf("trustedSID(%q) = %v; want %v", sid, got, want)
		}
	}
}
