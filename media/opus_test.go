package media

import (
	"bytes"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"parley/internal/testenv"
)

// speechText is long enough (about 7 s of espeak speech) for a bytes-per-second figure.
const speechText = "What is the weather like in Paris today? " +
	"Remind me to call the dentist tomorrow morning at nine. " +
	"Parley, read me the last message from Anna."

// espeak returns speech from espeak-ng as PCM (22050 Hz mono), skipping without it outside CI.
func espeak(t testing.TB, text string) PCM {
	t.Helper()
	testenv.RequireCommands(t, "espeak-ng")
	path := filepath.Join(t.TempDir(), "speech.wav")
	if out, err := exec.Command("espeak-ng", "-v", "en-us", "-w", path, text).CombinedOutput(); err != nil {
		t.Fatalf("espeak-ng: %v: %s", err, out)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ReadWAV(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("reading espeak-ng's WAV: %v", err)
	}
	return p
}

// envelope returns the RMS of each 20 ms window of mono audio.
func envelope(p PCM) []float64 {
	p = Mono(p)
	w := p.Rate / 50
	var env []float64
	for i := 0; i+w <= len(p.Samples); i += w {
		env = append(env, rms(p.Samples[i:i+w], 0))
	}
	return env
}

// correlation returns Pearson's r over the common length of a and b.
func correlation(a, b []float64) float64 {
	n := min(len(a), len(b))
	var ma, mb float64
	for i := range n {
		ma += a[i]
		mb += b[i]
	}
	ma /= float64(n)
	mb /= float64(n)
	var sab, saa, sbb float64
	for i := range n {
		sab += (a[i] - ma) * (b[i] - mb)
		saa += (a[i] - ma) * (a[i] - ma)
		sbb += (b[i] - mb) * (b[i] - mb)
	}
	return sab / math.Sqrt(saa*sbb)
}

func TestWebMOpus_SpeechRoundTrip(t *testing.T) {
	speech := To16kMono(espeak(t, speechText))
	webm, err := EncodeWebMOpus(speech, 16000)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeWebMOpus(webm)
	if err != nil {
		t.Fatalf("DecodeWebMOpus: %v", err)
	}
	if got.Rate != 16000 || got.Channels != 1 {
		t.Fatalf("decoded %d Hz %d ch, want 16000 Hz mono", got.Rate, got.Channels)
	}
	if d := got.Duration() - speech.Duration(); d < -40*time.Millisecond || d > 40*time.Millisecond {
		t.Errorf("decoded %v of audio, encoded %v", got.Duration(), speech.Duration())
	}
	r := correlation(envelope(speech), envelope(got))
	if r < 0.9 {
		t.Errorf("energy envelope correlation %.3f, want > 0.9", r)
	}
	t.Logf("energy envelope correlation %.3f", r)
	secs := speech.Duration().Seconds()
	perSec := float64(len(webm)) / secs
	b64 := perSec * 4 / 3
	t.Logf("%.1f s of speech: WebM/Opus 16 kbit/s %d bytes, %.0f B/s, %.0f B/s as base64", secs, len(webm), perSec, b64)
	if b64 > 3000 {
		t.Errorf("%.0f B/s of speech after base64, want <= 3000", b64)
	}
}

func TestWebMOpus_EncodesAtOtherRatesAndStereo(t *testing.T) {
	tests := []struct {
		name     string
		in       PCM
		channels int
	}{
		{"44.1k mono resampled to 48k", sine(44100, 440, 0.5, 500*time.Millisecond), 1},
		{"11.025k mono resampled to 16k", sine(11025, 440, 0.5, 500*time.Millisecond), 1},
		{"48k stereo", testTone(48000, 2, 500*time.Millisecond), 2},
		{"8k mono", sine(8000, 440, 0.5, 500*time.Millisecond), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			webm, err := EncodeWebMOpus(tt.in, 0)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Decode(webm)
			if err != nil {
				t.Fatal(err)
			}
			if got.Channels != tt.channels || got.Rate != 16000 {
				t.Fatalf("decoded %d Hz %d ch", got.Rate, got.Channels)
			}
			if d := got.Duration() - tt.in.Duration(); d < -2*time.Millisecond || d > 2*time.Millisecond {
				t.Errorf("decoded %v, encoded %v", got.Duration(), tt.in.Duration())
			}
			inR, outR := rms(Mono(Resample(tt.in, 16000)).Samples, 1600), rms(Mono(got).Samples, 1600)
			if db := 20 * math.Log10(outR/inR); math.Abs(db) > 3 {
				t.Errorf("level changed by %.1f dB", db)
			}
		})
	}
}

// countingWriter records how many bytes arrived, and when.
type countingWriter struct {
	n      int
	writes int
}

func (w *countingWriter) Write(b []byte) (int, error) {
	w.n += len(b)
	w.writes++
	return len(b), nil
}

