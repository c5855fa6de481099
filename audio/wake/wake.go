// Package wake spots a few spoken phrases in the microphone's stream, locally: a wake phrase
// ("hey parley") that starts a turn, and the words that stop a reply ("stop", "cancel"). It
// decodes with PocketSphinx's keyword search (libpocketsphinx through internal/sphinx, the
// library the built-in service's recogniser loads), with the en-us model's acoustic model and
// the pronunciations of CMU's dictionary; nothing leaves the machine.
//
// The keyword search alone takes phrases out of the middle of other speech ("…they parley…",
// "hey, Charlie"): a phrase counts only when it starts after a pause and is short, as a person
// calling an assistant says it. The speech it is part of is followed with the frames' levels:
// it must have begun at most Phrase.Longest before the library reports the phrase, after at
// least pauseBefore of frames clearly quieter than its loudest.
//
// The decoder hears the microphone with its steady noise brought down (SpeexDSP's suppressor,
// suppressDB, when the library is installed) and, for the wake phrases, with a phone-loop
// penalty (wakeLoopPenalty) that makes the search less ready to take other sounds for the
// phrase: together they hear more wake phrases, and wake on less other speech, than either
// alone (README: "Wake phrase").
package wake

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"parley/audio"
	"parley/audio/speexdsp"
	"parley/audio/vad"
	"parley/internal/sphinx"
)

// Phrase is a phrase to spot, with the keyword search's threshold for it (lower hears it more
// often, and other speech too), how long it may take to say, and the search's phone-loop
// penalty (-kws_plp: lower makes the search less ready to take other sounds for a phrase; a
// spotter uses the lowest of its phrases', and PocketSphinx's default for 0).
type Phrase struct {
	Text        string
	Threshold   float64
	Longest     time.Duration // from the speech's start to the library's report
	LoopPenalty float64
}

// WakePhrases are the wake phrases a person can choose from; the first is the default. Their
// thresholds were chosen on the corpus of BenchmarkSpotter (README: "Wake phrase").
var WakePhrases = []Phrase{
	{"hey parley", 1e-13, 1400 * time.Millisecond, wakeLoopPenalty},
	{"okay parley", 1e-20, 1400 * time.Millisecond, wakeLoopPenalty},
	{"hey computer", 1e-5, 1400 * time.Millisecond, wakeLoopPenalty},
}

// StopPhrases stop a reply while it is spoken. They keep PocketSphinx's default penalty: with
// the wake phrases' lower one, a single short word is heard in other speech far more often.
var StopPhrases = []Phrase{
	{"stop", 1e-20, 1200 * time.Millisecond, defaultLoopPenalty},
	{"cancel", 1e-20, 1200 * time.Millisecond, defaultLoopPenalty},
}

// DefaultWakePhrase is the wake phrase when none is chosen.
const DefaultWakePhrase = "hey parley"

// LookupWake returns the wake phrase named text (any case, spaces trimmed), and whether it is
// one of WakePhrases.
func LookupWake(text string) (Phrase, bool) {
	text = strings.Join(strings.Fields(strings.ToLower(text)), " ")
	for _, p := range WakePhrases {
		if p.Text == text {
			return p, true
		}
	}
	return Phrase{}, false
}

const (
	// pauseBefore is the quiet a phrase must follow.
	pauseBefore = int(300 * time.Millisecond / audio.FrameDuration)
	// quietBelowPeak: a frame is quiet when this far below the loudest of the phrase's speech
	// (or under the noise floor's margin, in a quiet room).
	quietBelowPeak = 18.0
	floorMargin    = 8.0
	// floorRise is how fast the noise floor follows a louder room, dB a frame.
	floorRise = 0.01
	// history is how many frames of levels are kept: the longest phrase and the pause before it.
	history = int(3 * time.Second / audio.FrameDuration)
	// suppressDB is how far the suppressor brings the steady noise down before the decoder
	// hears a frame, and wakeLoopPenalty is the wake phrases' -kws_plp (PocketSphinx's default
	// is defaultLoopPenalty). Chosen together on BenchmarkSpotter's corpus.
	suppressDB         = 6
	wakeLoopPenalty    = 1e-5
	defaultLoopPenalty = 1e-1
)

