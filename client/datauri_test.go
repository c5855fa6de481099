package client

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

func TestParseDataURI(t *testing.T) {
	data := []byte("hello, audio\x00\xff")
	b64 := base64.StdEncoding.EncodeToString(data)
	tests := []struct {
		name, in, mime string
		want           []byte
		bad            bool
	}{
		{"data URI", "data:audio/webm;base64," + b64, "audio/webm", data, false},
		{"parameters", "data:audio/webm;codecs=opus;base64," + b64, "audio/webm", data, false},
		{"upper-case scheme", "DATA:audio/mpeg;BASE64," + b64, "audio/mpeg", data, false},
		{"plain base64", b64, "", data, false},
		{"unpadded", strings.TrimRight(b64, "="), "", data, false},
		{"url-safe", base64.URLEncoding.EncodeToString(data), "", data, false},
		{"wrapped lines", b64[:8] + "\r\n" + b64[8:], "", data, false},
		{"surrounding space", "  " + b64 + "\n", "", data, false},
		{"empty", "", "", []byte{}, false},
		{"percent-encoded data URI", "data:text/plain,hello%20world", "text/plain", []byte("hello world"), false},
		{"no media type", "data:;base64," + b64, "text/plain", data, false},
		{"no comma", "data:audio/mpeg;base64", "", nil, true},
		{"not base64", "data:audio/mpeg;base64,***", "", nil, true},
		{"bad padding", "QUJD=A==", "", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mime, got, err := parseAudioDataURI(tt.in)
			if tt.bad {
				if err == nil {
					t.Fatalf("parseAudioDataURI(%q) accepted it", tt.in)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseDataURI: %v", err)
			}
			if mime != tt.mime || !bytes.Equal(got, tt.want) {
				t.Errorf("got (%q, %q), want (%q, %q)", mime, got, tt.mime, tt.want)
			}
		})
	}
}

// The size is checked from the base64 length before decoding, and exactly after.
func TestParseDataURI_Limit(t *testing.T) {
	at := base64.StdEncoding.EncodeToString(make([]byte, MaxAudioBytes))
	over := base64.StdEncoding.EncodeToString(make([]byte, MaxAudioBytes+1))
	if _, data, err := parseAudioDataURI("data:audio/wav;base64," + at); err != nil || len(data) != MaxAudioBytes {
		t.Errorf("at the limit: %d bytes, %v", len(data), err)
	}
	_, _, err := parseAudioDataURI("data:audio/wav;base64," + over)
	if !errors.Is(err, ErrAudioTooLarge) || !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "10,000,000") {
		t.Errorf("over the limit: err = %v, want ErrAudioTooLarge naming the limit", err)
	}
	for _, tt := range []struct {
		in   string
		max  int
		fail bool
	}{
		{base64.StdEncoding.EncodeToString(make([]byte, 10)), 10, false},
		{base64.StdEncoding.EncodeToString(make([]byte, 11)), 10, true},
		{base64.RawStdEncoding.EncodeToString(make([]byte, 11)), 10, true},
		{"data:text/plain," + strings.Repeat("a", 11), 10, true},
		{base64.StdEncoding.EncodeToString(make([]byte, 1000)), 0, false},
	} {
		_, _, err := parseDataURILimit(tt.in, tt.max)
		if got := errors.Is(err, ErrTooLarge); got != tt.fail {
			t.Errorf("parseDataURILimit(%d chars, %d): err = %v, want too large = %v", len(tt.in), tt.max, err, tt.fail)
		}
		if errors.Is(err, ErrAudioTooLarge) {
			t.Errorf("a general limit matched ErrAudioTooLarge")
		}
	}
}

func TestEncodeDataURI(t *testing.T) {
	if got := encodeDataURI("audio/mpeg", []byte("abc")); got != "data:audio/mpeg;base64,YWJj" {
		t.Errorf("encodeDataURI = %q", got)
	}
	if got := encodeDataURI("", []byte("abc")); got != "YWJj" {
		t.Errorf("encodeDataURI without type = %q", got)
	}
}

func FuzzParseDataURI(f *testing.F) {
	for _, s := range []string{
		"data:audio/webm;base64,GkXfo59ChoEBQveBAULygQRC84EIQoKEd2VibUKHgQRChYECGFOAZwEAAAAAAAAA",
		"data:audio/mpeg;base64,//uQZAAAAAAA",
		"data:text/plain,hi%20there",
		"data:,",
		"SGVsbG8=",
		"SGVsbG8",
		"SGVs\nbG8=",
		"data:audio/x;codecs=opus;base64,AA==",
		"%41%41==",
		"",
	} {
		f.Add(s, 64)
	}
	f.Fuzz(func(t *testing.T, s string, max int) {
		mime, data, err := parseDataURILimit(s, max)
		if err != nil {
			return
		}
		if max > 0 && len(data) > max {
			t.Fatalf("decoded %d bytes past the limit %d", len(data), max)
		}
		// Whatever parses survives a round trip.
		m2, d2, err := parseDataURILimit(encodeDataURI(mime, data), 0)
		if err != nil || !bytes.Equal(d2, data) || (mime != "" && m2 != mime) {
			t.Fatalf("round trip of (%q, %d bytes): (%q, %d bytes, %v)", mime, len(data), m2, len(d2), err)
		}
	})
}

func BenchmarkParseDataURI(b *testing.B) {
	uri := encodeDataURI("audio/mpeg", make([]byte, 1<<20))
	b.SetBytes(1 << 20)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := parseAudioDataURI(uri); err != nil {
			b.Fatal(err)
		}
	}
}

// encodeDataURI builds a data URI the simple way, to check the streamed transcribe body and parseDataURI against: "data:<mimeType>;base64,<data>"; an empty mimeType gives plain base64 without the prefix.
func encodeDataURI(mimeType string, data []byte) string {
	if mimeType == "" {
		return base64.StdEncoding.EncodeToString(data)
	}
	prefix := "data:" + mimeType + ";base64,"
	var b strings.Builder
	b.Grow(len(prefix) + base64.StdEncoding.EncodedLen(len(data)))
	b.WriteString(prefix)
	enc := base64.NewEncoder(base64.StdEncoding, &b)
	_, _ = enc.Write(data)
	_ = enc.Close()
	return b.String()
}

// parseDataURILimit is parseDataURI for data that is not audio.
func parseDataURILimit(s string, max int) (string, []byte, error) { return parseDataURI(s, max, false) }

// parseAudioDataURI is parseDataURI with the service's audio limit.
func parseAudioDataURI(s string) (string, []byte, error) { return parseDataURI(s, MaxAudioBytes, true) }
