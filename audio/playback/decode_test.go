package playback_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parley/audio/playback"
)

// The fixtures in testdata were made with sox and lame, e.g.
//   sox -n -r 24000 -c 1 t.wav synth 1 sine 440 vol 0.5 && lame -b 48 t.wav tone440-24k-mono.mp3
// (the 44.1 and 48 kHz stereo tones last 0.3 s, with --resample to keep their rate; the speech is
// espeak-ng's "Hello from Parley."; crash-53.mp3 is the input that makes go-mp3 panic, see NOTES).

// crashInput is the 53 bytes on which go-mp3 v0.3.4 panics inside NewDecoder.
const crashInput = "\xff\xf2 000000000\xd0" + "0000000000000000000000000000000000000000"

// toneRMS is the level of the fixtures' 440 Hz sine of amplitude 0.5: 20·log10(0.5/√2).
const toneRMS = -9.03

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// samples returns the first channel of S16LE PCM with the given channel count, scaled to ±1.
func samples(pcm []byte, channels int) []float64 {
	step := 2 * channels
	out := make([]float64, 0, len(pcm)/step)
	for i := 0; i+step <= len(pcm); i += step {
		out = append(out, float64(int16(uint16(pcm[i])|uint16(pcm[i+1])<<8))/32768)
	}
	return out
}

// rmsDB is the RMS level of x in dBFS.
func rmsDB(x []float64) float64 {
	var sum float64
	for _, v := range x {
		sum += v * v
	}
	return 10 * math.Log10(sum/float64(len(x))+1e-20)
}

// frequency estimates the dominant frequency of a tone from its zero crossings.
func frequency(x []float64, rate int) float64 {
	crossings := 0
	for i := 1; i < len(x); i++ {
		if (x[i-1] < 0) != (x[i] < 0) {
			crossings++
		}
	}
	return float64(crossings) / 2 / (float64(len(x)) / float64(rate))
}

// middle returns x without its first and last fifth, away from the encoder's fades and padding.
func middle(x []float64) []float64 { return x[len(x)/5 : len(x)-len(x)/5] }

func TestDecodeAll_Tones(t *testing.T) {
	tests := []struct {
		file     string
		duration time.Duration
		format   playback.Format
	}{
		{"tone440-24k-mono.mp3", time.Second, playback.OutputFormat},
		{"tone440-44k-stereo.mp3", 300 * time.Millisecond, playback.OutputFormat},
		{"tone440-48k-stereo.mp3", 300 * time.Millisecond, playback.OutputFormat},
		{"tone440-24k-mono.mp3", time.Second, playback.Format{SampleRate: 16000, Channels: 1}},
		{"tone440-44k-stereo.mp3", 300 * time.Millisecond, playback.Format{SampleRate: 24000, Channels: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			pcm, err := playback.DecodeAll(t.Context(), bytes.NewReader(readFixture(t, tt.file)), tt.format)
			if err != nil {
				t.Fatalf("DecodeAll: %v", err)
			}
			if len(pcm)%(2*tt.format.Channels) != 0 {
				t.Fatalf("got %d bytes, not whole %d-channel frames", len(pcm), tt.format.Channels)
			}
			// MP3 adds encoder delay and padding: up to about 100 ms here.
			if got := tt.format.Duration(int64(len(pcm))); got < tt.duration || got > tt.duration+120*time.Millisecond {
				t.Errorf("decoded %v of audio, want %v (plus MP3 padding)", got, tt.duration)
			}
			x := middle(samples(pcm, tt.format.Channels))
			if got := rmsDB(x); math.Abs(got-toneRMS) > 1 {
				t.Errorf("level %.2f dBFS, want %.2f ± 1", got, toneRMS)
			}
			if got := frequency(x, tt.format.SampleRate); math.Abs(got-440) > 5 {
				t.Errorf("frequency %.1f Hz, want 440", got)
			}
		})
	}
}