// ErrNoModel reports that the en-us model or its dictionary is missing.
var ErrNoModel = errors.New("the PocketSphinx English model is not installed")

// Available reports why phrases cannot be spotted here (the library or the model missing), or nil.
func Available() error {
	if err := sphinx.Load(); err != nil {
		if runtime.GOOS != "linux" {
			return fmt.Errorf("%w: this build of Parley has no PocketSphinx", err)
		}
		return fmt.Errorf("%w (install the libpocketsphinx3 and pocketsphinx-en-us packages)", err)
	}
	for _, f := range []string{sphinx.Model, sphinx.Dict} {
		if _, err := os.Stat(f); err != nil {
			return fmt.Errorf("%w (install the pocketsphinx-en-us package): %s is missing", ErrNoModel, f)
		}
	}
	return nil
}

// Spotter hears the phrases it was made with in 20 ms frames of 16 kHz mono audio. It is used by
// one goroutine at a time.
type Spotter struct {
	d       *sphinx.Decoder
	phrases []Phrase
	// pre brings the noise down before the decoder hears a frame (nil: SpeexDSP is not
	// installed); heard is the frame brought down.
	pre    *speexdsp.Preprocessor
	heard  []int16
	levels [history]float64
	n      int // frames fed since the last Reset
	floor  float64
}

