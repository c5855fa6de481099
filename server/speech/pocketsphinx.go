package speech

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"parley/audio/denoise"
	"parley/internal/langtag"
	"parley/internal/sphinx"
	"parley/media"
)

// PocketSphinxOptions configures the local speech recogniser.
type PocketSphinxOptions struct {
	// Binary is the recogniser program; "" means the resident recogniser (libpocketsphinx in
	// this process, its model loaded once), or "pocketsphinx_continuous" on PATH where the
	// library cannot be loaded.
	Binary string
	// Program runs Binary for every recognition, loading the model each time, even where the
	// resident recogniser could be used; for comparisons.
	Program bool
	// Timeout bounds one recognition; 0 means 60 seconds.
	Timeout time.Duration
}

// pocketSphinxPackages are the Debian packages that provide the recogniser and its model.
const pocketSphinxPackages = "pocketsphinx pocketsphinx-en-us"

// maxHypothesis bounds the recogniser's stdout.
const maxHypothesis = 1 << 20

// maxLogTail bounds how much of the recogniser's log goes into an error.
const maxLogTail = 2 << 10

// resident reports whether o asks for the resident recogniser, where the library loads.
func (o PocketSphinxOptions) resident() bool { return o.Binary == "" && !o.Program }

func (o PocketSphinxOptions) withDefaults() PocketSphinxOptions {
	if o.Binary == "" {
		o.Binary = "pocketsphinx_continuous"
	}
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	return o
}

func (o PocketSphinxOptions) missing() *EngineMissingError {
	return &EngineMissingError{Engine: o.Binary, Package: pocketSphinxPackages, Purpose: "speech recognition"}
}

// CheckPocketSphinx reports, as an *EngineMissingError, whether the recogniser (the library or
// the program) or its default English model is missing; nil when both are there.
func CheckPocketSphinx(o PocketSphinxOptions) error {
	resident := o.resident() && loadLibrary() == nil
	o = o.withDefaults()
	if _, err := exec.LookPath(o.Binary); err != nil && !resident {
		return o.missing()
	}
	if filepath.Base(o.Binary) == "pocketsphinx_continuous" {
		if _, err := os.Stat(sphinx.Model); err != nil {
			return &EngineMissingError{Engine: "the pocketsphinx English model", Package: "pocketsphinx-en-us", Purpose: "speech recognition"}
		}
	}
	return nil
}

// pocketSphinx recognises English speech with pocketsphinx: resident decoders of
// libpocketsphinx where it loads, else pocketsphinx_continuous run for each recognition.
type pocketSphinx struct {
	o    PocketSphinxOptions
	sem  semaphore    // bounds the programs run at once
	pool *decoderPool // the resident decoders; nil when o asks for the program
}

// NewPocketSphinx returns a Transcriber that recognises the audio, decoded and converted to 16
// kHz mono first, with pocketsphinx: in this process with the model kept loaded (a pool of at
// most one decoder per core, shared by all such Transcribers) where libpocketsphinx loads,
// else by running pocketsphinx_continuous. It recognises US English only: Language is "en". Audio with nothing above 4 kHz
// is refused with ErrNarrowband.
func NewPocketSphinx(o PocketSphinxOptions) Transcriber {
	p := &pocketSphinx{o: o.withDefaults(), sem: newSemaphore()}
	if o.resident() {
		p.pool = sharedPool()
	}
	return p
}

// WarmPocketSphinx loads the resident recogniser's first decoder in the background, so that the
// first recognition does not wait most of a second for the model, when o asks for the resident
// recogniser and the library loads; else it does nothing.
func WarmPocketSphinx(o PocketSphinxOptions) {
	if !o.resident() || loadLibrary() != nil {
		return
	}
	// A decoder that cannot be made here cannot be made for the first call either, which
	// reports why.
	go func() { _ = sharedPool().warm() }()
}

func (p *pocketSphinx) Transcribe(ctx context.Context, audio []byte, mime string) (Transcript, error) {
	// It hears English only: a question asked in another language, or expected in one when
	// none was asked for (its conversation is written in it), is refused, not guessed at.
	l := LanguageOf(ctx)
	if l == "" {
		l = ExpectedLanguageOf(ctx)
	}
	if l != "" && langtag.Base(l) != "en" {
		return Transcript{}, ErrLanguage
	}
	pcm, err := decodeAudio(audio)
	if err != nil {
		return Transcript{}, err
	}
	pcm = media.To16kMono(pcm)
	if len(pcm.Samples) == 0 {
		return Transcript{Language: "en"}, nil
	}
	if media.Narrowband(pcm) {
		return Transcript{}, ErrNarrowband
	}
	// A noisy take (a fan, a street) is heard better with its noise brought down: in the
	// hearing corpus's room, 52.7% of words wrong instead of 56.0% (audio/denoise).
	pcm.Samples = denoise.IfNoisy(pcm.Samples, pcm.Rate)
	if p.pool != nil && loadLibrary() == nil {
		return p.transcribeResident(ctx, pcm.Samples)
	}
	return p.transcribeProgram(ctx, pcm)
}