func TestDecodeAll_Speech(t *testing.T) {
	pcm, err := playback.DecodeAll(t.Context(), bytes.NewReader(readFixture(t, "speech-22k-mono.mp3")), playback.OutputFormat)
	if err != nil {
		t.Fatalf("DecodeAll: %v", err)
	}
	if d := playback.OutputFormat.Duration(int64(len(pcm))); d < 500*time.Millisecond {
		t.Errorf("decoded only %v of espeak speech", d)
	}
	if got := rmsDB(samples(pcm, 2)); got < -40 {
		t.Errorf("speech decoded at %.1f dBFS: silent", got)
	}
}

func TestDecodeAll_Malformed(t *testing.T) {
	tone := readFixture(t, "tone440-24k-mono.mp3")
	id3Huge := append([]byte("ID3\x03\x00\x00\x7f\x7f\x7f\x7f"), tone[:100]...)
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"crash input from NOTES", []byte(crashInput), playback.ErrMalformed},
		{"empty", nil, playback.ErrEmpty},
		{"one byte", []byte{0xff}, playback.ErrEmpty},
		{"text", []byte(strings.Repeat("this is not an mp3 file\n", 50)), playback.ErrEmpty},
		{"zeros", make([]byte, 4096), playback.ErrEmpty},
		{"ID3 tag only", []byte("ID3\x03\x00\x00\x00\x00\x00\x05abcde"), playback.ErrEmpty},
		{"ID3 tag cut short", id3Huge, playback.ErrEmpty},
		{"ID3 size not syncsafe", []byte("ID3\x03\x00\x00\xff\xff\xff\xff"), playback.ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pcm, err := playback.DecodeAll(t.Context(), bytes.NewReader(tt.data), playback.OutputFormat)
			if !errors.Is(err, tt.want) {
				t.Fatalf("DecodeAll = %d bytes, %v; want error %v", len(pcm), err, tt.want)
			}
		})
	}
}

func TestDecodeAll_Recoverable(t *testing.T) {
	tone := readFixture(t, "tone440-24k-mono.mp3")
	tests := []struct {
		name    string
		data    []byte
		minimum time.Duration
	}{
		{"ID3v2 tag before the audio", append([]byte("ID3\x04\x00\x00\x00\x00\x01\x00"+strings.Repeat("\x00", 128)), tone...), 900 * time.Millisecond},
		{"truncated", tone[:len(tone)/2], 400 * time.Millisecond},
		{"garbage after the audio", append(append([]byte{}, tone...), []byte(crashInput)...), 900 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := playback.NewStream(t.Context(), bytes.NewReader(tt.data), playback.OutputFormat)
			defer s.Close()
			pcm, _ := io.ReadAll(s) // an error at the end is allowed; the audio before it must come out
			if got := playback.OutputFormat.Duration(int64(len(pcm))); got < tt.minimum {
				t.Errorf("decoded %v, want at least %v", got, tt.minimum)
			}
		})
	}
}

func TestStream_TooLong(t *testing.T) {
	playback.SetMaxDurationForTest(t, 200*time.Millisecond)
	_, err := playback.DecodeAll(t.Context(), bytes.NewReader(readFixture(t, "tone440-24k-mono.mp3")), playback.OutputFormat)
	if !errors.Is(err, playback.ErrTooLong) {
		t.Fatalf("DecodeAll of 1 s with a 200 ms cap: err = %v, want ErrTooLong", err)
	}
}

func TestStream_CloseStopsDecoding(t *testing.T) {
	// A Stream whose reader never reads must still let Close return: decoding is bounded and
	// the goroutine exits on cancel.
	tone := readFixture(t, "tone440-24k-mono.mp3")
	long := bytes.Repeat(tone, 20)
	s := playback.NewStream(t.Context(), bytes.NewReader(long), playback.OutputFormat)
	buf := make([]byte, 10)
	if _, err := io.ReadFull(s, buf); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := io.ReadAll(s); err == nil {
		t.Error("Read after Close returned the whole clip and no error, want decoding stopped")
	}
}