// New makes a spotter of phrases. It loads the acoustic model (about 0.2 s).
func New(phrases []Phrase) (*Spotter, error) {
	if len(phrases) == 0 {
		return nil, errors.New("no phrase to listen for")
	}
	if err := Available(); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "parley-wake-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	kws, dict := filepath.Join(dir, "phrases"), filepath.Join(dir, "dict")
	var list strings.Builder
	words := map[string]bool{}
	penalty := math.Inf(1)
	for _, p := range phrases {
		if p.LoopPenalty > 0 {
			penalty = min(penalty, p.LoopPenalty)
		}
		fmt.Fprintf(&list, "%s /%g/\n", p.Text, p.Threshold)
		for _, w := range strings.Fields(p.Text) {
			words[w] = true
		}
	}
	if err := os.WriteFile(kws, []byte(list.String()), 0o600); err != nil {
		return nil, err
	}
	if err := writeDict(dict, words); err != nil {
		return nil, err
	}
	d, err := sphinx.New([]string{"-hmm", sphinx.Model, "-dict", dict, "-kws", kws, "-kws_plp", fmt.Sprintf("%g", min(penalty, defaultLoopPenalty))})
	if err != nil {
		return nil, err
	}
	s := &Spotter{d: d, phrases: phrases, heard: make([]int16, audio.FrameSamples)}
	s.newPre()
	if err := s.restart(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// writeDict writes the pronunciations of words, taken from the model's dictionary, to path: the
// decoder then loads a few lines instead of 134,000. A word the dictionary lacks is an error.
func writeDict(path string, words map[string]bool) error {
	f, err := os.Open(sphinx.Dict)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNoModel, err)
	}
	defer f.Close()
	var out strings.Builder
	found := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		w, _, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		base, _, _ := strings.Cut(w, "(")
		if words[base] {
			out.WriteString(line + "\n")
			found[base] = true
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	for w := range words {
		if !found[w] {
			return fmt.Errorf("the word %q is not in the PocketSphinx dictionary", w)
		}
	}
	return os.WriteFile(path, []byte(out.String()), 0o600)
}

// restart starts a new utterance, which forgets the phrases heard in the last.
func (s *Spotter) restart() error {
	_ = s.d.End() // none is under way after New or a failure
	return s.d.Start()
}

// Reset forgets what was heard: the next phrase is one said from now on. The suppressor learns
// the room's noise again too, as it is now: the spotter heard nothing while a turn ran, and a
// noise learned before (a fan since turned off) would cost the phrase's quieter sounds.
func (s *Spotter) Reset() error {
	s.n = 0
	s.newPre()
	return s.restart()
}

// Feed decodes one frame, and returns the phrase heard with it ("" for none).
func (s *Spotter) Feed(frame []int16) (string, error) {
	db := vad.FrameDBFS(frame)
	s.levels[s.n%history] = db
	s.n++
	if s.n == 1 || db < s.floor {
		s.floor = db
	} else {
		s.floor += floorRise
	}
	if err := s.d.Process(s.suppress(frame)); err != nil {
		return "", err
	}
	hyp := strings.TrimSpace(s.d.Hyp())
	if hyp == "" {
		return "", nil
	}
	if err := s.restart(); err != nil {
		return "", err
	}
	p := s.phrase(hyp)
	if p == nil || !s.afterPause(p.Longest) {
		return "", nil
	}
	return p.Text, nil
}

// newPre makes a new suppressor, which learns the noise from the next frame on; none when
// SpeexDSP is not installed.
func (s *Spotter) newPre() {
	s.closePre()
	if pre, err := speexdsp.NewPreprocessor(audio.FrameSamples, audio.SampleRate, speexdsp.PreprocessOptions{Denoise: true, NoiseDB: suppressDB}); err == nil {
		s.pre = pre
	}
}

// suppress returns frame with its steady noise brought down, or frame itself when SpeexDSP
// cannot do it (or the frame is not 20 ms).
func (s *Spotter) suppress(frame []int16) []int16 {
	if s.pre == nil || len(frame) != len(s.heard) {
		return frame
	}
	copy(s.heard, frame)
	s.pre.Run(s.heard)
	return s.heard
}

func (s *Spotter) closePre() {
	if s.pre != nil {
		s.pre.Close()
		s.pre = nil
	}
}

// phrase is the phrase of a hypothesis: the last phrase the library reports.
func (s *Spotter) phrase(hyp string) *Phrase {
	best, at := -1, -1
	for i, p := range s.phrases {
		if j := strings.LastIndex(hyp, p.Text); j > at || (j == at && j >= 0 && len(p.Text) > len(s.phrases[best].Text)) {
			best, at = i, j
		}
	}
	if best < 0 {
		return nil
	}
	return &s.phrases[best]
}

// afterPause reports whether the speech that ends with the frame just fed began at most longest
// ago, after a pause.
func (s *Spotter) afterPause(longest time.Duration) bool {
	span := int(longest / audio.FrameDuration)
	avail := min(s.n, history)
	peak := math.Inf(-1)
	for i := 1; i <= min(span, avail); i++ {
		peak = max(peak, s.levels[(s.n-i)%history])
	}
	quiet := max(s.floor+floorMargin, peak-quietBelowPeak)
	run := 0
	for i := 1; i <= avail; i++ {
		if s.levels[(s.n-i)%history] < quiet {
			run++
			if run >= pauseBefore {
				return i-run <= span
			}
			continue
		}
		run = 0
		if i > span {
			return false // still speech before the longest the phrase takes
		}
	}
	// The history starts inside the phrase or its pause: what came before was not heard.
	return avail-run <= span
}

// Close frees the decoder; the spotter is not used again.
func (s *Spotter) Close() {
	s.d.Free()
	s.closePre()
}

// Lazy is a Spotter made at its first use, on the goroutine that uses it: making one loads the
// acoustic model (about 0.2 s), which a window's goroutine must not wait for. A failure to make
// it is returned by that first call, and by every call after.
type Lazy struct {
	phrases []Phrase
	s       *Spotter
	err     error
}

// NewLazy returns a spotter of phrases made at its first Feed or Reset.
func NewLazy(phrases []Phrase) *Lazy { return &Lazy{phrases: phrases} }

func (l *Lazy) open() error {
	if l.s == nil && l.err == nil {
		l.s, l.err = New(l.phrases)
	}
	return l.err
}

// Feed is Spotter.Feed, after making the spotter.
func (l *Lazy) Feed(frame []int16) (string, error) {
	if err := l.open(); err != nil {
		return "", err
	}
	return l.s.Feed(frame)
}

// Reset is Spotter.Reset, after making the spotter.
func (l *Lazy) Reset() error {
	if err := l.open(); err != nil {
		return err
	}
	return l.s.Reset()
}

// Close frees the spotter if it was made. Call it once its user has returned.
func (l *Lazy) Close() {
	if l.s != nil {
		l.s.Close()
		l.s = nil
	}
}