// decodeAudio decodes an upload for a recogniser: media.ErrTooLong, or ErrNotAudio for
// anything it cannot read (media.ErrNotAudio, ErrUnsupported and damaged files alike).
func decodeAudio(audio []byte) (media.PCM, error) {
	pcm, err := media.Decode(audio)
	if err != nil {
		if errors.Is(err, media.ErrTooLong) {
			return media.PCM{}, err
		}
		return media.PCM{}, notAudio(err)
	}
	if pcm.Rate <= 0 || pcm.Channels <= 0 {
		return media.PCM{}, notAudio(fmt.Errorf("audio with %d channels at %d Hz", pcm.Channels, pcm.Rate))
	}
	return pcm, nil
}

// transcribeResident recognises 16 kHz mono samples with a decoder of the pool.
func (p *pocketSphinx) transcribeResident(ctx context.Context, samples []int16) (Transcript, error) {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, p.o.Timeout)
	defer cancel()
	failed := func(err error) error {
		if parent.Err() != nil {
			return fmt.Errorf("pocketsphinx: %w", parent.Err())
		}
		if ctx.Err() != nil {
			return &UpstreamError{Op: "transcribe", Err: fmt.Errorf("pocketsphinx took longer than %v: %w", p.o.Timeout, ctx.Err())}
		}
		return &UpstreamError{Op: "transcribe", Err: err}
	}
	r, err := p.pool.get(ctx)
	if err != nil {
		return Transcript{}, failed(err)
	}
	out, err := r.recognise(ctx, samples)
	p.pool.put(r, err != nil && ctx.Err() == nil)
	if err != nil {
		return Transcript{}, failed(err)
	}
	return Transcript{Text: parsePocketSphinx([]byte(out)), Language: "en"}, nil
}

// transcribeProgram recognises 16 kHz mono audio with pocketsphinx_continuous.
func (p *pocketSphinx) transcribeProgram(ctx context.Context, pcm media.PCM) (Transcript, error) {
	bin, err := exec.LookPath(p.o.Binary)
	if err != nil {
		return Transcript{}, p.o.missing()
	}
	if err := p.sem.acquire(ctx); err != nil {
		return Transcript{}, err
	}
	defer p.sem.release()

	dir, err := os.MkdirTemp("", "parley-stt-")
	if err != nil {
		return Transcript{}, err
	}
	defer os.RemoveAll(dir)
	wav := filepath.Join(dir, "take.wav")
	logf := filepath.Join(dir, "pocketsphinx.log")
	if err := os.WriteFile(wav, media.EncodeWAV(pcm), 0o600); err != nil {
		return Transcript{}, err
	}
	out, err := run(ctx, p.o.Timeout, nil, maxHypothesis, bin, "-infile", wav, "-logfn", logf)
	if err != nil {
		if ctx.Err() != nil {
			return Transcript{}, err
		}
		return Transcript{}, &UpstreamError{Op: "transcribe", Err: withLogTail(err, logf)}
	}
	return Transcript{Text: parsePocketSphinx(out), Language: "en"}, nil
}

// withLogTail adds the error lines of the recogniser's log (or its last lines) to err.
func withLogTail(err error, logf string) error {
	b, rerr := os.ReadFile(logf)
	if rerr != nil || len(b) == 0 {
		return err
	}
	var keep []string
	for line := range strings.Lines(string(b)) {
		if strings.HasPrefix(line, "ERROR") || strings.HasPrefix(line, "FATAL") {
			keep = append(keep, strings.TrimSpace(line))
		}
	}
	tail := strings.Join(keep, "; ")
	if tail == "" {
		tail = string(b[max(0, len(b)-maxLogTail):])
	}
	if len(tail) > maxLogTail {
		tail = tail[len(tail)-maxLogTail:]
	}
	return fmt.Errorf("%w: %s", err, strings.ToValidUTF8(strings.TrimSpace(tail), "?"))
}

// parsePocketSphinx turns pocketsphinx_continuous's stdout (one hypothesis line per utterance)
// into the transcript text: words joined by single spaces, with fillers such as <sil> and
// [NOISE] and pronunciation variant markers such as "(2)" removed.
func parsePocketSphinx(out []byte) string {
	var words []string
	for line := range bytes.Lines(out) {
		s := strings.TrimSpace(strings.ToValidUTF8(string(line), ""))
		if s == "" || isPocketSphinxChatter(s) {
			continue
		}
		for _, w := range strings.Fields(s) {
			if w = cleanWord(w); w != "" {
				words = append(words, w)
			}
		}
	}
	return strings.Join(words, " ")
}

// isPocketSphinxChatter reports lines that are status or log output, not a hypothesis.
func isPocketSphinxChatter(s string) bool {
	for _, p := range []string{"INFO:", "WARN:", "WARNING:", "ERROR:", "FATAL", "READY", "Listening"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// cleanWord drops control characters and filler tokens and strips pronunciation variant markers.
func cleanWord(w string) string {
	w = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, w)
	if i := strings.LastIndexByte(w, '('); i > 0 && len(w)-i > 2 && strings.HasSuffix(w, ")") &&
		strings.Trim(w[i+1:len(w)-1], "0123456789") == "" {
		w = w[:i]
	}
	if (strings.HasPrefix(w, "<") && strings.HasSuffix(w, ">")) ||
		(strings.HasPrefix(w, "[") && strings.HasSuffix(w, "]")) ||
		(strings.HasPrefix(w, "++") && strings.HasSuffix(w, "++")) {
		return ""
	}
	return w
}
