package server

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"parley/engine"
	"parley/internal/testenv"
	"parley/media"
	"parley/server/speech"
)

// localSTT stands for PocketSphinx: it counts its calls and says what it heard.
type localSTT struct{ calls atomic.Int64 }

func (l *localSTT) Transcribe(context.Context, []byte, string) (speech.Transcript, error) {
	l.calls.Add(1)
	return speech.Transcript{Text: "heard by pocketsphinx", Language: "en"}, nil
}

// hearingAt is a hearing that looks for recognisers at ports only.
func hearingAt(ports ...engine.Port) *hearing {
	h := newHearing()
	h.find = func(ctx context.Context) []engine.Recogniser {
		return engine.FindRecognisers(ctx, ports, engine.DetectTimeout)
	}
	return h
}

// aTake is a second of a take as the app uploads it.
func aTake(t *testing.T) []byte {
	t.Helper()
	p := media.PCM{Rate: 16000, Channels: 1, Samples: make([]int16, 16000)}
	for i := range p.Samples {
		p.Samples[i] = int16(3000 * ((i / 20) % 2))
	}
	b, err := media.EncodeWebMOpus(p, 16000)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestHearing_UsesWhatItFinds: a Whisper server on this computer, of either shape, is found
// and hears the takes; PocketSphinx hears none of them.
func TestHearing_UsesWhatItFinds(t *testing.T) {
	for _, kind := range []testenv.WhisperKind{testenv.WhisperOpenAI, testenv.WhisperCpp} {
		srv := testenv.StartWhisper(t, kind, "What is the weather like?")
		h := hearingAt(engine.Port{Number: srv.Port, Runtime: "whisper.cpp"})
		r, ok := h.Search(t.Context())
		if !ok {
			t.Fatalf("kind %d: nothing found", kind)
		}
		local := &localSTT{}
		tr, err := h.Transcribe(t.Context(), aTake(t), "audio/webm", local)
		if err != nil || tr.Text != "What is the weather like?" || local.calls.Load() != 0 || srv.Heard.Load() != 1 {
			t.Errorf("%s: heard %+v, %v; the server heard %d, pocketsphinx %d", r.Describe(), tr, err, srv.Heard.Load(), local.calls.Load())
		}
	}
}

// TestHearing_FallsBackWhenItStops: a Whisper server that stops, or hangs, costs the person
// nothing but time: PocketSphinx hears the take, and the server is dropped until a search finds
// it again.
func TestHearing_FallsBackWhenItStops(t *testing.T) {
	srv := testenv.StartWhisper(t, testenv.WhisperOpenAI, "hello")
	h := hearingAt(engine.Port{Number: srv.Port, Runtime: "faster-whisper"})
	r, ok := h.Search(t.Context())
	if !ok {
		t.Fatal("nothing found")
	}
	// The server at that port is gone: a closed port.
	h.mu.Lock()
	gone := r
	gone.BaseURL = "http://127.0.0.1:" + strconv.Itoa(testenv.ClosedPort(t)) + "/v1"
	h.found = &foundRecogniser{r: gone, t: transcriberOf(gone)}
	h.searched = time.Now()
	h.mu.Unlock()
	local := &localSTT{}
	tr, err := h.Transcribe(t.Context(), aTake(t), "audio/webm", local)
	if err != nil || tr.Text != "heard by pocketsphinx" || local.calls.Load() != 1 {
		t.Errorf("heard %+v, %v; pocketsphinx called %d times", tr, err, local.calls.Load())
	}
	if _, ok := h.Found(); ok {
		t.Error("a server that does not answer is still used")
	}
	// The next take looks again (in the background) and finds the one that runs.
	testenv.WaitUntil(t, 10*time.Second, 20*time.Millisecond, "the search after a lost server", func() bool {
		h.current()
		_, ok := h.Found()
		return ok
	})
}

// TestHearing_NothingFound: with no server on this computer PocketSphinx hears, and the search
// ends within its bound even beside a server that never answers.
func TestHearing_NothingFound(t *testing.T) {
	hung := testenv.StartWhisper(t, testenv.WhisperHung, "")
	h := hearingAt(engine.Port{Number: hung.Port, Runtime: "faster-whisper"}, engine.Port{Number: testenv.ClosedPort(t), Runtime: "whisper.cpp"})
	start := time.Now()
	if r, ok := h.Search(context.Background()); ok {
		t.Errorf("found %+v", r)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("the search took %v", d)
	}
	local := &localSTT{}
	if tr, err := h.Transcribe(t.Context(), aTake(t), "", local); err != nil || local.calls.Load() != 1 {
		t.Errorf("heard %+v, %v", tr, err)
	}
}

// TestLocal_TrySpeechRecognitionUsesTheWhisperServer: the Built-in service dialog's Test of
// recognition on this computer tries what a question would use, the Whisper server found, and
// names it.
func TestLocal_TrySpeechRecognitionUsesTheWhisperServer(t *testing.T) {
	w := testenv.StartWhisper(t, testenv.WhisperOpenAI, "Testing one two three.")
	t.Setenv(engine.RecogniserPortsEnv, strconv.Itoa(w.Port))
	l := &Local{}
	said, err := l.TrySpeechRecognition(t.Context(), engine.Speech{})
	if err != nil || !strings.HasPrefix(said, "whisper-small, from faster-whisper on this computer: ") || w.Heard.Load() != 1 {
		t.Errorf("said %q, %v; the server heard %d", said, err, w.Heard.Load())
	}
}
