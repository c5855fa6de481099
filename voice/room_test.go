package voice_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"parley/audio"
	"parley/client"
	"parley/internal/testenv"
	"parley/media"
	"parley/voice"
)

// The simulated room: what the loudspeaker plays reaches the microphone late, with the room's
// reverberation (sox's reverb), at a gain, and goes on sounding after the loudspeaker stops.

// roomTail is how long the room keeps sounding after the loudspeaker is stopped.
const roomTail = 300 * time.Millisecond

// room is the sound between the fake loudspeaker and the fake microphone.
type room struct {
	t     testing.TB
	dir   string
	delay time.Duration // from the loudspeaker to the microphone
	gain  float64       // dB of the echo against what is played

	mu     sync.Mutex
	echoes map[[32]byte][]int16 // the room's answer to each clip, by its audio
	sounds []roomSound
}

// roomSound is one clip's echo in the room, from start until cut.
type roomSound struct {
	start time.Time
	pcm   []int16
	cut   time.Time // zero: heard to its end
}

func newRoom(t testing.TB, delay time.Duration, gain float64) *room {
	t.Helper()
	testenv.RequireCommands(t, "sox")
	return &room{t: t, dir: t.TempDir(), delay: delay, gain: gain, echoes: map[[32]byte][]int16{}}
}

// echo is what the microphone hears of pcm: delayed, reverberated and at the room's gain, with
// its reverberation's tail.
func (r *room) echo(pcm []int16) []int16 {
	h := sha256.Sum256(media.EncodeWAV(media.PCM{Rate: audio.SampleRate, Channels: 1, Samples: pcm}))
	if e, ok := r.echoes[h]; ok {
		return e
	}
	in := filepath.Join(r.dir, fmt.Sprintf("clip%d.wav", len(r.echoes)))
	out := filepath.Join(r.dir, fmt.Sprintf("echo%d.wav", len(r.echoes)))
	if err := os.WriteFile(in, media.EncodeWAV(media.PCM{Rate: audio.SampleRate, Channels: 1, Samples: pcm}), 0o644); err != nil {
		r.t.Error(err) // called off the test's goroutine: no Fatal
		return nil
	}
	// As the field notes' room: reverb 50 50 80, then the delay and the gain.
	cmd := exec.Command("sox", in, "-b", "16", out, "pad", "0", "1", "reverb", "50", "50", "80",
		"pad", fmt.Sprintf("%.3f", r.delay.Seconds()), "0", "gain", fmt.Sprintf("%.1f", r.gain))
	if b, err := cmd.CombinedOutput(); err != nil {
		r.t.Errorf("sox: %v\n%s", err, b)
		return nil
	}
	p, err := readWAV(out)
	if err != nil {
		r.t.Error(err)
		return nil
	}
	e := p.Samples
	r.echoes[h] = e
	return e
}

// readWAV reads a 16 kHz mono WAV file.
func readWAV(path string) (media.PCM, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return media.PCM{}, err
	}
	p, err := media.Decode(b)
	if err == nil && (p.Rate != audio.SampleRate || p.Channels != 1) {
		p = media.To16kMono(p)
	}
	return p, err
}

// play starts a clip's echo at now.
func (r *room) play(pcm []int16, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sounds = append(r.sounds, roomSound{start: now, pcm: r.echo(pcm)})
}

// stop cuts what plays at now: the room still sounds for its delay and roomTail.
func (r *room) stop(now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.sounds {
		if r.sounds[i].cut.IsZero() {
			r.sounds[i].cut = now.Add(r.delay)
		}
	}
}

