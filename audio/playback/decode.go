// Package playback plays the speech service's MP3 replies: it decodes them as a stream, in its own
// goroutine, safe against decoder panics, converts them to the one output format of the process,
// and plays clips back to back through the process's audio output, with stop, volume and events
// for when playback really starts and ends. The output is open only while there is something to
// play, and for IdleClose after. It imports no UI.
package playback

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/hajimehoshi/go-mp3"
)

// Format is a PCM layout: signed 16-bit little-endian samples, channels interleaved.
type Format struct {
	// SampleRate is the number of frames per second.
	SampleRate int
	// Channels is 1 (mono) or 2 (stereo).
	Channels int
}

// OutputFormat is the format of the process's audio output. 48 kHz is what PulseAudio and most
// hardware run at, so nothing resamples a second time, and the service's 24 kHz speech doubles
// exactly; stereo plays stereo MP3 files as they are, at a cost that is negligible.
var OutputFormat = Format{SampleRate: 48000, Channels: 2}

// BytesPerSecond is the size of one second of PCM in this format.
func (f Format) BytesPerSecond() int { return f.SampleRate * f.Channels * 2 }

// Duration is the playing time of n bytes of PCM in this format.
func (f Format) Duration(n int64) time.Duration {
	return time.Duration(n * int64(time.Second) / int64(f.BytesPerSecond()))
}

// MaxDuration is the longest clip decoded; a longer one ends in ErrTooLong (speech replies are
// far shorter, and the cap bounds what a malformed stream can make the decoder produce).
const MaxDuration = 10 * time.Minute

// maxDuration is MaxDuration, lowered by tests.
var maxDuration = MaxDuration

// Errors a clip can end with; match them with errors.Is.
var (
	// ErrMalformed means the data is not a playable MP3 (including data on which the decoder panics).
	ErrMalformed = errors.New("malformed MP3")
	// ErrEmpty means the MP3 decoded to no audio at all.
	ErrEmpty = errors.New("the MP3 holds no audio")
	// ErrTooLong means the MP3 decodes to more than MaxDuration of audio.
	ErrTooLong = errors.New("the MP3 is longer than the playback limit")
	// ErrDataURI means a string is not a base64 audio data URI.
	ErrDataURI = errors.New("not a base64 audio data URI")
)

const (
	// readSize is the most go-mp3 output converted at a time: one MPEG-1 layer III frame
	// (1152 stereo frames); MPEG-2 frames are half that.
	readSize = 1152 * 4
	// pipeChunks bounds the PCM decoded ahead of the player: 32 MP3 frames, about 0.8 s of
	// 24 kHz speech.
	pipeChunks = 32
)

// Stream is one MP3 clip being decoded in its own goroutine into PCM of a Format. Decoding stays
// at most a bounded amount ahead of the reader. Read it to the end or Close it.
type Stream struct {
	speed  float64
	format Format
	chunks chan []byte
	done   chan struct{}
	cancel context.CancelFunc
	cur    []byte

	mu  sync.Mutex
	err error // the decoding goroutine's outcome, set before chunks is closed
}

// NewStream starts decoding the MP3 read from r into PCM of format f. Decoding stops when ctx is
// cancelled, the stream is closed, the MP3 ends, or an error occurs; a decoder panic is an
// ErrMalformed error, not a crash.
func NewStream(ctx context.Context, r io.Reader, f Format) *Stream {
	return NewStreamAtSpeed(ctx, r, f, 1)
}

// NewStreamAtSpeed is NewStream with the audio played speed times as fast, its pitch kept
// (ClampSpeed bounds it). When the speed cannot be changed (SpeedAvailable) it plays as made.
func NewStreamAtSpeed(ctx context.Context, r io.Reader, f Format, speed float64) *Stream {
	ctx, cancel := context.WithCancel(ctx)
	s := &Stream{
		speed:  speed,
		format: f,
		chunks: make(chan []byte, pipeChunks),
		done:   make(chan struct{}),
		cancel: cancel,
	}
	go s.run(ctx, r)
	return s
}

// Format is the format of the PCM the stream yields.
func (s *Stream) Format() Format { return s.format }

// Read reads converted PCM, blocking until some is decoded. At the end of a good MP3 it returns
// io.EOF; otherwise it returns the error decoding ended with, after the audio decoded before it.
func (s *Stream) Read(p []byte) (int, error) {
	for len(s.cur) == 0 {
		c, ok := <-s.chunks
		if !ok {
			if err := s.Err(); err != nil {
				return 0, err
			}
			return 0, io.EOF
		}
		s.cur = c
	}
	n := copy(p, s.cur)
	s.cur = s.cur[n:]
	return n, nil
}

