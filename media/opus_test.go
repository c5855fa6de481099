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
		// Each block is written as soon as its DefaultFramesPerBlock frames are encoded.
		if want := (i + chunk) / 320 / DefaultFramesPerBlock; cw.writes-1 != want {
			t.Fatalf("after %d samples %d blocks written, want %d", i+chunk, cw.writes-1, want)
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
// mkvtoolnix (extracts the track to Ogg, read back by our Ogg decoder and by opusdec) and
// ffprobe/ffmpeg, for unlaced blocks and for each lacing the encoder writes.
func TestWebMOpus_OutsideToolAccepts(t *testing.T) {
	silent := sine(16000, 440, 0.3, 1234*time.Millisecond)
	clear(silent.Samples[4000:12000]) // frames of equal size: fixed-size lacing
	for _, tc := range []struct {
		name string
		in   PCM
		fpb  int
	}{
		{"default", sine(16000, 440, 0.3, 1234*time.Millisecond), 0},
		{"unlaced", sine(16000, 440, 0.3, 1234*time.Millisecond), 1},
		{"3 with silence", silent, 3},
		{"4 partial", sine(16000, 440, 0.3, 1311*time.Millisecond), 4},
	} {
		t.Run(tc.name, func(t *testing.T) { checkOutsideTools(t, tc.in, encodeWebMBlocks(t, tc.in, tc.fpb)) })
	}
}

func checkOutsideTools(t *testing.T, in PCM, webm []byte) {
	// mkvtoolnix and opus-tools are test packages (make test installs them); ffmpeg is an extra
	// check where it happens to be installed.
	testenv.RequireCommands(t, "mkvextract", "opusdec")
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
	if _, err := exec.LookPath("ffmpeg"); err == nil {
		// ffmpeg decodes at 48 kHz: compare there, to within one 16 kHz sample.
		out, err := exec.Command("ffmpeg", "-v", "error", "-i", path, "-f", "s16le", "-ac", "1", "-ar", "48000", "-").Output()
		if err != nil {
			t.Fatalf("ffmpeg refused our WebM: %v", err)
		}
		if got, want := len(out)/2, in.Frames()*3; got < want-3 || got > want+3 {
			t.Errorf("ffmpeg decoded %d samples at 48 kHz, want %d", got, want)
		}
	}
	if !ran {
		t.Fatal("no outside tool checked the WebM")
	}
}

// encodeWebMBlocks encodes 16 kHz mono p with framesPerBlock frames to a block.
func encodeWebMBlocks(t *testing.T, p PCM, framesPerBlock int) []byte {
	t.Helper()
	var b bytes.Buffer
	e, err := NewWebMOpusEncoderBlocks(&b, p.Rate, p.Channels, 0, framesPerBlock)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Write(p.Samples); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestWebMOpusEncoder_LacesFramesIntoBlocks checks the layout: full blocks of FramesPerBlock
// frames with the right timecodes across Clusters, a partial block at the end and the padded
// last frame alone in the block that carries DiscardPadding.
func TestWebMOpusEncoder_LacesFramesIntoBlocks(t *testing.T) {
	// 12.01 s: three Clusters; silence in the middle gives frames of equal size.
	in := sine(16000, 440, 0.3, 12010*time.Millisecond)
	clear(in.Samples[5*16000 : 7*16000])
	for _, fpb := range []int{1, 2, 3, 4, 7} {
		webm := encodeWebMBlocks(t, in, fpb)
		_, blocks, err := parseWebM(webm)
		if err != nil {
			t.Fatal(err)
		}
		frame, lacings := 0, map[byte]int{}
		for i, b := range blocks {
			frames, err := unlace(b.payload, b.lacing)
			if err != nil {
				t.Fatalf("fpb %d block %d: %v", fpb, i, err)
			}
			if b.timeMs != int64(frame*20) {
				t.Fatalf("fpb %d block %d at %d ms, its first frame starts at %d ms", fpb, i, b.timeMs, frame*20)
			}
			last := i == len(blocks)-1
			switch {
			case last && (len(frames) != 1 || b.discardNs <= 0):
				t.Errorf("fpb %d: last block has %d frames, DiscardPadding %d ns", fpb, len(frames), b.discardNs)
			case !last && b.discardNs != 0:
				t.Errorf("fpb %d block %d: DiscardPadding before the end", fpb, i)
			case i < len(blocks)-2 && len(frames) != fpb:
				t.Errorf("fpb %d block %d: %d frames", fpb, i, len(frames))
			case len(frames) == 1 && b.lacing != 0:
				t.Errorf("fpb %d block %d: one frame, laced %x", fpb, i, b.lacing)
			}
			lacings[b.lacing]++
			frame += len(frames)
		}
		// 12.01 s is 600.5 frames: 601 with the partial one, whose padding (160 samples)
		// covers the codec delay (104).
		if frame != 601 {
			t.Errorf("fpb %d: %d frames, want 601", fpb, frame)
		}
		if fpb > 1 && (lacings[0x02] == 0 || lacings[0x04] == 0) {
			t.Errorf("fpb %d: lacings used %v, want Xiph (2) and fixed (4)", fpb, lacings)
		}
		if n := bytes.Count(webm, []byte{0x1F, 0x43, 0xB6, 0x75}); n != 3 {
			t.Errorf("fpb %d: %d Clusters, want 3", fpb, n)
		}
		got, err := DecodeWebMOpus(webm)
		if err != nil {
			t.Fatal(err)
		}
		if got.Frames() != in.Frames() {
			t.Errorf("fpb %d: decoded %d samples, want %d", fpb, got.Frames(), in.Frames())
		}
	}
}

func TestWebMOpus_ExactLengthForEveryBlockSize(t *testing.T) {
	for _, fpb := range []int{1, 2, 3, 4} {
		// Lengths that leave 0 to 3 frames waiting at Close, with and without a partial frame.
		for _, n := range []int{0, 1, 215, 216, 217, 320, 639, 640, 641, 960, 1000, 1280, 1300, 1600, 1700, 3200} {
			in := PCM{Rate: 16000, Channels: 1, Samples: make([]int16, n)}
			got, err := DecodeWebMOpus(encodeWebMBlocks(t, in, fpb))
			if err != nil {
				t.Fatal(err)
			}
			if got.Frames() != n {
				t.Errorf("fpb %d: %d samples in, %d out", fpb, n, got.Frames())
			}
		}
	}
}

func TestNewWebMOpusEncoderBlocks_RefusesBadBlockSizes(t *testing.T) {
	for _, fpb := range []int{-1, 51, 256} {
		if _, err := NewWebMOpusEncoderBlocks(&bytes.Buffer{}, 16000, 1, 0, fpb); err == nil {
			t.Errorf("%d frames per block accepted", fpb)
		}
	}
}

// TestWebMOpusEncoder_AppendPending: what is written so far plus AppendPending decodes to every
// frame encoded so far, at any point of a stream (the cluster boundary too), and leaves the
// stream as it was: the finished file is the same as without the snapshots.
func TestWebMOpusEncoder_AppendPending(t *testing.T) {
	in := sine(16000, 300, 0.3, 6*time.Second) // more than one 5 s cluster
	var buf, plain bytes.Buffer
	e, err := NewWebMOpusEncoder(&buf, 16000, 1, 16000)
	if err != nil {
		t.Fatal(err)
	}
	const frame = 320
	skip := -1 // the encoder's pre-skip, which decoding drops: from the first snapshot
	for i := 0; i < len(in.Samples); i += frame {
		if err := e.Write(in.Samples[i : i+frame]); err != nil {
			t.Fatal(err)
		}
		frames := i/frame + 1
		if frames%7 != 0 && frames%DefaultFramesPerBlock == 0 {
			continue // a snapshot every few frames, and wherever a block is waiting
		}
		snap := e.AppendPending(bytes.Clone(buf.Bytes()))
		p, err := DecodeWebMOpus(snap)
		if err != nil {
			t.Fatalf("after %d frames: the snapshot does not decode: %v", frames, err)
		}
		if skip < 0 {
			if skip = frame - len(p.Samples); skip < 0 || skip >= frame {
				t.Fatalf("the first frame decodes to %d samples", len(p.Samples))
			}
		}
		if want := frames*frame - skip; len(p.Samples) != want {
			t.Fatalf("after %d frames: the snapshot holds %d samples, want %d (all encoded so far)", frames, len(p.Samples), want)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e2, _ := NewWebMOpusEncoder(&plain, 16000, 1, 16000)
	_ = e2.Write(in.Samples)
	_ = e2.Close()
	if !bytes.Equal(buf.Bytes(), plain.Bytes()) {
		t.Errorf("with snapshots the file is %d bytes, without %d: AppendPending changed the stream", buf.Len(), plain.Len())
	}
}
