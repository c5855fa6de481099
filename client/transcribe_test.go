package client

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"parley/internal/testenv"
)

func TestTranscribe_Request(t *testing.T) {
	audio := []byte("RIFF....WAVEfmt \x00\x01\x02\xff")
	tests := []struct {
		name, mime, wantAudio string
	}{
		{"data URI", "audio/webm", "data:audio/webm;base64," + base64.StdEncoding.EncodeToString(audio)},
		{"plain base64", "", base64.StdEncoding.EncodeToString(audio)},
		{"type with codecs parameter", "audio/webm;codecs=opus", "data:audio/webm;codecs=opus;base64," + base64.StdEncoding.EncodeToString(audio)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := testenv.NewRecordingServer(t, reply(200, `{"text":"hello","language":"en"}`))
			c := newTestClient(t, ts.URL)
			got, err := c.Transcribe(t.Context(), TranscribeRequest{Audio: audio, MIMEType: tt.mime})
			if err != nil {
				t.Fatalf("Transcribe: %v", err)
			}
			if *got != (Transcript{Text: "hello", Language: "en"}) {
				t.Errorf("Transcript = %+v", *got)
			}
			r := ts.Only(t)
			if r.Method != http.MethodPost || r.Path != "/v1/chat/transcribe" {
				t.Errorf("request = %s %s", r.Method, r.Path)
			}
			checkCommonHeaders(t, r, true)
			if r.Header.Get("Transfer-Encoding") != "" {
				t.Errorf("body was chunked; want a known Content-Length")
			}
			var body map[string]string
			if err := json.Unmarshal(r.Body, &body); err != nil || len(body) != 1 {
				t.Fatalf("body %q: %v", r.Body, err)
			}
			if body["audio"] != tt.wantAudio {
				t.Errorf("audio = %q, want %q", body["audio"], tt.wantAudio)
			}
		})
	}
}

// A language goes only when asked for, beside the audio, and only as a language tag.
func TestTranscribe_Language(t *testing.T) {
	audio := []byte("RIFF....WAVEfmt \x00\x01")
	ts := testenv.NewRecordingServer(t, reply(200, `{"text":"Guten Tag.","language":"de"}`))
	c := newTestClient(t, ts.URL)
	if _, err := c.Transcribe(t.Context(), TranscribeRequest{Audio: audio, MIMEType: "audio/webm", Language: "de-AT"}); err != nil {
		t.Fatal(err)
	}
	var body map[string]string
	if err := json.Unmarshal(ts.Only(t).Body, &body); err != nil || len(body) != 2 || body["language"] != "de-AT" ||
		body["audio"] != "data:audio/webm;base64,"+base64.StdEncoding.EncodeToString(audio) {
		t.Errorf("body %v (%v), want the audio and \"language\": \"de-AT\"", body, err)
	}
	for _, bad := range []string{`de","x":"y`, "not a tag", strings.Repeat("a", 100)} {
		if _, err := c.Transcribe(t.Context(), TranscribeRequest{Audio: audio, Language: bad}); err == nil {
			t.Errorf("language %q sent", bad)
		}
		if _, err := c.Transcribe(t.Context(), TranscribeRequest{Audio: audio, ExpectedLanguage: bad}); err == nil {
			t.Errorf("expected language %q sent", bad)
		}
	}

	// Both, as one JSON object.
	ts2 := testenv.NewRecordingServer(t, reply(200, `{"text":"Hallo.","language":"de"}`))
	c2 := newTestClient(t, ts2.URL)
	if _, err := c2.Transcribe(t.Context(), TranscribeRequest{Audio: audio, Language: "fr", ExpectedLanguage: "pl"}); err != nil {
		t.Fatal(err)
	}
	body = nil
	if err := json.Unmarshal(ts2.Only(t).Body, &body); err != nil || len(body) != 3 || body["language"] != "fr" || body["expected_language"] != "pl" {
		t.Errorf("body %v (%v)", body, err)
	}
}

