package cli_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parley/cli"
	"parley/internal/testenv"
)

// canary is the API key every test uses; it must never appear in any output or file.
const canary = "pk_CANARY_7f3a9c2e5b1d4f6a8c0e2b4d6f8a0c2e"

// TestMain runs the tests, each command line in this process through cli.RunInProcess (e2e/
// runs the built binary), and fails the run if a test left a file in the package's directory,
// the working directory that relative names in a command line resolve against.
func TestMain(m *testing.M) {
	before := dirListing()
	code := m.Run()
	if after := dirListing(); code == 0 && after != before {
		fmt.Fprintf(os.Stderr, "the tests changed the files in cli/:\nbefore: %s\nafter:  %s\n", before, after)
		code = 1
	}
	os.Exit(code)
}

// dirListing names the entries of the working directory.
func dirListing() string {
	entries, _ := os.ReadDir(".")
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return strings.Join(names, " ")
}

type result = testenv.Result

// home is a private HOME with config directories, and no keyring reachable: all that a run in
// it takes from its surroundings, none of it the test process's.
type home struct {
	dir string
	env map[string]string // the environment of a run: only what the test gives
}

// newHome makes a home whose environment holds HOME, the XDG directories, a D-Bus address
// where no bus listens, and extra (NAME=value).
func newHome(t *testing.T, extra ...string) *home {
	t.Helper()
	h := &home{dir: t.TempDir()}
	h.env = map[string]string{
		"HOME":                     h.dir,
		"XDG_CONFIG_HOME":          filepath.Join(h.dir, "config"),
		"XDG_DATA_HOME":            filepath.Join(h.dir, "data"),
		"DBUS_SESSION_BUS_ADDRESS": "unix:path=" + filepath.Join(h.dir, "no-bus"),
	}
	for _, kv := range extra {
		name, value, _ := strings.Cut(kv, "=")
		h.env[name] = value
	}
	return h
}

// surroundings is what a run in h takes instead of the process's environment, directories and
// keyring.
func (h *home) surroundings() cli.Surroundings {
	return cli.Surroundings{
		Env:       h.env,
		ConfigDir: h.env["XDG_CONFIG_HOME"],
		DataDir:   filepath.Join(h.env["XDG_DATA_HOME"], "parley"),
		Keyring:   cli.NoKeyring{Bus: strings.TrimPrefix(h.env["DBUS_SESSION_BUS_ADDRESS"], "unix:path=")},
	}
}

// run runs parley's command line in this process, checks that the canary key appears nowhere
// in what it printed or wrote, and returns what happened.
func (h *home) run(t *testing.T, input string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var stdout, stderr testenv.SyncBuffer
	code := cli.RunInProcess(ctx, args, strings.NewReader(input), &stdout, &stderr, h.surroundings())
	r := result{Stdout: stdout.String(), Stderr: stderr.String(), Code: code}
	if strings.Contains(r.Stdout+r.Stderr, canary) || strings.Contains(r.Stdout+r.Stderr, canary[3:]) {
		t.Errorf("parley %v printed the API key: %s", args, r)
	}
	testenv.AssertSecretInNoFile(t, canary, h.dir)
	return r
}

