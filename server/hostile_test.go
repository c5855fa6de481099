package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"parley/internal/testenv"
	"parley/server/speech"
	"parley/server/store"
)

// Tests of the service under hostile load: bodies that never arrive, floods of free work,
// clients that never read or go away, and the order of the checks. The memory figures are
// measured on a real `parley serve` in e2e/hostile_test.go.

// heldSTT is a transcriber that holds every call until released (or its context ends), and
// counts how many it holds at once.
type heldSTT struct {
	release chan struct{}
	started chan struct{} // one value per call that started

	mu      sync.Mutex
	running int
	most    int
}

func newHeldSTT() *heldSTT {
	return &heldSTT{release: make(chan struct{}), started: make(chan struct{}, 100)}
}

func (h *heldSTT) Transcribe(ctx context.Context, _ []byte, _ string) (speech.Transcript, error) {
	h.mu.Lock()
	h.running++
	h.most = max(h.most, h.running)
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.running--
		h.mu.Unlock()
	}()
	h.started <- struct{}{}
	select {
	case <-h.release:
		return speech.Transcript{Text: "hello", Language: "en"}, nil
	case <-ctx.Done():
		return speech.Transcript{}, ctx.Err()
	}
}

func (h *heldSTT) mostAtOnce() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.most
}

// transcribeBody is a transcribe request body with a little "audio".
const transcribeBody = `{"audio":"UklGRi4uLi5XQVZFZm10"}`

