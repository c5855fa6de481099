package speech

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"parley/engine"
	"parley/internal/testenv"
	"parley/media"
)

const testKey = "sk-test-secret-key"

// wavTake is a short valid WAV recording.
var wavTake = media.EncodeWAV(media.PCM{Rate: 16000, Channels: 1, Samples: make([]int16, 1600)})

// fakeMP3 is an MPEG-1 layer III frame header followed by padding: enough for Sniff.
var fakeMP3 = append([]byte{0xFF, 0xFB, 0x90, 0x64}, make([]byte, 400)...)

func newServer(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func TestRemoteTranscriber_Success(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/audio/transcriptions" {
			t.Errorf("got %s %s", r.Method, r.URL.Path)
		}
		if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
			t.Errorf("Authorization = %q", got)
		}
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			t.Fatalf("multipart: %v", err)
		}
		if got := r.FormValue("model"); got != "whisper-1" {
			t.Errorf("model = %q", got)
		}
		if got := r.FormValue("response_format"); got != "verbose_json" {
			t.Errorf("response_format = %q", got)
		}
		f, fh, err := r.FormFile("file")
		if err != nil {
			t.Fatalf("file: %v", err)
		}
		b, _ := io.ReadAll(f)
		if string(b) != string(wavTake) || fh.Filename != "audio.wav" || fh.Header.Get("Content-Type") != "audio/wav" {
			t.Errorf("file %q (%s), %d bytes", fh.Filename, fh.Header.Get("Content-Type"), len(b))
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"task":"transcribe","language":"english","duration":0.1,"text":" What is the weather like in Paris today? ","segments":[]}`)
	})
	stt := NewRemoteTranscriber(srv.URL+"/v1/", "whisper-1", testKey, srv.Client())
	got, err := stt.Transcribe(t.Context(), wavTake, "")
	if err != nil {
		t.Fatal(err)
	}
	want := Transcript{Text: "What is the weather like in Paris today?", Language: "en"}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// The language asked for goes to the service as Whisper takes it (ISO 639-1); none, none.
func TestRemoteTranscriber_Language(t *testing.T) {
	var got []string
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			t.Fatalf("multipart: %v", err)
		}
		got = append(got, strings.Join(r.MultipartForm.Value["language"], ","))
		io.WriteString(w, `{"text":"Guten Tag.","language":"german"}`)
	})
	stt := NewRemoteTranscriber(srv.URL, "whisper-1", testKey, srv.Client())
	for _, ctx := range []context.Context{WithLanguage(t.Context(), "de-AT"), t.Context()} {
		if tr, err := stt.Transcribe(ctx, wavTake, ""); err != nil || tr.Language != "de" {
			t.Fatalf("%+v, %v", tr, err)
		}
	}
	if len(got) != 2 || got[0] != "de" || got[1] != "" {
		t.Errorf("language fields sent: %q, want \"de\" then none", got)
	}
}

// The built-in recogniser hears English only: asked for another language it says so, without
// decoding a word; asked for English (any region) it hears.
func TestPocketSphinx_EnglishOnly(t *testing.T) {
	ps := NewPocketSphinx(PocketSphinxOptions{})
	for _, l := range []string{"de", "fr-FR", "uk"} {
		if _, err := ps.Transcribe(WithLanguage(t.Context(), l), wavTake, ""); !errors.Is(err, ErrLanguage) {
			t.Errorf("%s: err = %v, want ErrLanguage", l, err)
		}
	}
	if _, err := ps.Transcribe(WithLanguage(t.Context(), "en-GB"), wavTake, ""); errors.Is(err, ErrLanguage) {
		t.Error("English refused")
	}
	// A question expected in another language (its conversation is written in it) is refused
	// too, unless English is asked for.
	if _, err := ps.Transcribe(WithExpectedLanguage(t.Context(), "de"), wavTake, ""); !errors.Is(err, ErrLanguage) {
		t.Errorf("expected German: err = %v, want ErrLanguage", err)
	}
	if _, err := ps.Transcribe(WithExpectedLanguage(WithLanguage(t.Context(), "en"), "de"), wavTake, ""); errors.Is(err, ErrLanguage) {
		t.Error("English asked for in a German conversation was refused")
	}
}

func TestRemoteTranscriber_NotAudio(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		t.Error("not-audio input reached the service")
	})
	stt := NewRemoteTranscriber(srv.URL, "whisper-1", testKey, nil)
	for _, in := range []string{`{"text":"hi"}`, "", "\x00\x01\x02 random"} {
		if _, err := stt.Transcribe(t.Context(), []byte(in), "audio/webm"); !errors.Is(err, ErrNotAudio) {
			t.Errorf("%q: err = %v, want ErrNotAudio", in, err)
		}
	}
}

func TestRemoteSynthesizer_Success(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/audio/speech" {
			t.Errorf("got %s %s", r.Method, r.URL.Path)
		}
		if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
			t.Errorf("Authorization = %q", got)
		}
		var req map[string]string
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"model": "tts-1", "input": "-hello", "voice": "nova", "response_format": "mp3"}
		for k, v := range want {
			if req[k] != v {
				t.Errorf("%s = %q, want %q", k, req[k], v)
			}
		}
		w.Header().Set("Content-Type", "audio/mpeg")
		w.Write(fakeMP3)
	})
	tts := NewRemoteSynthesizer(srv.URL, "tts-1", testKey, []string{"nova", "alloy"}, nil)
	if vs := tts.Voices(); len(vs) != 2 || vs[0].Name != "nova" {
		t.Errorf("Voices() = %v", vs)
	}
	b, err := tts.Synthesize(t.Context(), "-hello", "")
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != string(fakeMP3) {
		t.Errorf("got %d bytes, want the service's %d", len(b), len(fakeMP3))
	}
	if _, err := tts.Synthesize(t.Context(), "hello", "onyx"); !errors.Is(err, ErrUnknownVoice) {
		t.Errorf("voice not offered: err = %v, want ErrUnknownVoice", err)
	}
	if _, err := tts.Synthesize(t.Context(), "", ""); !errors.Is(err, ErrEmptyText) {
		t.Errorf("empty text: err = %v", err)
	}
	if vs := NewRemoteSynthesizer(srv.URL, "tts-1", "", nil, nil).Voices(); len(vs) != 6 || vs[0].Name != "alloy" {
		t.Errorf("default Voices() = %v", vs)
	}
}

// call runs one engine call against base, as the failure cases need it.
type call func(ctx context.Context, base string, hc *http.Client) error

func transcribe(ctx context.Context, base string, hc *http.Client) error {
	_, err := NewRemoteTranscriber(base, "whisper-1", testKey, hc).Transcribe(ctx, wavTake, "audio/wav")
	return err
}

func synthesize(ctx context.Context, base string, hc *http.Client) error {
	_, err := NewRemoteSynthesizer(base, "tts-1", testKey, nil, hc).Synthesize(ctx, "hello", "")
	return err
}

func TestRemote_Failures(t *testing.T) {
	// A port nothing listens on: bind one, then close it.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + l.Addr().String()
	l.Close()
	testDone := make(chan struct{})
	t.Cleanup(func() { close(testDone) })

	cases := []struct {
		name    string
		handler http.HandlerFunc // nil: connection refused
		status  int
		want    error  // an error the result must wrap, if any
		msg     string // text the message must hold, if any
	}{
		{name: "500", status: 500, msg: "model overloaded", handler: func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(500)
			io.WriteString(w, `{"error":{"message":"model overloaded","type":"server_error"}}`)
		}},
		{name: "401 echoing the key", status: 401, msg: "[API key]", handler: func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(401)
			io.WriteString(w, "bad key "+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		}},
		{name: "timeout", want: context.DeadlineExceeded, handler: func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body) // the server notices the client leave only once the body is read
			select {
			case <-r.Context().Done():
			case <-testDone:
			}
		}},
		{name: "malformed", status: 200, handler: func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"text": "unterminated`)
		}},
		{name: "redirect", status: 307, want: errRedirect, handler: func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://example.invalid/steal", http.StatusTemporaryRedirect)
		}},
		{name: "connection refused"},
	}
	for _, c := range cases {
		for opName, op := range map[string]call{"transcribe": transcribe, "synthesize": synthesize} {
			t.Run(c.name+"/"+opName, func(t *testing.T) {
				t.Parallel()
				base := refused
				if c.handler != nil {
					base = newServer(t, c.handler).URL
				}
				ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
				defer cancel()
				if c.name == "timeout" {
					ctx, cancel = context.WithTimeout(ctx, 100*time.Millisecond)
					defer cancel()
				}
				redirects := 0
				hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { redirects++; return nil }}
				err := op(ctx, base, hc)
				var up *UpstreamError
				if !errors.As(err, &up) {
					t.Fatalf("err = %v (%T), want *UpstreamError", err, err)
				}
				if up.Op != opName || up.Status != c.status {
					t.Errorf("Op %q Status %d, want %q %d", up.Op, up.Status, opName, c.status)
				}
				if c.want != nil && !errors.Is(err, c.want) {
					t.Errorf("err = %v, want it to wrap %v", err, c.want)
				}
				if !strings.Contains(err.Error(), c.msg) {
					t.Errorf("err = %v, want it to say %q", err, c.msg)
				}
				if strings.Contains(err.Error(), testKey) {
					t.Errorf("err = %v shows the API key", err)
				}
				if redirects != 0 || hc.CheckRedirect == nil {
					t.Errorf("the caller's client was changed or used to follow a redirect")
				}
			})
		}
	}
}