// wavFile writes a second of a 440 Hz tone as 16 kHz mono WAV and returns its path.
func wavFile(t *testing.T) string {
	t.Helper()
	const rate = 16000
	var pcm bytes.Buffer
	for i := 0; i < rate; i++ {
		binary.Write(&pcm, binary.LittleEndian, int16(8000*math.Sin(2*math.Pi*440*float64(i)/rate)))
	}
	var b bytes.Buffer
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, uint32(36+pcm.Len()))
	b.WriteString("WAVEfmt ")
	for _, v := range []any{uint32(16), uint16(1), uint16(1), uint32(rate), uint32(rate * 2), uint16(2), uint16(16)} {
		binary.Write(&b, binary.LittleEndian, v)
	}
	b.WriteString("data")
	binary.Write(&b, binary.LittleEndian, uint32(pcm.Len()))
	b.Write(pcm.Bytes())
	p := filepath.Join(t.TempDir(), "tone.wav")
	if err := os.WriteFile(p, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestChat_SendsOnlyGivenSettingsAndPrintsReply(t *testing.T) {
	t.Parallel()
	f := testenv.NewFakeService(t)
	f.On("POST /v1/chat/messages", 200, `{"code":0,"msg":"ok","data":{"conversationId":12345,"answer":"Ahoy.","points_charged":1,"balance":41}}`)
	h := newHome(t, "PARLEY_BASE_URL="+f.URL, "PARLEY_API_KEY="+canary)

	r := h.run(t, "", "chat", "--persona", "a pirate", "--max-tokens", "50", "Hello", "there")
	if r.Code != 0 || strings.TrimSpace(r.Stdout) != "Ahoy." || !strings.Contains(r.Stderr, "12345") || !strings.Contains(r.Stderr, "balance 41") {
		t.Fatalf("chat: %s", r)
	}
	req := f.Requests()[0]
	if req.Method != "POST" || req.Auth != "Bearer "+canary || !strings.HasPrefix(req.ContentType, "application/json") {
		t.Errorf("request %+v", req)
	}
	want := map[string]any{"message": "Hello there", "persona": "a pirate", "max_tokens": 50.0}
	if fmt.Sprint(req.Body) != fmt.Sprint(want) {
		t.Errorf("body %v, want %v (only the settings given)", req.Body, want)
	}

	// A follow-up passes the ID back in the form the service gives (a number): a new process learns
	// it from the conversation list (a free GET) before the charged POST. --json goes before the command.
	f.On("GET /v1/chat/conversations", 200, `{"data":{"conversations":[{"conversationId":12345}]}}`)
	r = h.run(t, "", "--json", "chat", "-c", "12345", "--temperature", "0", "Again")
	if r.Code != 0 {
		t.Fatalf("chat -c: %s", r)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil || out["conversation_id"] != 12345.0 || out["reply"] != "Ahoy." || out["balance"] != 41.0 {
		t.Errorf("chat --json printed %q (%v)", r.Stdout, err)
	}
	if reqs := f.Requests(); len(reqs) != 3 || reqs[1].Method != "GET" || reqs[2].Method != "POST" {
		t.Fatalf("requests %+v, want the first POST, one GET of the list, one POST", reqs)
	}
	body := f.Requests()[2].Body
	if body["conversation_id"] != 12345.0 || body["temperature"] != 0.0 {
		t.Errorf("follow-up body %v: want conversation_id 12345 as a number and temperature 0 sent", body)
	}
}

func TestChat_MessageFromStdin(t *testing.T) {
	t.Parallel()
	f := testenv.NewFakeService(t)
	f.On("POST /v1/chat/messages", 200, `{"data":{"conversation_id":"c_1","reply":"ok"}}`)
	h := newHome(t, "PARLEY_BASE_URL="+f.URL, "PARLEY_API_KEY="+canary)
	if r := h.run(t, "a message\nover two lines\n", "chat", "-"); r.Code != 0 {
		t.Fatalf("%s", r)
	}
	if got := f.Requests()[0].Body["message"]; got != "a message\nover two lines" {
		t.Errorf("message %q", got)
	}
}

func TestConversationsHistoryConfigDelete(t *testing.T) {
	t.Parallel()
	f := testenv.NewFakeService(t)
	f.On("GET /v1/chat/conversations", 200, `{"conversations":[{"conversation_id":7,"name":"Trip plans","updated_at":1763800000}]}`)
	f.On("GET /v1/chat/conversations/7/messages", 200, `{"data":{"config":{"persona":"a guide","temperature":0.3},"messages":[
		{"id":1,"role":"user","content":"Where to?","created_at":"2025-11-22 10:00:00"},
		{"id":2,"role":"assistant","content":"Lisbon.","created_at":"2025-11-22T10:00:01.5Z"}]}}`)
	f.On("PATCH /v1/chat/conversations/7/config", 200, `{"data":{"config":{"persona":"a guide","temperature":0.3,"max_tokens":64}}}`)
	f.On("DELETE /v1/chat/conversations/7", 204, ``)
	h := newHome(t, "PARLEY_BASE_URL="+f.URL, "PARLEY_API_KEY="+canary)

	r := h.run(t, "", "conversations", "--json")
	var list []map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &list); err != nil || len(list) != 1 || list[0]["id"] != 7.0 || list[0]["title"] != "Trip plans" || list[0]["updated_at"] == nil {
		t.Fatalf("conversations --json: %s (%v)", r, err)
	}
	r = h.run(t, "", "conversations")
	if r.Code != 0 || !strings.Contains(r.Stdout, "Trip plans") || !strings.Contains(r.Stdout, "ID") {
		t.Errorf("conversations table: %s", r)
	}

	r = h.run(t, "", "history", "7", "--json")
	var hist struct {
		Config   map[string]any   `json:"config"`
		Messages []map[string]any `json:"messages"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &hist); err != nil || len(hist.Messages) != 2 {
		t.Fatalf("history --json: %s (%v)", r, err)
	}
	if hist.Config["persona"] != "a guide" || hist.Messages[0]["id"] != 1.0 || hist.Messages[1]["created_at"] != "2025-11-22T10:00:01.5Z" || hist.Messages[0]["created_at"] != "2025-11-22T10:00:00Z" {
		t.Errorf("history --json = %+v", hist)
	}

	r = h.run(t, "", "config", "7", "--max-tokens", "64")
	if r.Code != 0 || !strings.Contains(r.Stdout, "max_tokens:  64") || !strings.Contains(r.Stdout, `"a guide"`) {
		t.Errorf("config: %s", r)
	}
	patch := f.Requests()[len(f.Requests())-1]
	if patch.Method != "PATCH" || fmt.Sprint(patch.Body) != "map[max_tokens:64]" {
		t.Errorf("config sent %s %v; want only max_tokens", patch.Method, patch.Body)
	}

	r = h.run(t, "", "delete", "7")
	if r.Code != 0 || !strings.Contains(r.Stdout, "Deleted conversation 7") {
		t.Errorf("delete: %s", r)
	}
}

// TestHistory_ExportsAsTheApp: history --json and --markdown print the app's export, with its
// fields: the title (made from the first message, the service giving none), the roles as the
// app shows them, and no ID or time the service did not give.
func TestHistory_ExportsAsTheApp(t *testing.T) {
	t.Parallel()
	f := testenv.NewFakeService(t)
	f.On("GET /v1/chat/conversations/7/messages", 200, `{"data":{"config":{"persona":"a guide","temperature":0.3},"messages":[
		{"id":1,"role":"user","content":"Where to?","created_at":"2025-11-22 10:00:00"},
		{"role":"Assistant","content":"Lisbon."}]}}`)
	h := newHome(t, "PARLEY_BASE_URL="+f.URL, "PARLEY_API_KEY="+canary)

	r := h.run(t, "", "history", "7", "--json")
	var hist struct {
		ID       any              `json:"conversation_id"`
		Title    string           `json:"title"`
		Messages []map[string]any `json:"messages"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &hist); err != nil || len(hist.Messages) != 2 {
		t.Fatalf("history --json: %s (%v)", r, err)
	}
	if hist.ID != "7" || hist.Title != "Where to?" || hist.Messages[0]["role"] != "user" || hist.Messages[1]["role"] != "assistant" {
		t.Errorf("history --json = %+v; want the ID, the title and the roles of the app's export", hist)
	}
	if _, ok := hist.Messages[1]["id"]; ok {
		t.Errorf("history --json = %+v; want no ID where the service gave none", hist)
	}
	if _, ok := hist.Messages[1]["created_at"]; ok {
		t.Errorf("history --json = %+v; want no time where the service gave none", hist)
	}

	r = h.run(t, "", "history", "7", "--markdown")
	if r.Code != 0 || !strings.HasPrefix(r.Stdout, "# Where to?\n\n_Persona:_\n\n> a guide\n\n_Settings: temperature 0.3._\n\n**You** · ") ||
		!strings.HasSuffix(r.Stdout, "**Assistant**\n\nLisbon.\n\n") {
		t.Errorf("history --markdown: %s", r)
	}
	if r = h.run(t, "", "history", "7", "--markdown", "--json"); r.Code != 2 || !strings.Contains(r.Stderr, "give one") {
		t.Errorf("history --markdown --json: %s; want a usage error", r)
	}
}

func TestTranscribe_EncodesWAVAsWebM(t *testing.T) {
	t.Parallel()
	f := testenv.NewFakeService(t)
	f.On("POST /v1/chat/transcribe", 200, `{"text":"hello world","language":"en"}`)
	h := newHome(t, "PARLEY_BASE_URL="+f.URL, "PARLEY_API_KEY="+canary)
	wav := wavFile(t)
	r := h.run(t, "", "transcribe", "--json", wav)
	var tr map[string]string
	if err := json.Unmarshal([]byte(r.Stdout), &tr); err != nil || tr["text"] != "hello world" || tr["language"] != "en" {
		t.Fatalf("transcribe --json: %s", r)
	}
	audio, _ := f.Requests()[0].Body["audio"].(string)
	const prefix = "data:audio/webm;base64,"
	if !strings.HasPrefix(audio, prefix) {
		t.Fatalf("uploaded audio starts %.40q, want a WebM data URI", audio)
	}
	webm, err := base64.StdEncoding.DecodeString(audio[len(prefix):])
	if err != nil || !bytes.HasPrefix(webm, []byte{0x1A, 0x45, 0xDF, 0xA3}) {
		t.Fatalf("upload is not WebM: %v", err)
	}
	wavSize, _ := os.Stat(wav)
	if int64(len(webm))*5 > wavSize.Size() {
		t.Errorf("a 1 s WAV of %d bytes became %d bytes of WebM; want at least 5 times smaller", wavSize.Size(), len(webm))
	}

	// --raw sends the bytes unchanged.
	h.run(t, "", "transcribe", "--raw", wav)
	audio, _ = f.Requests()[1].Body["audio"].(string)
	raw, _ := os.ReadFile(wav)
	if audio != "data:audio/wav;base64,"+base64.StdEncoding.EncodeToString(raw) {
		t.Errorf("--raw upload starts %.40q, want the WAV unchanged", audio)
	}

	// Not audio: refused before any upload.
	txt := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(txt, []byte("just some words"), 0o600)
	n := len(f.Requests())
	r = h.run(t, "", "transcribe", txt)
	if r.Code != 1 || !strings.Contains(strings.ToLower(r.Stderr), "audio") || len(f.Requests()) != n {
		t.Errorf("transcribe of text: %s (requests %d → %d)", r, n, len(f.Requests()))
	}
}

func TestTranscribe_RefusesOversizedAudioBeforeUpload(t *testing.T) {
	t.Parallel()
	f := testenv.NewFakeService(t)
	h := newHome(t, "PARLEY_BASE_URL="+f.URL, "PARLEY_API_KEY="+canary)
	big := filepath.Join(t.TempDir(), "big.webm")
	data := make([]byte, 10_000_001)
	copy(data, []byte{0x1A, 0x45, 0xDF, 0xA3})
	os.WriteFile(big, data, 0o600)
	r := h.run(t, "", "transcribe", big)
	if r.Code != 1 || !strings.Contains(r.Stderr, "10,000,000") || len(f.Requests()) != 0 {
		t.Errorf("oversized upload: %s, %d requests", r, len(f.Requests()))
	}
}

func TestSpeak_WritesMP3(t *testing.T) {
	t.Parallel()
	f := testenv.NewFakeService(t)
	mp3 := []byte("\xff\xfb\x90\x00fake-mp3-frame-bytes")
	f.On("POST /v1/chat/speech", 200, `{"data":{"audio":"data:audio/mpeg;base64,`+base64.StdEncoding.EncodeToString(mp3)+`"}}`)
	h := newHome(t, "PARLEY_BASE_URL="+f.URL, "PARLEY_API_KEY="+canary)
	out := filepath.Join(h.dir, "hello.mp3")
	r := h.run(t, "", "speak", "--voice", "en-gb", "-o", out, "Hello", "world")
	got, _ := os.ReadFile(out)
	if r.Code != 0 || !bytes.Equal(got, mp3) {
		t.Fatalf("speak: %s; file %q", r, got)
	}
	if b := f.Requests()[0].Body; b["text"] != "Hello world" || b["voice"] != "en-gb" {
		t.Errorf("speech body %v", b)
	}
	r = h.run(t, "", "speak", "-o", "-", "Hi")
	if r.Stdout != string(mp3) {
		t.Errorf("speak -o - wrote %q", r.Stdout)
	}
}

func TestErrors_SayWhatHappenedAndExitOne(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{"401 json", 401, `{"error":{"code":"unauthorized","message":"Unknown API key."}}`, "refused the API key in PARLEY_API_KEY"},
		{"402", 402, `{"error":{"code":"insufficient_points","message":"Balance 0, price 1."}}`, "not enough points"},
		{"404 msg", 404, `{"msg":"no such conversation"}`, "404: no such conversation"},
		{"422 detail", 422, `{"detail":"temperature out of range"}`, "temperature out of range"},
		{"429", 429, `{"message":"slow down"}`, "busy"},
		{"500 html", 500, `<html><body><h1>Internal Server Error</h1></body></html>`, "500"},
		{"502", 502, `{"error":{"code":"upstream_failed","message":"The model failed; nothing was charged."}}`, "model failed"},
		{"503 empty", 503, ``, "unavailable"},
		{"200 with code", 200, `{"code":40001,"msg":"quota exceeded"}`, "quota exceeded"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := testenv.NewFakeService(t)
			f.On("GET /v1/chat/conversations", tc.status, tc.body)
			h := newHome(t, "PARLEY_BASE_URL="+f.URL, "PARLEY_API_KEY="+canary)
			r := h.run(t, "", "conversations")
			if r.Code != 1 || !strings.Contains(strings.ToLower(r.Stderr), strings.ToLower(tc.want)) {
				t.Errorf("%s\nwant exit 1 and stderr mentioning %q", r, tc.want)
			}
			if n := strings.Count(strings.TrimSpace(r.Stderr), "\n"); n != 0 {
				t.Errorf("want one line on stderr, got %d", n+1)
			}
		})
	}
}