// goTranscribe sends a transcribe call in the background; its reply arrives on the channel.
func (e *env) goTranscribe(ctx context.Context, key string) <-chan reply {
	out := make(chan reply, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", e.base+"/v1/chat/transcribe", strings.NewReader(transcribeBody))
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := e.client.Do(req)
		if err != nil {
			out <- reply{Status: -1}
			return
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		r := reply{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
		json.Unmarshal(raw, &r.Body)
		out <- r
	}()
	return out
}

// admitted is how many transcribe calls the gate holds (running or waiting).
func (e *env) admitted() int { return len(e.srv.sttGate.tickets) }

func TestTranscribe_DecodesOnlyInASlotAndQueuesTheRest(t *testing.T) {
	stt := newHeldSTT()
	e := newEnv(t, 0, func(c *Config) {
		c.STT = stt
		c.Limits = Limits{SpeechSlots: 1, SpeechQueue: 1, PerKey: 5, SpeechWait: time.Minute}
	})
	first := e.goTranscribe(t.Context(), e.key)
	<-stt.started
	second := e.goTranscribe(t.Context(), e.newAccount(0).key)
	waitFor(t, func() bool { return e.admitted() == 2 }, nil)

	// One running, one waiting: the queue is full.
	r := e.doKey(e.newAccount(0).key, "POST", "/v1/chat/transcribe", transcribeBody)
	if r.Status != http.StatusServiceUnavailable || r.code() != codeBusy || r.Header.Get("Retry-After") == "" {
		t.Errorf("a third call: %d %s, Retry-After %q; want 503 busy with Retry-After", r.Status, r.Raw, r.Header.Get("Retry-After"))
	}
	close(stt.release)
	for _, c := range []<-chan reply{first, second} {
		if r := <-c; r.Status != 200 {
			t.Errorf("a call admitted: %d %s", r.Status, r.Raw)
		}
	}
	if n := stt.mostAtOnce(); n != 1 {
		t.Errorf("%d transcriptions ran at once with one slot", n)
	}
}

func TestTranscribe_WaitForASlotIsBounded(t *testing.T) {
	stt := newHeldSTT()
	e := newEnv(t, 0, func(c *Config) {
		c.STT = stt
		c.Limits = Limits{SpeechSlots: 1, SpeechQueue: 1, SpeechWait: 50 * time.Millisecond}
	})
	first := e.goTranscribe(t.Context(), e.key)
	<-stt.started
	r := e.doKey(e.newAccount(0).key, "POST", "/v1/chat/transcribe", transcribeBody)
	if r.Status != http.StatusServiceUnavailable || r.code() != codeBusy || r.Header.Get("Retry-After") == "" {
		t.Errorf("a call that waited too long: %d %s; want 503 busy with Retry-After", r.Status, r.Raw)
	}
	close(stt.release)
	<-first
}

func TestTranscribe_PerKeyLimit(t *testing.T) {
	stt := newHeldSTT()
	e := newEnv(t, 0, func(c *Config) {
		c.STT = stt
		c.Limits = Limits{SpeechSlots: 1, SpeechQueue: 4, PerKey: 1}
	})
	first := e.goTranscribe(t.Context(), e.key)
	<-stt.started
	r := e.do("POST", "/v1/chat/transcribe", transcribeBody)
	if r.Status != http.StatusTooManyRequests || r.code() != codeTooManyRequests || r.Header.Get("Retry-After") == "" {
		t.Errorf("a second call of one key: %d %s; want 429 too_many_requests with Retry-After", r.Status, r.Raw)
	}
	other := e.goTranscribe(t.Context(), e.newAccount(0).key)
	waitFor(t, func() bool { return e.admitted() == 2 }, nil)
	close(stt.release)
	for _, c := range []<-chan reply{first, other} {
		if r := <-c; r.Status != 200 {
			t.Errorf("%d %s", r.Status, r.Raw)
		}
	}
	// The key's place is given back.
	if r := e.do("POST", "/v1/chat/transcribe", transcribeBody); r.Status != 200 {
		t.Errorf("the key's next call: %d %s", r.Status, r.Raw)
	}
}

// TestTranscribe_TenMinutesOfAudioIs413 sends issue 10's file, made with exactly its sox
// command: 601 s of a sine at 1 kHz, 8 bits, which decodes past the 10-minute limit.
func TestTranscribe_TenMinutesOfAudioIs413(t *testing.T) {
	testenv.RequireCommands(t, "sox", "pocketsphinx_continuous")
	wav := filepath.Join(t.TempDir(), "low.wav")
	if out, err := exec.Command("sox", "-n", "-r", "1000", "-c", "1", "-b", "8", wav, "synth", "601", "sine", "100").CombinedOutput(); err != nil {
		t.Fatalf("sox: %v %s", err, out)
	}
	b, err := os.ReadFile(wav)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, 0, func(c *Config) { c.STT = speech.NewPocketSphinx(speech.PocketSphinxOptions{}) })
	r := e.do("POST", "/v1/chat/transcribe", map[string]any{"audio": base64.StdEncoding.EncodeToString(b)})
	msg, _ := r.Body["error"].(map[string]any)["message"].(string)
	if r.Status != http.StatusRequestEntityTooLarge || r.code() != codeAudioTooLarge || !strings.Contains(msg, "10 minutes") {
		t.Errorf("601 s of audio: %d %s; want 413 audio_too_large naming 10 minutes", r.Status, r.Raw)
	}
	if strings.Contains(e.logs.String(), "level=ERROR") {
		t.Errorf("input was logged as an error:\n%s", e.logs)
	}
}

func TestReadBody_GrowsWithWhatArrives(t *testing.T) {
	const mib16 = 16 << 20
	for _, c := range []struct {
		name      string
		announced int64
		body      string
		maxCap    int
	}{
		{"16 MiB announced, one byte sent", mib16, "{", firstBodyBuffer},
		{"small body with its length", 17, `{"message":"hi"}` + "\n", 18},
		{"chunked", -1, strings.Repeat("x", 100_000), 2 * 100_000},
		{"a long body with its length", 1_000_000, strings.Repeat("y", 1_000_000), 1_000_001},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := readBody(strings.NewReader(c.body), c.announced)
			if err != nil || string(got) != c.body {
				t.Fatalf("read %d bytes, err %v; want the %d sent", len(got), err, len(c.body))
			}
			if cap(got) > c.maxCap {
				t.Errorf("buffer of %d bytes for %d that arrived, want at most %d", cap(got), len(got), c.maxCap)
			}
		})
	}
}

// bigTTS speaks every text as n bytes of "MP3".
type bigTTS struct{ n int }

func (b bigTTS) Synthesize(context.Context, string, string) ([]byte, error) {
	return bytes.Repeat([]byte{0xff}, b.n), nil
}

func (bigTTS) Voices() []speech.Voice { return []speech.Voice{{Name: "en-us", Language: "en-US"}} }