func TestTranscribe_TolerantShapes(t *testing.T) {
	tests := []struct {
		name, body string
		want       Transcript
	}{
		{"bare", `{"text":"a","language":"en"}`, Transcript{"a", "en"}},
		{"data", `{"data":{"text":"b","language":"de"}}`, Transcript{"b", "de"}},
		{"code envelope", `{"code":0,"msg":"ok","data":{"text":"c","lang":"fr"}}`, Transcript{"c", "fr"}},
		{"transcript key", `{"transcript":"d","detected_language":"es"}`, Transcript{"d", "es"}},
		{"no language", `{"text":"e"}`, Transcript{"e", ""}},
		{"nested result", `{"result":{"text":"f","language":"it"}}`, Transcript{"f", "it"}},
		{"empty text is text", `{"text":"","language":"en"}`, Transcript{"", "en"}},
		{"language object", `{"text":"g","language":{"code":"pt","name":"Portuguese"}}`, Transcript{"g", "pt"}},
		{"json string", `"just text"`, Transcript{"just text", ""}},
		{"language of wrong type", `{"text":"h","language":5,"lang":"de"}`, Transcript{"h", "de"}},
		{"text of wrong type", `{"text":{"value":"x"},"transcript":"i"}`, Transcript{"i", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := testenv.NewRecordingServer(t, reply(200, tt.body))
			c := newTestClient(t, ts.URL)
			got, err := c.Transcribe(t.Context(), TranscribeRequest{Audio: []byte{1, 2, 3}})
			if err != nil {
				t.Fatalf("Transcribe: %v", err)
			}
			if *got != tt.want {
				t.Errorf("Transcript = %+v, want %+v", *got, tt.want)
			}
		})
	}
	ts := testenv.NewRecordingServer(t, reply(200, `{"language":"en"}`))
	c := newTestClient(t, ts.URL)
	_, err := c.Transcribe(t.Context(), TranscribeRequest{Audio: []byte{1}})
	var de *DecodeError
	if !errors.As(err, &de) || de.Field != "text" {
		t.Errorf("err = %v, want *DecodeError for text", err)
	}
}

// Audio over the limit is refused before any upload, naming the limit.
func TestTranscribe_TooLarge(t *testing.T) {
	ts := testenv.NewRecordingServer(t, reply(200, `{"text":"x"}`))
	c := newTestClient(t, ts.URL)
	_, err := c.Transcribe(t.Context(), TranscribeRequest{Audio: make([]byte, MaxAudioBytes+1), MIMEType: "audio/wav"})
	if !errors.Is(err, ErrAudioTooLarge) || !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrAudioTooLarge", err)
	}
	if !strings.Contains(err.Error(), "10,000,000 bytes") {
		t.Errorf("error does not name the limit: %v", err)
	}
	if _, err := c.Transcribe(t.Context(), TranscribeRequest{}); err == nil {
		t.Error("empty audio was sent")
	}
	if _, err := c.Transcribe(t.Context(), TranscribeRequest{Audio: []byte{1}, MIMEType: "audio/webm;base64,"}); err == nil {
		t.Error("a media type that breaks the data URI was sent")
	}
	if n := len(ts.Requests()); n != 0 {
		t.Errorf("server saw %d requests, want 0", n)
	}
}

// Exactly MaxAudioBytes goes through, and arrives intact.
func TestTranscribe_AtLimit(t *testing.T) {
	audio := make([]byte, MaxAudioBytes)
	_, _ = rand.Read(audio[:4096])
	var got []byte
	ts := testenv.NewStreamingServer(t, func(w http.ResponseWriter, r *http.Request) {
		var body struct{ Audio string }
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			t.Errorf("decode: %v", err)
		}
		_, got, _ = parseAudioDataURI(body.Audio)
		reply(200, `{"text":"ok"}`)(w, r)
	})
	c := newTestClient(t, ts.URL)
	if _, err := c.Transcribe(t.Context(), TranscribeRequest{Audio: audio, MIMEType: "audio/wav"}); err != nil {
		t.Fatalf("Transcribe: %v", err)
	}
	if !bytes.Equal(got, audio) {
		t.Errorf("the service received %d bytes, not the audio sent", len(got))
	}
}

