// Package audio records speech from a microphone for upload: it captures 16 kHz mono audio
// with miniaudio (malgo), meters its level, finds the speech in it with a voice activity
// detector, and encodes it to WebM/Opus while recording, so a take is ready to send the moment
// it ends. It imports no UI.
package audio

import (
	"errors"
	"time"

	"parley/audio/vad"
	"parley/media"
)

// Capture format: what the device is asked for (miniaudio converts) and what the pipeline uses.
const (
	SampleRate    = 16000
	FrameDuration = 20 * time.Millisecond
	frameSamples  = SampleRate * int(FrameDuration/time.Millisecond) / 1000
)

// UploadLimit is the service's limit on decoded audio for transcription, in bytes; a take's
// Audio never exceeds it (the base64 JSON request body is about a third larger).
const UploadLimit = 10_000_000

// MaxTakeLength bounds one take: a push-to-talk recording stops after this long, and the
// hands-free loop sends a question once its speech has gone on this long. Five minutes keeps a
// take within UploadLimit in either encoding: WAV, the larger at 32,000 bytes a second, makes
// 9.6 MB of it, which leaves room for the header and the audio kept from before speech was
// confirmed (at most 2 s, 64 KB); WebM/Opus is about 15 times smaller. The base64 request body
// is then about 12.8 MB. A take that would still pass UploadLimit stops there (StopSizeLimit).
const MaxTakeLength = 5 * time.Minute

// Errors a take can end with; test them with errors.Is.
var (
	// ErrNoDevice means no audio system or capture device could be opened.
	ErrNoDevice = errors.New("no audio device")
	// ErrDeviceFailed means the device stopped delivering audio, or stopped, during a take.
	ErrDeviceFailed = errors.New("the audio input device stopped working")
	// ErrSilentDevice means the device delivered nothing but zeros for 2 s: it is muted,
	// disconnected or a dummy.
	ErrSilentDevice = errors.New("the audio input device delivers only silence")
)

// silentDeviceAfter is how long a device may deliver only zeros before the take stops with
// ErrSilentDevice.
const silentDeviceAfter = 2 * time.Second

// Encoding is the container and codec of a take's Audio.
type Encoding int

// Encodings a take can be recorded in.
const (
	// EncodingWebMOpus is Opus at 16 kbit/s in 20 ms frames in WebM, about 2.2 KB per second.
	EncodingWebMOpus Encoding = iota
	// EncodingWAV is 16 kHz mono 16-bit PCM WAV, 32 KB per second, for services that refuse WebM.
	EncodingWAV
)

// MIME returns the media type of audio in this encoding.
func (e Encoding) MIME() string {
	if e == EncodingWAV {
		return "audio/wav"
	}
	return "audio/webm"
}

func (e Encoding) String() string {
	if e == EncodingWAV {
		return "wav"
	}
	return "webm/opus"
}

// StopReason says why a take ended.
type StopReason int

// Reasons a take ends.
const (
	StopCaller       StopReason = iota // Recorder.Stop was called
	StopCancelled                      // the context was cancelled
	StopEndOfSpeech                    // the voice detector heard the end of speech
	StopSizeLimit                      // the encoded audio reached TakeOptions.MaxBytes
	StopMaxDuration                    // TakeOptions.MaxDuration was reached
	StopDeviceFailed                   // the device stopped or stopped delivering audio
	StopSilentDevice                   // the device delivered only zeros for 2 s
	StopEndOfInput                     // Process reached the end of its input
)

func (r StopReason) String() string {
	switch r {
	case StopCaller:
		return "stopped"
	case StopCancelled:
		return "cancelled"
	case StopEndOfSpeech:
		return "end of speech"
	case StopSizeLimit:
		return "size limit reached"
	case StopMaxDuration:
		return "time limit reached"
	case StopDeviceFailed:
		return "device failed"
	case StopSilentDevice:
		return "device silent"
	case StopEndOfInput:
		return "end of input"
	}
	return "unknown"
}

// Level is one reading of the input level for a meter.
type Level struct {
	// RMS and Peak are in dBFS (0 is full scale; -120 is digital silence).
	RMS, Peak float64
	// At is where the reading ends, from the start of recording.
	At time.Duration
}

// TakeOptions configures one take; the zero value records WebM/Opus from the default device
// until stopped, cancelled or at the upload limit.
type TakeOptions struct {
	// Device selects the input: "" is the default; otherwise a device ID, or a name or part of
	// one (case-insensitive) that matches a single device.
	Device string
	// VAD makes the take start at the speech (minus VADConfig.PreRoll) and stop after the
	// silence hold; the audio ends 300 ms after the speech (the rest of the hold is not kept).
	// Without it the take holds everything, and the detector only decides whether it holds
	// speech.
	VAD       bool
	VADConfig vad.Config
	// MaxBytes caps the encoded Audio; 0 or more than UploadLimit means UploadLimit. A take
	// stops early (StopSizeLimit) and keeps what was recorded.
	MaxBytes int64
	// MaxDuration caps how long the take listens; 0 means no limit.
	MaxDuration time.Duration
	// Levels, if not nil, receives level readings at most 30 times a second. Sends never
	// block: a reading the receiver is not ready for is dropped. It is not closed.
	Levels chan<- Level
	// ThroughSilence keeps a take going while the device delivers only zeros, where it would
	// stop after 2 s with ErrSilentDevice: for a level meter that tests a microphone, which the
	// person may unmute meanwhile (and which some sources, such as a monitor that has just
	// started, feed with zeros for their first seconds).
	ThroughSilence bool
	// Encoding of Audio; the zero value is WebM/Opus.
	Encoding Encoding
	// Filter, if not nil, is given each 20 ms frame a device delivers, with when it was read,
	// before anything else sees it, and may change it in place (an echo canceller).
	Filter func(frame []int16, at time.Time)
}

// Take is one recording, ready to upload.
type Take struct {
	// Audio is the encoded recording and MIME its media type.
	Audio []byte
	MIME  string
	// PCM is the same audio, 16 kHz mono.
	PCM media.PCM
	// Duration is the length of Audio.
	Duration time.Duration
	// Speech is false for an empty take: no speech was heard, and it must not be sent anywhere.
	Speech bool
	// SpeechStart and SpeechEnd bound the speech heard, measured from the start of Audio.
	SpeechStart, SpeechEnd time.Duration
	// Skipped is the audio heard before Audio begins (with VAD, the silence before the
	// pre-roll).
	Skipped time.Duration
	// Dropped is audio the device delivered that was lost because the take fell more than
	// 4 s behind; it should be zero.
	Dropped time.Duration
	// Reason says why the take ended; Err is set when it ended because of a fault.
	Reason StopReason
	Err    error
}

// Empty reports whether the take holds no speech; callers must not send an empty take.
func (t *Take) Empty() bool { return t == nil || !t.Speech }