func TestWebMOpusEncoder_StreamsAsItGoes(t *testing.T) {
	in := sine(16000, 300, 0.3, 2*time.Second)
	var cw countingWriter
	e, err := NewWebMOpusEncoder(&cw, 16000, 1, 16000)
	if err != nil {
		t.Fatal(err)
	}
	header := cw.n
	if header == 0 {
		t.Fatal("no header written before the first sample")
	}
	// Odd chunk sizes, as a capture callback delivers them.
	var whole bytes.Buffer
	for i, chunk := 0, 0; i < len(in.Samples); i += chunk {
		chunk = min(137+i%251, len(in.Samples)-i)
		if err := e.Write(in.Samples[i : i+chunk]); err != nil {
			t.Fatal(err)
		}
		if want := (i + chunk) / 320; cw.writes-1 != want {
			t.Fatalf("after %d samples %d frames written, want %d", i+chunk, cw.writes-1, want)
		}
	}
	if got := e.Duration(); got != 2*time.Second {
		t.Errorf("Duration = %v, want 2s", got)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	// The same audio in one piece gives the same file.
	e2, _ := NewWebMOpusEncoder(&whole, 16000, 1, 16000)
	_ = e2.Write(in.Samples)
	_ = e2.Close()
	if whole.Len() != cw.n {
		t.Errorf("chunked write gave %d bytes, whole write %d", cw.n, whole.Len())
	}
	if err := e.Write(in.Samples[:10]); err == nil {
		t.Error("Write after Close succeeded")
	}
}

func TestNewWebMOpusEncoder_RefusesBadSettings(t *testing.T) {
	for _, c := range []struct{ rate, ch int }{{44100, 1}, {16000, 0}, {16000, 3}, {0, 1}} {
		if _, err := NewWebMOpusEncoder(&bytes.Buffer{}, c.rate, c.ch, 0); err == nil {
			t.Errorf("rate %d channels %d accepted", c.rate, c.ch)
		}
	}
}

// failingWriter fails every write after the first ok ones.
type failingWriter struct{ ok int }

func (w *failingWriter) Write(b []byte) (int, error) {
	if w.ok == 0 {
		return 0, errors.New("disk full")
	}
	w.ok--
	return len(b), nil
}

func TestWebMOpusEncoder_ReportsWriteErrors(t *testing.T) {
	e, err := NewWebMOpusEncoder(&failingWriter{ok: 1}, 16000, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Write(make([]int16, 16000)); err == nil {
		t.Fatal("Write hid the writer's error")
	}
	if err := e.Close(); err == nil {
		t.Fatal("Close hid the writer's error")
	}
}

func TestWebMOpus_ExactLengthForEveryPadding(t *testing.T) {
	for _, n := range []int{0, 1, 100, 104, 105, 319, 320, 321, 640, 1000} {
		in := sine(16000, 440, 0.3, 0)
		in.Samples = make([]int16, n)
		webm, err := EncodeWebMOpus(in, 0)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeWebMOpus(webm)
		if err != nil {
			t.Fatal(err)
		}
		if got.Frames() != n {
			t.Errorf("%d samples in, %d out", n, got.Frames())
		}
	}
}

// TestWebMOpus_OutsideToolAccepts checks our WebM with whichever outside tools are installed:
// mkvtoolnix (extracts the track to Ogg, read back by our Ogg decoder and by opusdec) and ffprobe.
func TestWebMOpus_OutsideToolAccepts(t *testing.T) {
	in := sine(16000, 440, 0.3, 1234*time.Millisecond)
	webm, err := EncodeWebMOpus(in, 0)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "x.webm")
	if err := os.WriteFile(path, webm, 0o600); err != nil {
		t.Fatal(err)
	}
	ran := false
	if _, err := exec.LookPath("mkvextract"); err == nil {
		ran = true
		ogg := filepath.Join(dir, "x.opus")
		if out, err := exec.Command("mkvextract", path, "tracks", "0:"+ogg).CombinedOutput(); err != nil {
			t.Fatalf("mkvextract refused our WebM: %v: %s", err, out)
		}
		b, err := os.ReadFile(ogg)
		if err != nil {
			t.Fatal(err)
		}
		p, err := DecodeOggOpus(b)
		if err != nil {
			t.Fatalf("our Ogg decoder on mkvextract's Ogg: %v", err)
		}
		if p.Frames() != in.Frames() {
			t.Errorf("mkvextract's Ogg decodes to %d frames, want %d", p.Frames(), in.Frames())
		}
		if _, err := exec.LookPath("opusdec"); err == nil {
			wav := filepath.Join(dir, "x.wav")
			if out, err := exec.Command("opusdec", "--quiet", "--rate", "16000", ogg, wav).CombinedOutput(); err != nil {
				t.Fatalf("opusdec: %v: %s", err, out)
			}
			b, _ := os.ReadFile(wav)
			p, err := ReadWAV(bytes.NewReader(b))
			if err != nil || p.Frames() != in.Frames() {
				t.Errorf("opusdec gave %d frames (%v), want %d", p.Frames(), err, in.Frames())
			}
		}
	}
	if _, err := exec.LookPath("ffprobe"); err == nil {
		ran = true
		out, err := exec.Command("ffprobe", "-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", path).CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("opus")) {
			t.Fatalf("ffprobe refused our WebM: %v: %s", err, out)
		}
	}
	if !ran {
		t.Skip("neither mkvtoolnix nor ffprobe is installed")
	}
}