// readAvailable is Read without the wait: when no PCM is decoded yet it returns 0, nil.
func (s *Stream) readAvailable(p []byte) (int, error) {
	if len(s.cur) == 0 {
		select {
		case c, ok := <-s.chunks:
			if !ok {
				if err := s.Err(); err != nil {
					return 0, err
				}
				return 0, io.EOF
			}
			s.cur = c
		default:
			return 0, nil
		}
	}
	n := copy(p, s.cur)
	s.cur = s.cur[n:]
	return n, nil
}

// Err returns the error decoding ended with, or nil while decoding or after a good MP3.
func (s *Stream) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Close stops decoding and waits for the decoding goroutine to exit. It returns nil; it is safe
// to call more than once and concurrently with Read.
func (s *Stream) Close() error {
	s.cancel()
	<-s.done
	return nil
}

func (s *Stream) run(ctx context.Context, r io.Reader) {
	defer close(s.done)
	defer close(s.chunks)
	err := s.decode(ctx, r)
	if err != nil {
		s.mu.Lock()
		s.err = err
		s.mu.Unlock()
	}
}

// decode runs the decoder; a panic in it becomes an ErrMalformed error.
func (s *Stream) decode(ctx context.Context, r io.Reader) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: the decoder failed: %v", ErrMalformed, p)
		}
	}()
	r, err = skipID3(r)
	if err != nil {
		return err
	}
	// go-mp3 scans a whole seekable input for its length before returning a decoder: hide Seek
	// so the first PCM comes after the first frame.
	dec, err := mp3.NewDecoder(struct{ io.Reader }{r})
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		if errors.Is(err, io.EOF) {
			return ErrEmpty
		}
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if dec.SampleRate() <= 0 {
		return fmt.Errorf("%w: sample rate %d", ErrMalformed, dec.SampleRate())
	}
	conv := newConverter(dec.SampleRate(), s.format)
	stretch, _ := newStretcher(s.format, s.speed) // nil: as made (SpeedAvailable says why)
	if stretch != nil {
		defer stretch.close()
	}
	limit := int64(maxDuration) * int64(s.format.BytesPerSecond()) / int64(time.Second)
	var total int64
	in := make([]byte, readSize)
	for {
		// One Read returns at most one MP3 frame's PCM, so the first chunk is out after one frame.
		n, rerr := dec.Read(in)
		out := conv.convert(make([]byte, 0, conv.outputSize(n)), in[:n&^3])
		if rerr != nil {
			out = conv.flush(out)
		}
		if stretch != nil {
			out = stretch.process(out[:0:0], out)
			if rerr != nil {
				out = stretch.finish(out)
			}
		}
		if len(out) > 0 {
			total += int64(len(out))
			if total > limit {
				return fmt.Errorf("%w (%v)", ErrTooLong, maxDuration)
			}
			select {
			case s.chunks <- out:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		switch {
		case rerr == nil:
			continue
		case errors.Is(rerr, io.EOF) || errors.Is(rerr, io.ErrUnexpectedEOF):
			if total == 0 {
				return ErrEmpty
			}
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		default:
			return fmt.Errorf("%w: %v", ErrMalformed, rerr)
		}
	}
}

// skipID3 skips ID3v2 tags at the start of r itself. go-mp3 allocates a tag's declared size in
// one piece (up to half a gigabyte for a corrupt header); discarding it as a stream costs nothing.
func skipID3(r io.Reader) (io.Reader, error) {
	for {
		head := make([]byte, 10)
		n, err := io.ReadFull(r, head)
		if n < 10 || string(head[:3]) != "ID3" {
			if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
			}
			return io.MultiReader(bytes.NewReader(head[:n]), r), nil
		}
		var size int64
		for _, b := range head[6:10] {
			if b >= 0x80 {
				return nil, fmt.Errorf("%w: corrupt ID3 tag size", ErrMalformed)
			}
			size = size<<7 | int64(b)
		}
		if head[5]&0x10 != 0 {
			size += 10 // footer
		}
		if m, err := io.CopyN(io.Discard, r, size); err != nil {
			if m < size && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)) {
				return nil, ErrEmpty
			}
			return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
		}
	}
}

// DecodeAll decodes a whole MP3 into PCM of format f, in a goroutine safe against decoder panics.
// It is for tests, tools and short clips; players stream instead.
func DecodeAll(ctx context.Context, r io.Reader, f Format) ([]byte, error) {
	s := NewStream(ctx, r, f)
	defer s.Close()
	return io.ReadAll(s)
}
