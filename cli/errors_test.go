package cli

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"parley/audio"
	"parley/audio/playback"
	"parley/client"
	"parley/internal/explain"
	"parley/keystore"
	"parley/server"
)

var update = flag.Bool("update", false, "rewrite testdata/errors.golden from what the code prints")

// situation is the state of a run when an error reaches the person.
type situation struct {
	command, base, conv string
	key                 keySource
}

func (s situation) globals() *globals {
	g := newGlobals(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}, func(string) string { return "" })
	g.command, g.base, g.conv, g.keySource = s.command, s.base, s.conv, s.key
	g.timeoutUsed = client.DefaultTimeout
	return g
}

var (
	local   = situation{command: "parley conversations", base: "http://127.0.0.1:8780", key: fromKeyring}
	remote  = situation{command: "parley conversations", base: "https://api.example.com", key: fromKeyring}
	chat    = situation{command: "parley chat", base: "http://127.0.0.1:8780", key: fromKeyring}
	chatIn7 = situation{command: "parley chat", base: "http://127.0.0.1:8780", conv: "7", key: fromKeyring}
	history = situation{command: "parley history", base: "http://127.0.0.1:8780", conv: "7", key: fromKeyring}
	login   = situation{command: "parley login", base: "https://api.example.com", key: fromStdin}
	speak   = situation{command: "parley speak", base: "http://127.0.0.1:8780", key: fromEnv}
	doubled = situation{command: "parley conversations", base: "http://127.0.0.1:8780/v1", key: fromKeyring}
)

func status(code int, msg string) *client.Error {
	return &client.Error{StatusCode: code, Message: msg, Method: "GET", Path: "/v1/chat/conversations"}
}