func TestErrors_Transport(t *testing.T) {
	t.Parallel()
	// A redirect is refused, and the other host never sees the key.
	other := testenv.NewFakeService(t)
	other.On("GET /v1/chat/conversations", 200, `[]`)
	f := testenv.NewFakeService(t)
	f.Handle("GET /v1/chat/conversations", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/v1/chat/conversations", http.StatusTemporaryRedirect)
	})
	h := newHome(t, "PARLEY_API_KEY="+canary)
	r := h.run(t, "", "--base-url", f.URL, "conversations")
	if r.Code != 1 || !strings.Contains(r.Stderr, "redirect") || len(other.Requests()) != 0 {
		t.Errorf("redirect: %s; other host saw %d requests", r, len(other.Requests()))
	}

	// Plain http to a remote host is refused before any request.
	r = h.run(t, "", "--base-url", "http://example.com", "conversations")
	if r.Code != 1 || !strings.Contains(r.Stderr, "https") {
		t.Errorf("http to a remote host: %s", r)
	}

	// Nothing listening.
	dead := httptest.NewServer(http.NotFoundHandler())
	url := dead.URL
	dead.Close()
	r = h.run(t, "", "--base-url", url, "conversations")
	if r.Code != 1 || !strings.Contains(r.Stderr, "parley serve") {
		t.Errorf("connection refused: %s", r)
	}

	// chatsSince counts the chat requests the service saw after the first n requests.
	chatsSince := func(n int) int {
		hits := 0
		for _, req := range f.Requests()[n:] {
			if req.Method == "POST" && req.Path == "/v1/chat/messages" {
				hits++
			}
		}
		return hits
	}

	// A chat whose connection dies after the request was sent: one request, and a warning about charges.
	f.Handle("POST /v1/chat/messages", func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	})
	before := len(f.Requests())
	r = h.run(t, "", "--base-url", f.URL, "chat", "hello")
	if hits := chatsSince(before); r.Code != 3 || !strings.Contains(r.Stderr, "charged") || hits != 1 {
		t.Errorf("lost reply: %s; the service saw %d requests, want 1", r, hits)
	}

	// A chat the service answered with success (charged) that cannot be read: exit 3, one line
	// that says it was charged and is not sent again, one request.
	f.Handle("POST /v1/chat/messages", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"data":{"conversation_id":"c9","reply":`)
	})
	before = len(f.Requests())
	r = h.run(t, "", "--base-url", f.URL, "chat", "hello")
	if hits := chatsSince(before); r.Code != 3 || !strings.Contains(r.Stderr, "charged") || !strings.Contains(r.Stderr, "not sent again") ||
		strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 || hits != 1 {
		t.Errorf("charged, reply unreadable: %s; the service saw %d requests, want 1", r, hits)
	}
}

func TestUsageErrors_ExitTwo(t *testing.T) {
	t.Parallel()
	f := testenv.NewFakeService(t)
	h := newHome(t, "PARLEY_BASE_URL="+f.URL, "PARLEY_API_KEY="+canary)
	for _, args := range [][]string{
		{"chat", "--temperature", "2.5", "hi"},
		{"chat", "--temperature", "NaN", "hi"},
		{"chat", "--top-p", "-0.1", "hi"},
		{"chat", "--max-tokens", "0", "hi"},
		{"chat", "--max-tokens", "many", "hi"},
		{"chat"},
		{"chat", "   "},
		{"history"},
		{"config", "a", "b"},
		{"nosuchcommand"},
		{"--nosuchflag", "conversations"},
		{"conversations", "extra"},
	} {
		r := h.run(t, "", args...)
		if r.Code != 2 || r.Stderr == "" {
			t.Errorf("parley %v: %s; want exit 2 with a message", args, r)
		}
	}
	if n := len(f.Requests()); n != 0 {
		t.Errorf("usage errors sent %d requests", n)
	}
}

func TestKey_PrecedenceAndMissing(t *testing.T) {
	t.Parallel()
	f := testenv.NewFakeService(t)
	f.On("GET /v1/chat/conversations", 200, `[]`)
	h := newHome(t, "PARLEY_BASE_URL="+f.URL, "PARLEY_API_KEY=pk_from_env_0000000000")
	h.run(t, "", "--api-key", canary, "conversations")
	if got := f.Requests()[0].Auth; got != "Bearer "+canary {
		t.Errorf("--api-key did not win over PARLEY_API_KEY")
	}
	h.run(t, "", "conversations")
	if got := f.Requests()[1].Auth; got != "Bearer pk_from_env_0000000000" {
		t.Errorf("PARLEY_API_KEY not used: %q", got)
	}

	// No key anywhere and no keyring: a sentence saying what to do, no request.
	bare := newHome(t, "PARLEY_BASE_URL="+f.URL)
	r := bare.run(t, "", "conversations")
	if r.Code != 1 || !strings.Contains(r.Stderr, "PARLEY_API_KEY") || len(f.Requests()) != 2 {
		t.Errorf("no key: %s", r)
	}
	r = bare.run(t, canary+"\n", "login")
	if r.Code != 1 || !strings.Contains(r.Stderr, "keyring") {
		t.Errorf("login with no keyring: %s", r)
	}
}
