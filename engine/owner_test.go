package engine

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// trustAll is an OwnerCheck that trusts every listener, as the user's own.
func trustAll(int) (Owner, error) { return Owner{ID: "1000", Name: "uid 1000", Trusted: true}, nil }

// ownedBy is an OwnerCheck that finds every port listened on by uid, trusted or not.
func ownedBy(uid int, trusted bool) OwnerCheck {
	return func(int) (Owner, error) {
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
	sock := func(addr string, state uint8, uid uint32) procSocket {
		return procSocket{Local: netip.MustParseAddrPort(addr), State: state, UID: uid}
	}
	for _, c := range []struct {
		name, table string
		want        []procSocket
		bad         bool
	}{
		{name: "IPv4", table: procTCP, want: []procSocket{
			sock("127.0.0.1:11434", 0x0A, 1001), sock("0.0.0.0:1234", 0x0A, 998), sock("127.0.0.1:11434", 0x01, 1002),
			sock("127.0.0.1:54321", 0x01, 1000), sock("192.168.1.5:8080", 0x0A, 1003)}},
		{name: "IPv6", table: procTCP6, want: []procSocket{
			sock("[::]:8000", 0x0A, 997), sock("[::1]:631", 0x0A, 0), sock("[::ffff:127.0.0.1]:11434", 0x06, 0), sock("[::ffff:127.0.0.1]:8081", 0x0A, 1004)}},
		{name: "header only", table: "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"},
		{name: "empty", table: ""},
		{name: "cut short", table: "   0: 0100007F:2CAA 00000000:0000 0A 00000000:00000000\n", bad: true},
		{name: "address not hex", table: "   0: 0100007G:2CAA 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1001 0 1\n", bad: true},
		{name: "short address", table: "   0: 7F:2CAA 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1001 0 1\n", bad: true},
		{name: "uid not a number", table: "   0: 0100007F:2CAA 00000000:0000 0A 00000000:00000000 00:00000000 00000000  -1 0 1\n", bad: true},
		{name: "state too long", table: "   0: 0100007F:2CAA 00000000:0000 00A 00000000:00000000 00:00000000 00000000  1 0 1\n", bad: true},
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
	b := s.Local.Addr().AsSlice()
	var hexAddr strings.Builder
	for i := 0; i < len(b); i += 4 {
		fmt.Fprintf(&hexAddr, "%08X", binary.NativeEndian.Uint32(b[i:]))
	}
	zero := strings.Repeat("0", hexAddr.Len())
	return fmt.Sprintf("%4d: %s:%04X %s:0000 %02X 00000000:00000000 00:00000000 00000000 %5d        0 1 1 0000000000000000 100 0 0 10 0",
		n, hexAddr.String(), s.Local.Port(), zero, s.State, s.UID)
}

func FuzzParseProcNetTCP(f *testing.F) {
	for _, s := range []string{procTCP, procTCP6, "", "   0: 0100007F:2CAA 00000000:0000 0A 0 0 0 1000\n", "sl\n0: :\n"} {
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
			if !s.Local.Addr().Is4() && !s.Local.Addr().Is6() {
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

func TestOwnerFromProc(t *testing.T) {
	if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		t.Skip("the tables here are as a little-endian machine prints them")
	}
	both := procFiles(map[string]string{"/proc/net/tcp": procTCP, "/proc/net/tcp6": procTCP6})
	me := uidPolicy{Self: 1000, Min: 1000}
	for _, c := range []struct {
		name   string
		read   func(string) ([]byte, error)
		policy uidPolicy
		port   int
		want   Owner
		err    string
	}{
		// The listener on 127.0.0.1:11434 is uid 1001's; the established connections to it,
		// of uids 1002 and 1000, are not listeners.
		{name: "another user's", read: both, policy: me, port: 11434, want: Owner{ID: "1001", Name: "uid 1001"}},
		{name: "the same, read by uid 1001", read: both, policy: uidPolicy{Self: 1001, Min: 1000}, port: 11434, want: Owner{ID: "1001", Name: "uid 1001", Trusted: true}},
		{name: "a system account on 0.0.0.0", read: both, policy: me, port: 1234, want: Owner{ID: "998", Name: "uid 998", Trusted: true}},
		{name: "a system account on ::", read: both, policy: me, port: 8000, want: Owner{ID: "997", Name: "uid 997", Trusted: true}},
		{name: "root on ::1", read: both, policy: me, port: 631, want: Owner{ID: "0", Name: "uid 0", Trusted: true}},
		{name: "IPv4-mapped 127.0.0.1", read: both, policy: me, port: 8081, want: Owner{ID: "1004", Name: "uid 1004"}},
		{name: "a higher UID_MIN makes 1001 a system account", read: both, policy: uidPolicy{Self: 5000, Min: 5000}, port: 11434, want: Owner{ID: "1001", Name: "uid 1001", Trusted: true}},
		{name: "listening elsewhere only", read: both, policy: me, port: 8080, err: "port 8080: no socket listens there"},
		{name: "only a connection in TIME_WAIT", read: procFiles(map[string]string{"/proc/net/tcp": "", "/proc/net/tcp6": procTCP6}), policy: me, port: 11434, err: "port 11434: no socket listens there"},
		{name: "no IPv6", read: procFiles(map[string]string{"/proc/net/tcp": procTCP}), policy: me, port: 1234, want: Owner{ID: "998", Name: "uid 998", Trusted: true}},
		{name: "no /proc", read: procFiles(nil), policy: me, port: 11434, err: "reading /proc/net/tcp"},
		{name: "a line that cannot be read", read: procFiles(map[string]string{"/proc/net/tcp": procTCP + "   9: garbage\n"}), policy: me, port: 1234, err: "reading the socket tables"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ownerFromProc(c.read, c.policy, c.port)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v; want %q", err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Errorf("owner %+v, %v; want %+v", got, err, c.want)
			}
		})
	}

	// Two listeners reach 127.0.0.1 at one port: another user's on [::] beside this user's on
	// 127.0.0.1. The port is refused, naming the other.
	shared := procFiles(map[string]string{"/proc/net/tcp": procTCP, "/proc/net/tcp6": procTCP6 +
		"   4: 00000000000000000000000000000000:2CAA 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 51238 1 0000000000000000 100 0 0 10 0\n"})
	if got, err := ownerFromProc(shared, uidPolicy{Self: 1001, Min: 1000}, 11434); err != nil || got.Trusted || got.ID != "1000" {
		t.Errorf("two listeners: %+v, %v; want uid 1000's, untrusted", got, err)
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
	cannot := func(int) (Owner, error) { return Owner{}, errors.New("reading /proc/net/tcp: permission denied") }
	got = detect(t.Context(), []Port{{port, "Ollama"}}, 0, (&net.Dialer{}).DialContext, cannot)
	if len(got.Refused) != 1 || !strings.Contains(got.Refused[0].Error(), "cannot tell (reading /proc/net/tcp: permission denied)") {
		t.Errorf("found %+v", got)
	}
	if requests.Load() != 1 {
		t.Errorf("the runtime got %d requests; want the one of the trusted search", requests.Load())
	}

	// Nothing found listening once connected (the listener went, or Linux connected the socket
	// to itself): not running, not refused.
	none := func(int) (Owner, error) { return Owner{}, fmt.Errorf("port %d: %w", port, errNoListener) }
	got = detect(t.Context(), []Port{{port, "Ollama"}}, 0, (&net.Dialer{}).DialContext, none)
	if len(got.Runtimes) != 0 || len(got.Refused) != 0 || requests.Load() != 1 {
		t.Errorf("found %+v, %d requests", got, requests.Load())
	}
	if _, err := GuardDial("Ollama", none)(t.Context(), "tcp", "127.0.0.1:"+strconv.Itoa(port)); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("dialling where nothing is found listening: %v; want ECONNREFUSED", err)
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
		line := formatProcLine(0, procSocket{Local: ap, State: tcpListen, UID: 5})
		got, err := parseProcAddr(strings.Fields(line)[1])
		if err != nil || got != ap {
			t.Errorf("%s: printed %s, read %v, %v", a, strings.Fields(line)[1], got, err)
		}
	}
	if _, err := parseProcAddr(hex.EncodeToString(make([]byte, 5)) + ":0050"); err == nil {
		t.Error("a 5-byte address was read")
	}
}
