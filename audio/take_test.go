package audio_test

import (
	"bytes"
	"os"
	"sync"
	"testing"
	"time"

	"parley/audio"
	"parley/audio/vad"
	"parley/audio/vad/vadtest"
	"parley/media"
)

// corpus builds the voice detection corpus once per test binary run.
func corpus(t testing.TB) []vadtest.Case {
	t.Helper()
	corpusMu.Lock()
	defer corpusMu.Unlock()
	if corpusCases == nil {
		dir, err := os.MkdirTemp("", "parley-corpus-")
		if err != nil {
			t.Fatal(err)
		}
		corpusDir = dir
		corpusCases = vadtest.BuildIn(t, dir)
	}
	return corpusCases
}

var (
	corpusMu    sync.Mutex
	corpusDir   string
	corpusCases []vadtest.Case
)

func TestProcess_VADTakes(t *testing.T) {
	const tail = 300 * time.Millisecond
	preroll := vad.DefaultPreRoll
	for _, c := range corpus(t) {
		t.Run(c.Name, func(t *testing.T) {
			take, err := audio.Process(t.Context(), c.PCM, audio.TakeOptions{VAD: true})
			if err != nil {
				t.Fatal(err)
			}
			if !c.Speech {
				if take.Speech || len(take.PCM.Samples) != 0 || take.Reason != audio.StopEndOfInput {
					t.Errorf("no speech in the input, got a take of %v with Speech=%v ended by %v", take.Duration, take.Speech, take.Reason)
				}
				return
			}
			if !take.Speech || take.Reason != audio.StopEndOfSpeech {
				t.Fatalf("Speech=%v reason %v, want a take ended by the end of speech", take.Speech, take.Reason)
			}
			start := take.Skipped + take.SpeechStart
			end := take.Skipped + take.SpeechEnd
			t.Logf("speech %v–%v found at %v–%v; take %v–%v", c.Start, c.End, start, end, take.Skipped, take.Skipped+take.Duration)
			if !near(start, c.Start, 120*time.Millisecond) {
				t.Errorf("speech found from %v, true start %v", start, c.Start)
			}
			// The take begins a pre-roll before the speech found (or at the start of the input).
			if want := max(start-preroll, 0); !near(take.Skipped, want, 20*time.Millisecond) {
				t.Errorf("take begins at %v, want %v (pre-roll of %v)", take.Skipped, want, preroll)
			}
			if take.Skipped > c.Start {
				t.Errorf("take begins at %v, after the speech at %v: the first syllable is clipped", take.Skipped, c.Start)
			}
			// Its audio ends 300 ms after the last speech found, and never before the true end.
			if takeEnd := take.Skipped + take.Duration; !near(takeEnd, end+tail, 20*time.Millisecond) || takeEnd < c.End {
				t.Errorf("take ends at %v; speech found until %v (true %v)", takeEnd, end, c.End)
			}
			if !bytes.Equal(int16Bytes(take.PCM.Samples), int16Bytes(c.PCM.Samples[len16k(take.Skipped):len16k(take.Skipped)+len(take.PCM.Samples)])) {
				t.Error("the take's PCM is not the input's audio at its offset")
			}
		})
	}
}

func len16k(d time.Duration) int { return int(d * 16000 / time.Second) }

func int16Bytes(s []int16) []byte {
	b := make([]byte, 2*len(s))
	for i, v := range s {
		b[2*i], b[2*i+1] = byte(v), byte(uint16(v)>>8)
	}
	return b
}