// failureMatrix is every kind of failure a command can meet, in the situations that change its
// sentence.
var failureMatrix = []struct {
	name string
	in   situation
	err  error
}{
	{"reply lost, new conversation", chat, fmt.Errorf("POST /v1/chat/messages: %w", client.ErrReplyLost)},
	{"reply lost, conversation 7", chatIn7, fmt.Errorf("POST /v1/chat/messages: %w", client.ErrReplyLost)},
	{"401, key from keyring", local, status(401, "Unknown API key.")},
	{"401, key from --api-key", situation{command: "parley chat", base: "http://127.0.0.1:8780", key: fromFlag}, status(401, "Unknown API key.")},
	{"401, key from PARLEY_API_KEY", speak, status(401, "")},
	{"401, during login", login, status(401, "Unknown API key.")},
	{"401, no key sent", situation{command: "parley chat", base: "http://127.0.0.1:8780"}, status(401, "missing bearer token")},
	{"402 that says nothing was charged", chat, status(402, "Balance 0, price 1; nothing was charged.")},
	{"402 with the balance", chat, status(402, "Balance 0, price 1.")},
	{"403", local, status(403, "Forbidden")},
	{"404 conversation", history, &client.Error{StatusCode: 404, Message: "No such conversation.", Method: "GET", Path: "/v1/chat/conversations/7/messages"}},
	{"404 conversation in chat", chatIn7, &client.Error{StatusCode: 404, Message: "No such conversation.", Method: "POST", Path: "/v1/chat/messages"}},
	{"404 base URL ends in /v1", doubled, status(404, "")},
	{"404 no such endpoint", remote, status(404, "Not Found")},
	{"413", situation{command: "parley transcribe", base: "http://127.0.0.1:8780", key: fromKeyring}, status(413, "Audio is larger than 10 MB.")},
	{"415", situation{command: "parley transcribe", base: "http://127.0.0.1:8780", key: fromKeyring}, status(415, "unsupported audio format")},
	{"400", chat, status(400, "temperature must be between 0 and 2")},
	{"422 bad voice", speak, &client.Error{StatusCode: 422, Code: "invalid_voice", Message: "Unknown voice \"zz\".", Method: "POST", Path: "/v1/chat/speech"}},
	{"429 with Retry-After", local, &client.Error{StatusCode: 429, Message: "slow down", RetryAfter: 5 * time.Second}},
	{"429", local, status(429, "")},
	{"502 chat", chat, status(502, "upstream timeout")},
	{"502 chat, service says refunded", chat, status(502, "The model failed; nothing was charged.")},
	{"502 speech", speak, status(502, "espeak-ng failed")},
	{"503", local, status(503, "")},
	{"500 HTML", local, status(500, "Internal Server Error")},
	{"200 with an error code", local, &client.Error{StatusCode: 200, Code: "40001", Message: "quota exceeded"}},
	{"long service message", chat, status(400, "temperature must be a number between zero and two inclusive, top_p a number between zero and one, and max_tokens a whole number")},
	{"redirect", remote, &client.RedirectError{StatusCode: 307, Location: "evil.example.net", Method: "GET", Path: "/v1/chat/conversations"}},
	{"redirect to no named place", remote, &client.RedirectError{StatusCode: 302, Method: "GET", Path: "/v1/chat/conversations"}},
	{"certificate signed by an unknown authority", remote, &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}},
	{"certificate for another host", remote, &tls.CertificateVerificationError{Err: x509.HostnameError{Host: "api.example.com"}}},
	{"answer without the field", remote, &client.DecodeError{Field: "reply", BodyStart: "{}"}},
	{"plain http to another host", situation{command: "parley chat", base: "http://example.com"}, fmt.Errorf("%w: http://example.com", client.ErrInsecureURL)},
	{"audio too large", local, fmt.Errorf("POST /v1/chat/transcribe: %w", client.ErrAudioTooLarge)},
	{"base URL with a user name", remote, &client.BaseURLError{Problem: client.URLWithUser}},
	{"base URL without a host", remote, &client.BaseURLError{Problem: client.URLNoHost, URL: "api.example.com"}},
	{"key with spaces", remote, client.ErrInvalidKey},
	{"no key stored", local, fmt.Errorf("no API key is stored for http://127.0.0.1:8780: %w", keystore.ErrNotFound)},
	{"keyring: no session bus", local, &keystore.UnavailableError{Op: "read", BaseURL: "http://127.0.0.1:8780", Reason: keystore.ReasonNoSessionBus, Err: errors.New("no D-Bus session bus")}},
	{"keyring: no Secret Service", local, &keystore.UnavailableError{Op: "read", BaseURL: "http://127.0.0.1:8780", Reason: keystore.ReasonNoSecretService, Err: errors.New("org.freedesktop.secrets was not provided")}},
	{"keyring: locked", local, &keystore.UnavailableError{Op: "read", BaseURL: "http://127.0.0.1:8780", Reason: keystore.ReasonLocked, Err: errors.New("failed to unlock correct collection")}},
	{"keyring: timeout", local, &keystore.UnavailableError{Op: "read", BaseURL: "http://127.0.0.1:8780", Reason: keystore.ReasonTimeout, Err: keystore.ErrTimeout}},
	{"keyring: other", local, &keystore.UnavailableError{Op: "read", BaseURL: "http://127.0.0.1:8780", Reason: keystore.ReasonFailed, Err: errors.New("dbus: connection closed by user")}},
	{"keyring cannot store a working key", login, &storeFailedError{reason: keystore.ReasonNoSecretService}},
	{"config file is not JSON", local, &configFileError{op: "parse", path: "/home/ann/.config/parley/config.json", err: errors.New("unexpected end of JSON input")}},
	{"config file unreadable", local, &configFileError{op: "read", path: "/home/ann/.config/parley/config.json", err: os.ErrPermission}},
	{"timeout", local, fmt.Errorf("GET /v1/chat/conversations: %w", context.DeadlineExceeded)},
	{"connection refused, this machine", local, &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}},
	{"connection refused, other host", remote, &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}},
	{"host not found", remote, &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "api.example.com"}}},
	{"no microphone", local, fmt.Errorf("opening the input: %w", audio.ErrNoDevice)},
	{"no speakers", local, fmt.Errorf("opening the output: %w", playback.ErrNoDevice)},
	{"muted microphone", local, fmt.Errorf("recording: %w", audio.ErrSilentDevice)},
	{"microphone unplugged", local, fmt.Errorf("recording: %w", audio.ErrDeviceFailed)},
	{"admin: no such key", local, fmt.Errorf("balance: %w", server.ErrNoSuchKey)},
	{"admin: no database", local, &server.NoDatabaseError{Dir: "/srv/parley"}},
	{"serve: data directory in use", local, &server.DataDirLockedError{Dir: "/srv/parley", PID: 4242}},
	{"admin: too many points", local, fmt.Errorf("grant: %w", server.ErrTooManyPoints)},
	{"serve: port in use", local, fmt.Errorf("cannot listen on 127.0.0.1:8780: %w", &net.OpError{Op: "listen", Net: "tcp", Err: os.NewSyscallError("bind", syscall.EADDRINUSE)})},
	{"connection reset", remote, &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}},
	{"no key for the base URL with /v1, one without", doubled, &doubledV1Error{base: "http://127.0.0.1:8780/v1", without: "http://127.0.0.1:8780"}},
	{"record --device that matches no input", local, &noSuchInputError{name: "nonexist"}},
	{"admin key revoke: no such key", situation{command: "parley admin key revoke", base: "http://127.0.0.1:8780"}, fmt.Errorf("revoke: %w", server.ErrNoSuchKey)},
	{"404 no such endpoint, long base URL", situation{command: "parley conversations", base: longRemote, key: fromKeyring}, status(404, "No such route.")},
	{"nothing listening, long base URL", situation{command: "parley conversations", base: longLocal, key: fromKeyring}, &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}},
	{"no key stored, long base URL", situation{command: "parley conversations", base: longRemote}, fmt.Errorf("no API key is stored: %w", keystore.ErrNotFound)},
	{"reply lost, long conversation ID", situation{command: "parley chat", base: "http://127.0.0.1:8780", conv: longConv, key: fromKeyring}, client.ErrReplyLost},
	{"streamed reply broke off, new conversation", chat, streamBroken()},
	{"streamed reply broke off, conversation 7", chatIn7, streamBroken()},
	{"streamed reply broke off, long conversation ID", situation{command: "parley chat", base: "http://127.0.0.1:8780", conv: longConv, key: fromKeyring}, streamBroken()},
}

