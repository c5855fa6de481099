package speech

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// EspeakOptions configures the local speech synthesiser.
type EspeakOptions struct {
	// Binary is the synthesiser program; "" means "espeak-ng" on PATH.
	Binary string
	// Lame is the MP3 encoder program; "" means "lame" on PATH.
	Lame string
	// DefaultVoice is the voice used when a request names none; "" means "en-us". It must be
	// one of the voices Voices lists.
	DefaultVoice string
	// Timeout bounds each of the two programs for one synthesis; 0 means 60 seconds.
	Timeout time.Duration
}

// maxWAV bounds espeak-ng's output: MaxTextRunes of slow speech at 22050 Hz is well under it.
const maxWAV = 128 << 20

// maxMP3 bounds lame's output.
const maxMP3 = 32 << 20

func (o EspeakOptions) withDefaults() EspeakOptions {
	if o.Binary == "" {
		o.Binary = "espeak-ng"
	}
	if o.Lame == "" {
		o.Lame = "lame"
	}
	if o.DefaultVoice == "" {
		o.DefaultVoice = "en-us"
	}
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	return o
}

// espeakVoices are the voices offered, each checked against `espeak-ng --voices` on Debian 12.
var espeakVoices = []Voice{
	{Name: "en-us", Language: "en-US", Description: "English (American), male"},
	{Name: "en-gb", Language: "en-GB", Description: "English (British), male"},
	{Name: "de", Language: "de", Description: "German, male"},
	{Name: "fr-fr", Language: "fr-FR", Description: "French (France), male"},
	{Name: "es", Language: "es", Description: "Spanish (Spain), male"},
	{Name: "it", Language: "it", Description: "Italian, male"},
	{Name: "pt-br", Language: "pt-BR", Description: "Portuguese (Brazil), male"},
	{Name: "nl", Language: "nl", Description: "Dutch, male"},
	{Name: "pl", Language: "pl", Description: "Polish, male"},
	{Name: "sv", Language: "sv", Description: "Swedish, male"},
}

// CheckEspeak reports, as an *EngineMissingError, whether espeak-ng or lame is missing; nil
// when both are there.
func CheckEspeak(o EspeakOptions) error {
	o = o.withDefaults()
	if _, err := exec.LookPath(o.Binary); err != nil {
		return &EngineMissingError{Engine: o.Binary, Package: "espeak-ng", Purpose: "speech synthesis"}
	}
	if _, err := exec.LookPath(o.Lame); err != nil {
		return &EngineMissingError{Engine: o.Lame, Package: "lame", Purpose: "speech synthesis"}
	}
	return nil
}

// espeak speaks with espeak-ng and encodes the speech to MP3 with lame.
type espeak struct {
	o      EspeakOptions
	voices []Voice
	sem    semaphore
}

// NewEspeak returns a Synthesizer that speaks with espeak-ng and encodes MP3 with lame
// (mono, 22050 Hz as espeak-ng makes it, VBR quality 6). An unknown DefaultVoice falls back to
// "en-us".
func NewEspeak(o EspeakOptions) Synthesizer {
	o = o.withDefaults()
	e := &espeak{o: o, sem: newSemaphore()}
	def, ok := findVoice(espeakVoices, o.DefaultVoice)
	if !ok {
		def, _ = findVoice(espeakVoices, "en-us")
		e.o.DefaultVoice = def.Name
	}
	e.voices = append(e.voices, def)
	for _, v := range espeakVoices {
		if v.Name != def.Name {
			e.voices = append(e.voices, v)
		}
	}
	return e
}

func findVoice(vs []Voice, name string) (Voice, bool) {
	for _, v := range vs {
		if v.Name == name {
			return v, true
		}
	}
	return Voice{}, false
}

func (e *espeak) Voices() []Voice { return append([]Voice(nil), e.voices...) }

func (e *espeak) Synthesize(ctx context.Context, text, voice string) ([]byte, error) {
	if err := checkText(text); err != nil {
		return nil, err
	}
	if voice == "" {
		voice = e.o.DefaultVoice
	}
	if _, ok := findVoice(e.voices, voice); !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownVoice, voice)
	}
	if err := CheckEspeak(e.o); err != nil {
		return nil, err
	}
	if err := e.sem.acquire(ctx); err != nil {
		return nil, err
	}
	defer e.sem.release()

	// The text goes on stdin, never in argv, so text starting with "-" is not taken for an
	// option. espeak-ng reads stdin line by line; newlines only make pauses.
	wav, err := run(ctx, e.o.Timeout, strings.NewReader(text), maxWAV, e.o.Binary, "--stdout", "-v", voice)
	if err != nil {
		return nil, e.failed(ctx, err)
	}
	mp3, err := run(ctx, e.o.Timeout, bytes.NewReader(wav), maxMP3, e.o.Lame, "--quiet", "-m", "m", "-V", "6", "-", "-")
	if err != nil {
		return nil, e.failed(ctx, err)
	}
	if len(mp3) == 0 {
		return nil, &UpstreamError{Op: "synthesize", Err: fmt.Errorf("%s produced no audio", e.o.Lame)}
	}
	return mp3, nil
}

// failed turns a program's failure into an *UpstreamError, leaving the caller's own
// cancellation as it is.
func (e *espeak) failed(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return err
	}
	return &UpstreamError{Op: "synthesize", Err: err}
}