func TestOpenDataURI(t *testing.T) {
	tone := readFixture(t, "tiny-22k-mono.mp3")
	b64 := base64.StdEncoding.EncodeToString(tone)
	tests := []struct {
		name    string
		uri     string
		wantErr error
	}{
		{"as the service sends it", "data:audio/mpeg;base64," + b64, nil},
		{"upper-case scheme, surrounding space", "  DATA:audio/mpeg;BASE64," + b64 + "\n", nil},
		{"no media type", "data:;base64," + b64, nil},
		{"other audio type", "data:audio/mp3;base64," + b64, nil},
		{"line breaks in the data", "data:audio/mpeg;base64," + b64[:40] + "\r\n" + b64[40:], nil},
		{"no padding", "data:audio/mpeg;base64," + strings.TrimRight(base64.StdEncoding.EncodeToString(tone[:len(tone)-1]), "="), nil},
		{"not a data URI", b64, playback.ErrDataURI},
		{"no comma", "data:audio/mpeg;base64", playback.ErrDataURI},
		{"not base64", "data:audio/mpeg," + b64, playback.ErrDataURI},
		{"not audio", "data:text/plain;base64," + b64, playback.ErrDataURI},
		{"no data", "data:audio/mpeg;base64,", playback.ErrDataURI},
		{"empty", "", playback.ErrDataURI},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := playback.OpenDataURI(tt.uri)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("OpenDataURI: err = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if _, err := playback.DecodeAll(t.Context(), r, playback.OutputFormat); err != nil {
				t.Errorf("decoding the data URI's MP3: %v", err)
			}
		})
	}
}

func TestOpenDataURI_CorruptBase64IsAnError(t *testing.T) {
	r, err := playback.OpenDataURI("data:audio/mpeg;base64,!!!!not*base64")
	if err != nil {
		t.Fatalf("OpenDataURI: %v (corrupt data is reported while reading)", err)
	}
	if _, err := playback.DecodeAll(t.Context(), r, playback.OutputFormat); err == nil {
		t.Fatal("decoding corrupt base64 succeeded, want an error")
	}
}

// FuzzDecode feeds arbitrary bytes through the MP3 path: it must end in PCM or an error, never a
// panic or a hang.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(crashInput))
	f.Add(readFixture(f, "tiny-22k-mono.mp3"))
	f.Add(readFixture(f, "tone440-44k-stereo.mp3")[:1000])
	f.Add([]byte("ID3\x03\x00\x00\x00\x00\x00\x05abcde\xff\xfb"))
	f.Fuzz(func(t *testing.T, data []byte) {
		pcm, err := playback.DecodeAll(t.Context(), bytes.NewReader(data), playback.OutputFormat)
		if err == nil && len(pcm) == 0 {
			t.Fatal("no error and no audio")
		}
		if len(pcm)%4 != 0 {
			t.Fatalf("%d bytes of PCM: not whole stereo frames", len(pcm))
		}
		if err != nil && !errors.Is(err, playback.ErrMalformed) && !errors.Is(err, playback.ErrEmpty) && !errors.Is(err, playback.ErrTooLong) {
			t.Fatalf("unexpected kind of error: %v", err)
		}
	})
}

// FuzzDataURI feeds arbitrary strings to the data URI path and the decoder behind it.
func FuzzDataURI(f *testing.F) {
	f.Add("data:audio/mpeg;base64," + base64.StdEncoding.EncodeToString(readFixture(f, "tiny-22k-mono.mp3")))
	f.Add("data:audio/mpeg;base64," + base64.StdEncoding.EncodeToString([]byte(crashInput)))
	f.Add("data:;base64,AAAA")
	f.Add("data:audio/mpeg,abc")
	f.Fuzz(func(t *testing.T, uri string) {
		r, err := playback.OpenDataURI(uri)
		if err != nil {
			if !errors.Is(err, playback.ErrDataURI) {
				t.Fatalf("OpenDataURI error %v does not wrap ErrDataURI", err)
			}
			return
		}
		pcm, err := playback.DecodeAll(t.Context(), r, playback.OutputFormat)
		if err == nil && len(pcm) == 0 {
			t.Fatal("no error and no audio")
		}
		if err != nil && !errors.Is(err, playback.ErrMalformed) && !errors.Is(err, playback.ErrEmpty) && !errors.Is(err, playback.ErrTooLong) {
			t.Fatalf("unexpected kind of error: %v", err)
		}
	})
}
