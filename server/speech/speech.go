// Package speech holds the speech engines of the reference Chat and Voice Service: speech
// recognition (audio to a transcript) and speech synthesis (text to MP3), either run locally
// (pocketsphinx, flite or espeak-ng, and lame) or asked of a remote OpenAI-compatible service.
package speech

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"
)

// MaxTextRunes is the longest text, in runes, that a Synthesizer speaks.
const MaxTextRunes = 4096

// Transcript is what a Transcriber heard.
type Transcript struct {
	// Text is the recognised speech; "" when nothing was recognised (not an error).
	Text string
	// Language is the spoken language as a BCP 47 tag ("en"); "" when unknown.
	Language string
}

// Transcriber turns recorded speech into a transcript.
type Transcriber interface {
	// Transcribe recognises the speech in audio; mime names its type, or is "" to have it sniffed.
	Transcribe(ctx context.Context, audio []byte, mime string) (Transcript, error)
}

// Voice is one voice a Synthesizer speaks with.
type Voice struct {
	// Name is what a request gives to choose the voice.
	Name string
	// Language is the voice's language as a BCP 47 tag; "" when unknown.
	Language string
	// Description says what the voice sounds like, for people choosing one.
	Description string
}

// Synthesizer turns text into spoken audio.
type Synthesizer interface {
	// Synthesize speaks text with voice ("" for the default voice) and returns MP3 bytes.
	Synthesize(ctx context.Context, text, voice string) (mp3 []byte, err error)
	// Voices lists the voices Synthesize accepts, the default first.
	Voices() []Voice
}

// ErrNotAudio is returned for input that is not audio the engine can read. Errors from the media
// package (media.ErrNotAudio, media.ErrUnsupported) are wrapped together with it.
var ErrNotAudio = errors.New("not audio this service can read")

// ErrNarrowband is returned by the built-in recogniser for audio with nothing above 4 kHz
// (an 8 kHz microphone's), in which its 16 kHz model hears next to nothing: it is refused
// rather than given a confident, wrong transcript.
var ErrNarrowband = errors.New("telephone-quality audio (nothing above 4 kHz), which the built-in recogniser cannot hear")

// ErrLanguage is returned by a recogniser asked to hear a language it cannot: the built-in one
// hears English only.
var ErrLanguage = errors.New("the built-in recogniser hears English only")

// languageKey carries the language a transcription is asked for.
type languageKey struct{}

// WithLanguage asks the recognisers that take one to hear speech in the language tag (BCP 47,
// "de"); "" leaves them to find it. The Transcriber interface has no such parameter because the
// Chat and Voice Service's has none: this is Parley's own service's extension.
func WithLanguage(ctx context.Context, tag string) context.Context {
	if tag == "" {
		return ctx
	}
	return context.WithValue(ctx, languageKey{}, tag)
}

type expectedKey struct{}

// WithExpectedLanguage returns ctx with the language speech is probably in (the language its
// conversation is written in), a hint for a recogniser that cannot tell languages apart: one
// that hears only another says so (ErrLanguage) instead of guessing words. "" gives none.
func WithExpectedLanguage(ctx context.Context, tag string) context.Context {
	if tag == "" {
		return ctx
	}
	return context.WithValue(ctx, expectedKey{}, tag)
}

// ExpectedLanguageOf is the hint WithExpectedLanguage gave, "" for none.
func ExpectedLanguageOf(ctx context.Context) string {
	s, _ := ctx.Value(expectedKey{}).(string)
	return s
}

// LanguageOf is the language WithLanguage asked for, "" for none.
func LanguageOf(ctx context.Context) string {
	s, _ := ctx.Value(languageKey{}).(string)
	return s
}

// ErrUnknownVoice is returned by Synthesize for a voice not in its Voices list.
var ErrUnknownVoice = errors.New("unknown voice")

// ErrEmptyText is returned by Synthesize for text with nothing to speak.
var ErrEmptyText = errors.New("no text to speak")

// ErrTextTooLong is returned by Synthesize for text longer than MaxTextRunes.
var ErrTextTooLong = fmt.Errorf("text longer than %d characters", MaxTextRunes)

// notAudio wraps a media error so that errors.Is holds for both ErrNotAudio and the cause.
func notAudio(cause error) error {
	return fmt.Errorf("%w: %w", ErrNotAudio, cause)
}

// EngineMissingError reports that a program a local engine runs is not installed.
type EngineMissingError struct {
	// Engine is the program that was not found, such as "pocketsphinx_continuous".
	Engine string
	// Package lists the Debian packages (space-separated) that provide it.
	Package string
	// Purpose says what needs it, such as "speech recognition"; "" reads as "speech".
	Purpose string
}

func (e *EngineMissingError) Error() string {
	purpose := e.Purpose
	if purpose == "" {
		purpose = "speech"
	}
	noun := "package"
	if strings.Contains(strings.TrimSpace(e.Package), " ") {
		noun = "packages"
	}
	return fmt.Sprintf("%s needs %s: install the Debian %s %s", purpose, e.Engine, noun, e.Package)
}

// UpstreamError reports that a speech engine failed: a remote service that timed out, answered
// with an error status or with something malformed, or a local program that failed.
type UpstreamError struct {
	// Op is what was being done: "transcribe" or "synthesize".
	Op string
	// Status is the HTTP status the remote service answered with; 0 when there was no answer.
	Status int
	// Err is the cause.
	Err error
}

func (e *UpstreamError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("speech engine failed to %s: status %d %s: %v", e.Op, e.Status, http.StatusText(e.Status), e.Err)
	}
	return fmt.Sprintf("speech engine failed to %s: %v", e.Op, e.Err)
}

// Unwrap returns the cause.
func (e *UpstreamError) Unwrap() error { return e.Err }

// checkText validates text for synthesis.
func checkText(text string) error {
	if strings.TrimSpace(text) == "" {
		return ErrEmptyText
	}
	if utf8.RuneCountInString(text) > MaxTextRunes {
		return ErrTextTooLong
	}
	return nil
}