// streamBroken is the error of a streamed reply whose stream ended before its last event.
func streamBroken() error {
	return fmt.Errorf("%w [POST /v1/chat/messages]: %w", client.ErrReplyUnreadable, fmt.Errorf("%w: %w", client.ErrStreamBroken, io.ErrUnexpectedEOF))
}

// Long variable parts, which must not cut off the advice after them.
const (
	longLocal  = "http://127.0.0.1:8780/tenants/acme-research-and-development/speech-and-chat/gateway"
	longRemote = "https://speech-and-chat.internal.acme-research-and-development.example.com/tenants/acme/gateway"
	longConv   = "conversation-about-the-quarterly-planning-meeting-and-its-many-follow-ups"
	longWords  = "the request was refused because the temperature must be a number between zero and two inclusive, top_p a number between zero and one, and max_tokens a whole number of at least one"
)

// TestErrors_Matrix checks every failure's line against testdata/errors.golden (go test -run
// Matrix -update rewrites it), and that each is one line of at most maxLine characters that
// says nothing twice.
func TestErrors_Matrix(t *testing.T) {
	var got strings.Builder
	for _, tc := range failureMatrix {
		line := tc.in.globals().describe(tc.err)
		fmt.Fprintf(&got, "%s\n\t%s\n", tc.name, line)
		checkLine(t, tc.name, line)
	}
	for _, tc := range usageMatrix {
		line := runUsage(t, tc)
		fmt.Fprintf(&got, "parley %s\n\t%s\n", strings.Join(tc, " "), line)
		checkLine(t, strings.Join(tc, " "), strings.TrimPrefix(line, "parley: "))
	}
	path, err := filepath.Abs(filepath.Join("testdata", "errors.golden"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(filesForMatrix(t))
	for _, tc := range fileMatrix {
		line := runLine(t, tc.args, tc.code)
		fmt.Fprintf(&got, "parley %s\n\t%s\n", strings.Join(tc.args, " "), line)
		checkLine(t, strings.Join(tc.args, " "), strings.TrimPrefix(line, "parley: "))
	}
	if *update {
		if err := os.WriteFile(path, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cli -run Matrix -update to create it)", err)
	}
	if got.String() != string(want) {
		t.Errorf("the error lines differ from %s (review, then go test ./cli -run Matrix -update):\n%s", path, diffLines(string(want), got.String()))
	}
}

// usageMatrix is command lines that are wrong, run in-process (nothing reaches a network).
var usageMatrix = [][]string{
	{"chta", "hello"},
	{"chat", "-c", "", "hello"},
	{"chat", "--temperature", "3", "hi"},
	{"--base-url", "127.0.0.1:8780", "conversations"},
	{"--base-url", "localhost:8780", "conversations"},
	{"--base-url", "api.example.com", "conversations"},
	{"--base-url", "ftp://example.com", "conversations"},
	{"--api-key", "pk_abc def123456789", "conversations"},
	{"--timeout", "-1s", "conversations"},
	{"login", "pk_live_0123456789abcdef"},
	{"logout", "pk_live_0123456789abcdef"},
	{"conversations", "--limit", "-1"},
	{"conversations", "--limit", "x"},
	{"conversations", "extra"},
	{"status", "Zq7LmN3pX9vB2kT8wR4yH6jD1sF5gA0cE3uI8oP2"},
	{"--timeout", "5", "conversations"},
	{"--timeout", "0", "conversations"},
	{"--timeout", "Zq7LmN3pX9vB2kT8wR4yH6jD1sF5gA0cE3uI8oP2", "conversations"},
	{"--api-key", "chat", "Zq7LmN3pX9vB2kT8wR4yH6jD1sF5gA0cE3uI8oP2"},
	{"Zq7LmN3pX9vB2kT8wR4yH6jD1sF5gA0cE3uI8oP2"},
	{"help", "pk_live_0123456789abcdef"},
	{"help", "chta"},
	{"--base-url", "http:/127.0.0.1:35729", "conversations"},
	{"--base-url", "http://", "conversations"},
	{"--base-url", "http//localhost:8780", "conversations"},
	{"--base-url", "https://api.example.com/?tenant=acme", "conversations"},
	{"--base-url", "http://127.0.0.1:8780/pk_live_0123456789abcdef", "conversations"},
	{"--base-url", "Zq7LmN3pX9vB2kT8wR4yH6jD1sF5gA0cE3uI8oP2", "conversations"},
	{"--base-url", "ftp://speech-and-chat.internal.acme-research-and-development.example.com:8443/tenants/acme/gateway", "conversations"},
	{"chat"},
	{"speak"},
	{"history"},
	{"history", "7", "8"},
	{"history", "pk_live_0123456789abcdef"},
	{"speak", "--voice", "sk-proj-0123456789abcdef", "hello"},
	{"completion", "bahs"},
	{"completion"},
	{"admin", "kye"},
	{"admin", "key", "revok"},
	{"record", "-o", "take.mp3"},
	{"speak", "--json", "hello"},
}

// fileMatrix is command lines about files, run in-process in a directory that filesForMatrix
// made: they fail before anything reaches a network or a device.
var fileMatrix = []struct {
	args []string
	code int
}{
	{[]string{"play", "notaudio.txt"}, exitFailure},
	{[]string{"play", "hello.wav"}, exitFailure},
	{[]string{"play", "empty.wav"}, exitFailure},
	{[]string{"play", "damaged.mp3"}, exitFailure},
	{[]string{"play", longFile}, exitFailure},
	{[]string{"transcribe", "recordings"}, exitFailure},
	{[]string{"transcribe", "api_interview.wav"}, exitFailure},
	{[]string{"transcribe", longFile}, exitFailure},
	{[]string{"speak", "-o", "recordings", "hello"}, exitUsage},
	{[]string{"speak", "-o", "no-such-folder/hello.mp3", "hello"}, exitUsage},
	{[]string{"record", "-o", "recordings"}, exitUsage},
}

// longFile is a text file whose long name must not cut off the advice.
const longFile = "recordings/from-the-quarterly-planning-meeting-with-the-research-team/interview-with-the-speech-recognition-team.txt"

// filesForMatrix makes the files fileMatrix names in a new directory and returns it.
func filesForMatrix(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	wav := append([]byte("RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x80\x3e\x00\x00\x00\x7d\x00\x00\x02\x00\x10\x00data\x00\x00\x00\x00"), make([]byte, 64)...)
	for name, data := range map[string][]byte{
		"notaudio.txt": []byte("These are notes, not audio.\n"),
		"hello.wav":    wav,
		"empty.wav":    nil,
		"damaged.mp3":  append([]byte("\xff\xf2 000000000\xd0"), bytes.Repeat([]byte("0"), 40)...),
		longFile:       []byte("notes\n"),
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runUsage runs args in-process and returns the one line it printed on stderr.
func runUsage(t *testing.T, args []string) string {
	t.Helper()
	return runLine(t, args, exitUsage)
}

// runLine runs args in-process, checks the exit code, and returns the one line printed on stderr.
func runLine(t *testing.T, args []string, want int) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	g := isolatedGlobals(t, strings.NewReader(""), &stdout, &stderr)
	if code := run(t.Context(), g, args); code != want {
		t.Errorf("parley %q exited %d, want %d; stderr: %s", args, code, want, stderr.String())
	}
	return strings.TrimSuffix(stderr.String(), "\n")
}

// TestErrors_LongPartsKeepTheAdvice gives every failure of the matrix a long base URL, a long
// conversation ID and long words from the service, and checks that each line still fits and
// ends with the same advice: what gets shortened is the variable part, not what to do.
func TestErrors_LongPartsKeepTheAdvice(t *testing.T) {
	for _, tc := range failureMatrix {
		short := tc.in.globals().describe(tc.err)
		in := tc.in
		if strings.HasPrefix(in.base, "https://") {
			in.base = longRemote
		} else if in.base != "" {
			in.base = strings.Replace(in.base, "http://127.0.0.1:8780", longLocal, 1)
		}
		if in.conv != "" {
			in.conv = longConv
		}
		err := tc.err
		var ce *client.Error
		if errors.As(err, &ce) && ce.Message != "" {
			long := *ce
			long.Message = longWords
			err = &long
		}
		line := in.globals().describe(err)
		checkLine(t, tc.name+", long", line)
		words := strings.Fields(short)
		advice := strings.Join(words[max(0, len(words)-3):], " ")
		if i := strings.LastIndex(short, "): "); i >= 0 {
			advice = short[i+1:]
		}
		if !strings.HasSuffix(line, advice) && !strings.Contains(short, "error:") {
			t.Errorf("%s: with long parts the advice is cut:\n\tshort: %s\n\tlong:  %s", tc.name, short, line)
		}
	}
}

// checkLine fails when line is not one line of at most maxLine characters, or says something twice.
func checkLine(t *testing.T, name, line string) {
	t.Helper()
	if strings.Contains(line, "\n") || line == "" {
		t.Errorf("%s: want one line, got %q", name, line)
	}
	if n := utf8.RuneCountInString(line); n > maxLine {
		t.Errorf("%s: %d characters, want at most %d: %q", name, n, maxLine, line)
	}
	if strings.HasSuffix(line, "…") {
		t.Errorf("%s: clipped at the end, so its advice is cut: %q", name, line)
	}
	if rep := repeated(line); rep != "" {
		t.Errorf("%s: says %q twice: %q", name, rep, line)
	}
	if strings.Contains(strings.ToLower(line), "nothing was charged") && strings.Count(strings.ToLower(line), "charged") > 1 {
		t.Errorf("%s: repeats the charge: %q", name, line)
	}
}

// quoted matches what a line quotes back (the person's input), which may repeat itself.
var quoted = regexp.MustCompile(`"[^"]*"|'[^']*'`)

// repeated returns a sequence of three words that occurs twice in s outside quotes, or "".
func repeated(s string) string {
	s = quoted.ReplaceAllString(s, " ")
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '\'')
	})
	seen := map[string]bool{}
	for i := 0; i+3 <= len(words); i++ {
		k := strings.Join(words[i:i+3], " ")
		if seen[k] {
			return k
		}
		seen[k] = true
	}
	return ""
}