// frameAt is what the microphone hears of the room in the n samples from now, or nil.
func (r *room) frameAt(now time.Time, n int) []int16 {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []float64
	kept := r.sounds[:0]
	for _, s := range r.sounds {
		off := int(now.Sub(s.start) * audio.SampleRate / time.Second)
		end := len(s.pcm)
		if !s.cut.IsZero() {
			end = min(end, int(s.cut.Add(roomTail).Sub(s.start)*audio.SampleRate/time.Second))
		}
		if off >= end {
			continue // over
		}
		kept = append(kept, s)
		if off+n <= 0 {
			continue // not yet
		}
		if out == nil {
			out = make([]float64, n)
		}
		for i := range n {
			j := off + i
			if j < 0 || j >= end {
				continue
			}
			v := float64(s.pcm[j])
			if !s.cut.IsZero() {
				// Fade out over the tail after the cut.
				if past := time.Duration(j)*time.Second/audio.SampleRate - s.cut.Sub(s.start); past > 0 {
					v *= 1 - float64(past)/float64(roomTail)
				}
			}
			out[i] += v
		}
	}
	r.sounds = kept
	if out == nil {
		return nil
	}
	f := make([]int16, n)
	for i, v := range out {
		f[i] = clamp16(v)
	}
	return f
}

// utterance is when the person spoke.
type utterance struct{ from, to time.Time }

// roomTranscriber hears anything: a take that overlaps what the person said is their question,
// and any other take (the room's echo) comes back as "yep", as a recogniser that makes words of
// anything would. Takes must be WAV, to know how long they are.
type roomTranscriber struct {
	clock *fakeClock
	delay time.Duration // of the service

	mu      sync.Mutex
	said    []utterance
	uploads int
	echoes  int // uploads that held none of what the person said
}

// say notes that the person says p from now.
func (tr *roomTranscriber) say(p media.PCM) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	now := tr.clock.Now()
	tr.said = append(tr.said, utterance{now, now.Add(p.Duration())})
}

func (tr *roomTranscriber) Transcribe(ctx context.Context, req client.TranscribeRequest) (*client.Transcript, error) {
	now := tr.clock.Now()
	pcm, err := media.Decode(req.Audio)
	if err != nil {
		return nil, err
	}
	// The take ended a moment ago (the loop sends it as soon as it ends), and lasted this long;
	// a few frames either side allow for the loop's pace.
	from, to := now.Add(-pcm.Duration()-100*time.Millisecond), now.Add(100*time.Millisecond)
	tr.mu.Lock()
	tr.uploads++
	person := false
	for _, u := range tr.said {
		if u.from.Before(to) && u.to.After(from) {
			person = true
		}
	}
	if !person {
		tr.echoes++
	}
	tr.mu.Unlock()
	if err := tr.clock.sleep(ctx, tr.delay); err != nil {
		return nil, err
	}
	if person {
		return &client.Transcript{Text: "What is the capital of France?"}, nil
	}
	return &client.Transcript{Text: "yep"}, nil
}

// roomRun is the outcome of replies spoken through a room.
type roomRun struct {
	questions, phantoms int // chat calls with the person's question, and with "yep"
	echoUploads         int // takes uploaded that held only the room
	bargeTries, barged  int // the person talking over a reply, and the replies so stopped
	bargeAnswered       int // questions asked over a reply that reached the chat
}