func TestSpeech_AnswerIsWhatWriteDataWrites(t *testing.T) {
	for _, n := range []int{0, 10, 100_000} {
		e := newEnv(t, 0, func(c *Config) { c.TTS = bigTTS{n} })
		r := e.do("POST", "/v1/chat/speech", map[string]any{"text": "hello", "voice": "en-us"})
		rec := httptest.NewRecorder()
		writeData(rec, struct {
			Audio string `json:"audio"`
			Voice string `json:"voice"`
		}{"data:audio/mpeg;base64," + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xff}, n)), "en-us"})
		if r.Status != 200 || !bytes.Equal(r.Raw, rec.Body.Bytes()) {
			t.Errorf("%d bytes of MP3: %d %.200s\nwant %.200s", n, r.Status, r.Raw, rec.Body.Bytes())
		}
		if cl := r.Header.Get("Content-Length"); cl != strconv.Itoa(len(r.Raw)) {
			t.Errorf("%d bytes of MP3: Content-Length %s for %d bytes", n, cl, len(r.Raw))
		}
	}
}

// stalledRequest sends a request on a new connection that then never reads its answer.
func stalledRequest(t *testing.T, base, request string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.(*net.TCPConn).SetReadBuffer(4 << 10)
	if _, err := io.WriteString(c, request); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestAnswer_ClientThatDoesNotReadIsCutOff(t *testing.T) {
	e := newEnv(t, 0, func(c *Config) {
		c.TTS = bigTTS{32 << 20}
		c.Limits = Limits{WriteGrace: 100 * time.Millisecond, MinWriteRate: 1 << 40}
	})
	body := `{"text":"hello"}`
	stalledRequest(t, e.base, fmt.Sprintf("POST /v1/chat/speech HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", e.key, len(body), body))
	// The request's line is logged when its handler ends, which it does only once the write
	// that nobody reads gives up.
	waitFor(t, func() bool { return strings.Contains(e.logs.String(), "path=/v1/chat/speech status=200") }, nil)
}

func TestClientGone_IsLogged499AtInfo(t *testing.T) {
	stt := newHeldSTT()
	e := newEnv(t, 0, func(c *Config) {
		c.STT = stt
		c.Limits = Limits{SpeechSlots: 1, SpeechQueue: 1, PerKey: 5, SpeechWait: time.Minute}
	})
	count499 := func() int { return strings.Count(e.logs.String(), "status=499") }

	// Gone while the engine runs.
	ctx, cancel := context.WithCancel(t.Context())
	running := e.goTranscribe(ctx, e.key)
	<-stt.started
	cancel()
	<-running
	waitFor(t, func() bool { return count499() == 1 }, nil)

	// Gone while waiting for a slot.
	held := e.goTranscribe(t.Context(), e.key)
	<-stt.started
	ctx, cancel = context.WithCancel(t.Context())
	waiting := e.goTranscribe(ctx, e.newAccount(0).key)
	waitFor(t, func() bool { return e.admitted() == 2 }, nil)
	cancel()
	<-waiting
	waitFor(t, func() bool { return count499() == 2 }, nil)
	close(stt.release)
	<-held

	// Gone before the key was looked up: the store's work is cancelled.
	ctx, cancel = context.WithCancel(t.Context())
	cancel()
	req := httptest.NewRequestWithContext(ctx, "POST", "/v1/chat/messages", strings.NewReader(`{"message":"hi"}`))
	req.Header.Set("Authorization", "Bearer "+e.key)
	e.srv.Handler().ServeHTTP(httptest.NewRecorder(), req)
	waitFor(t, func() bool { return count499() == 3 }, nil)

	if strings.Contains(e.logs.String(), "level=ERROR") || strings.Contains(e.logs.String(), "status=500") {
		t.Errorf("a client that went away was logged as the service's fault:\n%s", e.logs)
	}
}

// rawStatus sends a request with the given headers and no body, and returns the status.
func rawStatus(t *testing.T, base, method, path string, header ...string) int {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "%s %s HTTP/1.1\r\nHost: x\r\n%s\r\n", method, path, strings.Join(append(header, ""), "\r\n"))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestRouting_BodySizeIsJudgedAfterPathMethodAndKey(t *testing.T) {
	e := newEnv(t, 10, nil)
	huge := "Content-Length: 999999999"
	for _, c := range []struct {
		name, method, path string
		header             []string
		want               int
	}{
		{"unknown path", "POST", "/v1/nothing", []string{huge}, 404},
		{"wrong method", "PUT", "/v1/chat/speech", []string{huge}, 405},
		{"no key", "POST", "/v1/chat/speech", []string{huge}, 401},
		{"unknown key", "POST", "/v1/chat/speech", []string{huge, "Authorization: Bearer pk_nope"}, 401},
		{"valid key", "POST", "/v1/chat/speech", []string{huge, "Authorization: Bearer " + e.key}, 413},
	} {
		if got := rawStatus(t, e.base, c.method, c.path, c.header...); got != c.want {
			t.Errorf("%s with a body over the limit: %d, want %d", c.name, got, c.want)
		}
	}
}

func TestAdmin_GrantPastMaxPointsIsRefused(t *testing.T) {
	a := Admin{DataDir: t.TempDir()}
	ctx := t.Context()
	key, _, err := a.CreateKey(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int64{math.MaxInt64, MaxPoints} {
		if _, err := a.Grant(ctx, key, n); !errors.Is(err, ErrTooManyPoints) {
			t.Errorf("grant %d to a balance of 1: %v, want ErrTooManyPoints", n, err)
		}
	}
	if b, err := a.Balance(ctx, key); err != nil || b != 1 {
		t.Errorf("balance after refused grants: %d, %v; want 1", b, err)
	}
	if b, err := a.Grant(ctx, key, MaxPoints-1); err != nil || b != MaxPoints {
		t.Errorf("grant up to MaxPoints: %d, %v", b, err)
	}
	if _, _, err := a.CreateKey(ctx, math.MaxInt64); !errors.Is(err, ErrTooManyPoints) {
		t.Errorf("create a key with MaxInt64 points: %v, want ErrTooManyPoints", err)
	}
	if !strings.Contains(ErrTooManyPoints.Error(), strconv.FormatInt(MaxPoints, 10)) {
		t.Errorf("%q does not name the limit", ErrTooManyPoints)
	}
}

func TestLockDataDir_OneHolderAtATime(t *testing.T) {
	dir := t.TempDir()
	unlock, err := lockDataDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = lockDataDir(dir)
	var le *DataDirLockedError
	if !errors.As(err, &le) || le.PID != os.Getpid() || le.Dir != dir ||
		!strings.Contains(err.Error(), fmt.Sprintf("PID %d", os.Getpid())) {
		t.Fatalf("a second lock: %v; want a DataDirLockedError naming PID %d", err, os.Getpid())
	}
	unlock()
	unlock, err = lockDataDir(dir)
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	unlock()
}

func TestServe_SecondServiceOnOneDataDirFails(t *testing.T) {
	dir := t.TempDir()
	o := DefaultServeOptions()
	o.Addr, o.Data = "127.0.0.1:0", dir
	ctx, cancel := context.WithCancel(t.Context())
	out := &testenv.SyncBuffer{}
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, o, out, &testenv.SyncBuffer{}) }()
	t.Cleanup(func() { cancel(); <-done })
	waitFor(t, func() bool { return listenRE.MatchString(out.String()) }, done)

	st, err := store.Open(t.Context(), filepath.Join(dir, "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, acct, _ := st.CreateKey(t.Context(), 10)
	if _, err := st.Reserve(t.Context(), acct.ID, ""); err != nil {
		t.Fatal(err)
	}

	errb := &testenv.SyncBuffer{}
	err = Serve(t.Context(), o, &testenv.SyncBuffer{}, errb)
	var le *DataDirLockedError
	if !errors.As(err, &le) || le.PID != os.Getpid() {
		t.Fatalf("a second Serve on the directory: %v; want a DataDirLockedError", err)
	}
	// It refunded nothing: the first service's call is still pending.
	entries, err := st.Ledger(t.Context(), acct.ID)
	if err != nil || entries[len(entries)-1].Status != "pending" || strings.Contains(errb.String(), "Refunded") {
		t.Errorf("the first service's pending charge after a second start: %+v %v %s", entries, err, errb)
	}
}

// BenchmarkReadBody_Transcribe reads a transcribe body of 13.4 MB (10 MB of audio in base64),
// announced or chunked: the buffer that grows with what arrives costs copies, measured here.
func BenchmarkReadBody_Transcribe(b *testing.B) {
	body := bytes.Repeat([]byte("A"), 13_400_000)
	for _, announced := range []int64{int64(len(body)), -1} {
		name := "announced"
		if announced < 0 {
			name = "chunked"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if _, err := readBody(bytes.NewReader(body), announced); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