// diffLines shows the lines of got that are not in want, and the other way round.
func diffLines(want, got string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	w, g := in(want), in(got)
	var b strings.Builder
	for _, l := range strings.Split(want, "\n") {
		if !g[l] {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if !w[l] {
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}

func TestRepeated_FindsRepetition(t *testing.T) {
	if r := repeated("Not enough points (402: nothing was charged). Nothing was charged; ask."); r != "nothing was charged" {
		t.Errorf("repeated = %q", r)
	}
	if r := repeated("The service is busy (429): try again in 5s."); r != "" {
		t.Errorf("repeated = %q, want none", r)
	}
}

// TestErrors_RealClientSaysWhatTheAppSays checks the line for errors a real client gets from
// real servers, and that it states the fact package explain states, which the app shows too.
func TestErrors_RealClientSaysWhatTheAppSays(t *testing.T) {
	tlsServer := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(tlsServer.Close)
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://evil.example.net/v1/chat/messages", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(redirecting.Close)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadGateway)
		fmt.Fprint(w, `{"error":{"code":"upstream_error","message":"The model failed; refunded."}}`)
	}))
	t.Cleanup(upstream.Close)
	cases := []struct {
		name, base, want string
	}{
		{"self-signed certificate", tlsServer.URL, "The TLS certificate of " + strings.TrimPrefix(tlsServer.URL, "https://") +
			" is not trusted (an unknown authority signed it): check the address, or install the certificate's authority."},
		{"redirect", redirecting.URL, "The service redirected to evil.example.net (307); Parley does not follow redirects, so the key stays put: use the final address as --base-url."},
		{"502 the service says is refunded", upstream.URL, "The service's model failed (502: The model failed; refunded): try again."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := client.New(client.Options{BaseURL: tc.base, APIKey: "pk_test_0123456789abcdef", MaxRetries: -1})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.SendMessage(t.Context(), client.SendMessageRequest{Message: "Hello"})
			if err == nil {
				t.Fatal("the call did not fail")
			}
			g := situation{command: "parley chat", base: tc.base, key: fromKeyring}.globals()
			got := g.describe(err)
			if got != tc.want {
				t.Errorf("got\n\t%s\nwant\n\t%s", got, tc.want)
			}
			fact := explain.Error(err, g.scene()).String()
			if !strings.HasPrefix(got, fact+": ") {
				t.Errorf("the line %q does not state the app's fact %q", got, fact)
			}
		})
	}
}