func TestRemoteSynthesizer_NotMP3(t *testing.T) {
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"error":"oops"}`)
	})
	_, err := NewRemoteSynthesizer(srv.URL, "tts-1", testKey, nil, nil).Synthesize(t.Context(), "hello", "")
	var up *UpstreamError
	if !errors.As(err, &up) || up.Status != 200 {
		t.Errorf("err = %v, want *UpstreamError with status 200", err)
	}
}

// A speech service at an address of this computer (127.0.0.1, localhost, ::1) is sent nothing,
// not the recording nor the text, when another user's program holds the connection, whether the
// caller gives a client without a transport or none.
func TestRemote_OnThisComputerChecksTheOwner(t *testing.T) {
	var requests atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if r.URL.Path == "/v1/audio/speech" {
			w.Write(fakeMP3)
			return
		}
		io.WriteString(w, `{"text":"hello"}`)
	})
	owner := func(uid string, trusted bool) engine.OwnerCheck {
		return func(_, _ netip.AddrPort) (engine.Owner, error) {
			return engine.Owner{ID: uid, Name: "uid " + uid, Trusted: trusted}, nil
		}
	}
	testenv.ForEachLoopback(t, func(t *testing.T, ln net.Listener, host string) {
		srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: h}}
		srv.Start()
		t.Cleanup(srv.Close)
		_, port, _ := net.SplitHostPort(ln.Addr().String())
		base := "http://" + host + ":" + port + "/v1"
		before := requests.Load()
		for _, hc := range []*http.Client{nil, {Timeout: time.Minute}} {
			r := newRemote(base, "m", testKey, hc, owner("1001", false))
			var ue *engine.UntrustedError
			if _, err := (&remoteTranscriber{r}).Transcribe(t.Context(), wavTake, ""); !errors.As(err, &ue) || ue.Owner.ID != "1001" {
				t.Errorf("transcribing: %v", err)
			}
			if _, err := (&remoteSynthesizer{remote: r, voices: []string{"alloy"}}).Synthesize(t.Context(), "my secret plans", ""); !errors.As(err, &ue) ||
				!strings.HasPrefix(ue.Error(), "the speech service on port "+port+" belongs to another user (uid 1001)") {
				t.Errorf("synthesizing: %v", err)
			}
		}
		if n := requests.Load() - before; n != 0 {
			t.Fatalf("another user's program got %d requests", n)
		}
		r := newRemote(base, "m", testKey, nil, owner("998", true))
		if tr, err := (&remoteTranscriber{r}).Transcribe(t.Context(), wavTake, ""); err != nil || tr.Text != "hello" {
			t.Errorf("a system account's service: %+v, %v", tr, err)
		}
	})
}