// speechCase returns the clean single-utterance case of the corpus.
func speechCase(t testing.TB, name string) vadtest.Case {
	t.Helper()
	for _, c := range corpus(t) {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no corpus case %q", name)
	return vadtest.Case{}
}

func TestProcess_WholeTakeWithoutVAD(t *testing.T) {
	c := speechCase(t, "pause350ms/snr20")
	take, err := audio.Process(t.Context(), c.PCM, audio.TakeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if take.Reason != audio.StopEndOfInput || take.Skipped != 0 || len(take.PCM.Samples) != len(c.PCM.Samples) {
		t.Errorf("take %v ended by %v, skipped %v; want the whole %v", take.Duration, take.Reason, take.Skipped, c.PCM.Duration())
	}
	if !take.Speech || !near(take.SpeechStart, c.Start, 120*time.Millisecond) || !near(take.SpeechEnd, c.End, 250*time.Millisecond) {
		t.Errorf("speech %v–%v (Speech=%v), true %v–%v", take.SpeechStart, take.SpeechEnd, take.Speech, c.Start, c.End)
	}
	dec, err := media.Decode(take.Audio)
	if err != nil {
		t.Fatal(err)
	}
	if !near(dec.Duration(), c.PCM.Duration(), 25*time.Millisecond) {
		t.Errorf("decoded %v of %v", dec.Duration(), c.PCM.Duration())
	}
}

func TestProcess_SizeLimit(t *testing.T) {
	c := speechCase(t, "pause400ms/snr30")
	for _, tt := range []struct {
		enc audio.Encoding
		max int64
	}{
		{audio.EncodingWebMOpus, 4096}, {audio.EncodingWebMOpus, 6000}, {audio.EncodingWAV, 20000}, {audio.EncodingWAV, 20001},
	} {
		take, err := audio.Process(t.Context(), c.PCM, audio.TakeOptions{MaxBytes: tt.max, Encoding: tt.enc})
		if err != nil {
			t.Fatalf("%v %d: %v", tt.enc, tt.max, err)
		}
		if take.Reason != audio.StopSizeLimit || int64(len(take.Audio)) > tt.max || int64(len(take.Audio)) < tt.max*3/4 {
			t.Errorf("%v limit %d: %d bytes, reason %v; want the limit reached and kept", tt.enc, tt.max, len(take.Audio), take.Reason)
		}
		dec, err := media.Decode(take.Audio)
		if err != nil {
			t.Fatalf("%v limit %d: %v", tt.enc, tt.max, err)
		}
		if !near(dec.Duration(), take.Duration, 25*time.Millisecond) {
			t.Errorf("%v: decoded %v, take %v", tt.enc, dec.Duration(), take.Duration)
		}
	}
}

func TestProcess_DefaultLimitIsUploadLimit(t *testing.T) {
	// Ten minutes of WAV is 19.2 MB: the take stops at the service's limit.
	p := media.PCM{Rate: 16000, Channels: 1, Samples: make([]int16, 10*60*16000)}
	take, err := audio.Process(t.Context(), p, audio.TakeOptions{Encoding: audio.EncodingWAV})
	if err != nil {
		t.Fatal(err)
	}
	if take.Reason != audio.StopSizeLimit || len(take.Audio) > audio.UploadLimit || len(take.Audio) < audio.UploadLimit-1000 {
		t.Errorf("%d bytes, reason %v; want just under %d", len(take.Audio), take.Reason, audio.UploadLimit)
	}
}

func TestProcess_Levels(t *testing.T) {
	c := speechCase(t, "lead1s/clean")
	levels := make(chan audio.Level, 1000)
	take, err := audio.Process(t.Context(), c.PCM, audio.TakeOptions{Levels: levels})
	if err != nil {
		t.Fatal(err)
	}
	close(levels)
	var n int
	loudest := audio.Level{RMS: -200}
	var last time.Duration
	for l := range levels {
		n++
		if l.At <= last || l.Peak < l.RMS {
			t.Errorf("reading %+v after %v", l, last)
		}
		last = l.At
		if l.RMS > loudest.RMS {
			loudest = l
		}
	}
	if perSec := float64(n) / take.Duration.Seconds(); perSec > 30 || perSec < 20 {
		t.Errorf("%.1f readings a second, want at most 30", perSec)
	}
	if loudest.RMS < -30 || loudest.At < c.Start || loudest.At > c.End+50*time.Millisecond {
		t.Errorf("loudest reading %+v, want speech level within %v–%v", loudest, c.Start, c.End)
	}
}

func TestProcess_BadOptions(t *testing.T) {
	p := media.PCM{Rate: 16000, Channels: 1, Samples: make([]int16, 16000)}
	if _, err := audio.Process(t.Context(), p, audio.TakeOptions{MaxBytes: 100}); err == nil {
		t.Error("a 100-byte limit was accepted")
	}
	if _, err := audio.Process(t.Context(), p, audio.TakeOptions{Encoding: 7}); err == nil {
		t.Error("an unknown encoding was accepted")
	}
}