// talkInRoom runs the loop with barge-in on for turns replies through rm, the person asking a
// question each time the loop listens, and over every bargeEvery-th reply (0: never).
func talkInRoom(t *testing.T, rm *room, turns, bargeEvery int) roomRun {
	t.Helper()
	tr := &roomTranscriber{delay: 300 * time.Millisecond}
	w := newWorld(t, func(c *voice.Config) {
		c.BargeIn = true
		c.Transcriber = tr
		c.Encoding = audio.EncodingWAV
	})
	tr.clock = w.clock
	w.mic.echoGain = 1 // the room has the gain
	w.sink.room = rm
	w.svc.replies = []string{"Paris is the capital of France. It lies on the Seine. It has many bridges."}
	var (
		mu     sync.Mutex
		prev   voice.State
		tries  = map[int]bool{}
		asked  = map[int]bool{}
		result roomRun
	)
	// The person speaks at gain: over the reply, louder (as people do), 12 dB here, about 10 dB
	// over the loudest of the room's echo.
	say := func(gain float64) {
		tr.say(corpus.question)
		w.mic.say(corpus.question, gain)
	}
	w.onStatus = func(s voice.Status) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case s.Turn > turns:
			// Each turn had its reply (Config.Turns does not count the turns barge-in ends).
			go w.loop.Stop()
		case s.State == voice.Listening && prev != voice.Listening && !asked[s.Turn]:
			// A moment after the loop listens, if it still only listens, the person asks.
			turn := s.Turn
			go func() {
				<-w.clock.After(700 * time.Millisecond)
				if st := w.lastStatus(); st.Turn != turn || st.State != voice.Listening {
					return
				}
				mu.Lock()
				asked[turn] = true
				mu.Unlock()
				say(1)
			}()
		case s.State == voice.Speaking && prev != voice.Speaking && bargeEvery > 0 && s.Turn%bargeEvery == 0 && s.Turn < turns && !tries[s.Turn]:
			tries[s.Turn] = true
			result.bargeTries++
			n := len(w.sink.startedTimes()) + 1
			go func() {
				<-w.sink.clipsStarted(n)
				<-w.clock.After(time.Second)
				say(4)
			}()
		}
		prev = s.State
	}
	if err := w.wait(w.run()); err != nil {
		t.Fatalf("Run: %v; states %s", err, w.states())
	}
	w.svc.mu.Lock()
	for _, q := range w.svc.questions {
		if q == "yep" {
			result.phantoms++
		} else {
			result.questions++
		}
	}
	w.svc.mu.Unlock()
	tr.mu.Lock()
	result.echoUploads = tr.echoes
	tr.mu.Unlock()
	w.mu.Lock()
	barged := map[int]bool{}
	for _, e := range w.trace {
		if e.Kind == voice.TraceBargeIn {
			barged[e.Turn] = true
		}
	}
	w.mu.Unlock()
	for turn := range barged {
		result.barged++
		if tries[turn] {
			// The question asked over it is the next turn's.
			if h := w.heardIn(turn + 1); strings.HasPrefix(h, "What is") {
				result.bargeAnswered++
			}
		}
	}
	return result
}

// heardIn is the question the loop heard in turn, from the trace's order of questions.
func (w *world) heardIn(turn int) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	sent := 0
	for _, e := range w.trace {
		if e.Kind == voice.TraceChatSent {
			if e.Turn == turn && sent < len(w.heard) {
				return w.heard[sent]
			}
			sent++
		}
	}
	return ""
}

// Replies played through a room with delay and reverberation, barge-in on, never become
// questions: no take of the echo alone is uploaded, so nothing is charged for it.
func TestLoop_RoomEchoIsNeverAQuestion(t *testing.T) {
	speech(t)
	for _, tc := range []struct {
		name  string
		delay time.Duration
		gain  float64
		turns int
	}{
		{"50 replies, 100 ms away, -4 dB", 100 * time.Millisecond, -4, 50},
		{"quiet room, 40 ms away, -14 dB", 40 * time.Millisecond, -14, 10},
		{"loud room, 250 ms away, +2 dB", 250 * time.Millisecond, 2, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := talkInRoom(t, newRoom(t, tc.delay, tc.gain), tc.turns, 0)
			t.Logf("%+v", got)
			if got.phantoms != 0 || got.echoUploads != 0 {
				t.Errorf("%d phantom turns and %d takes of the echo uploaded over %d replies", got.phantoms, got.echoUploads, tc.turns)
			}
			if got.questions < tc.turns {
				t.Errorf("%d questions reached the chat over %d turns", got.questions, tc.turns)
			}
		})
	}
}

// In the same room, a person who talks over the reply still interrupts it, and their question
// is the next turn's.
func TestLoop_RoomBargeInStillWorks(t *testing.T) {
	speech(t)
	got := talkInRoom(t, newRoom(t, 100*time.Millisecond, -4), 20, 2)
	t.Logf("%+v", got)
	if got.phantoms != 0 || got.echoUploads != 0 {
		t.Errorf("%d phantom turns and %d takes of the echo uploaded", got.phantoms, got.echoUploads)
	}
	if got.bargeTries == 0 || got.bargeAnswered != got.bargeTries || got.barged != got.bargeTries {
		t.Errorf("the person talked over %d replies: %d stopped, %d of those questions answered", got.bargeTries, got.barged, got.bargeAnswered)
	}
}