// The streamed body is exactly json.Marshal of the request, for every length and read size.
func TestTranscribeBody(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 4, 5, 6, 7, 100, 4095, 4096, 4097, 65537} {
		audio := make([]byte, n)
		_, _ = rand.Read(audio)
		for _, mime := range []string{"", "audio/webm"} {
			want, _ := json.Marshal(map[string]string{"audio": encodeDataURI(mime, audio)})
			newBody, length := transcribeBody(mime, "", "", audio)
			if length != int64(len(want)) {
				t.Errorf("n=%d: length %d, want %d", n, length, len(want))
			}
			for _, chunk := range []int{1, 2, 3, 5, 4096, 1 << 20} {
				got, err := io.ReadAll(&chunkReader{newBody(), chunk})
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("n=%d mime=%q chunk=%d: body differs (err %v)", n, mime, chunk, err)
				}
			}
		}
	}
}

// chunkReader reads from r at most n bytes at a time.
type chunkReader struct {
	r io.Reader
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(p) > c.n {
		p = p[:c.n]
	}
	return c.r.Read(p)
}

func FuzzBase64Reader(f *testing.F) {
	f.Add([]byte("hello world"), uint16(1))
	f.Add([]byte{}, uint16(3))
	f.Add([]byte{0xff, 0xfe}, uint16(7))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint16) {
		n := int(chunk%64) + 1
		got, err := io.ReadAll(&chunkReader{&base64Reader{src: data}, n})
		if err != nil {
			t.Fatal(err)
		}
		if want := base64.StdEncoding.EncodeToString(data); string(got) != want {
			t.Fatalf("chunk %d: got %q, want %q", n, got, want)
		}
	})
}

// BenchmarkTranscribeBody measures building and streaming the transcribe body for 10 MB of audio,
// the way the transport reads it; B/op shows the encoder adds no copy of the audio.
func BenchmarkTranscribeBody(b *testing.B) {
	audio := make([]byte, MaxAudioBytes)
	b.SetBytes(int64(len(audio)))
	b.ReportAllocs()
	for b.Loop() {
		newBody, n := transcribeBody("audio/webm", "", "", audio)
		// The transport copies through a 4 KiB buffer; io.Copy to a plain writer does the same.
		written, err := io.CopyBuffer(writerOnly{io.Discard}, newBody(), make([]byte, 4096))
		if err != nil || written != n {
			b.Fatalf("wrote %d of %d: %v", written, n, err)
		}
	}
}

// BenchmarkTranscribe measures a whole Transcribe call of 10 MB audio against a local server.
func BenchmarkTranscribe(b *testing.B) {
	srv := newBenchServer(b)
	c, err := New(Options{BaseURL: srv, APIKey: "k"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.CloseIdleConnections)
	audio := make([]byte, MaxAudioBytes)
	b.SetBytes(int64(len(audio)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Transcribe(b.Context(), TranscribeRequest{Audio: audio, MIMEType: "audio/webm"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeDataURI is the naive alternative: the whole data URI as one string, then JSON.
func BenchmarkEncodeDataURI(b *testing.B) {
	audio := make([]byte, MaxAudioBytes)
	b.SetBytes(int64(len(audio)))
	b.ReportAllocs()
	for b.Loop() {
		body, _ := json.Marshal(map[string]string{"audio": encodeDataURI("audio/webm", audio)})
		_, _ = io.Copy(io.Discard, bytes.NewReader(body))
	}
}

// writerOnly hides io.Discard's ReaderFrom so the copy goes through the given buffer.
type writerOnly struct{ io.Writer }
