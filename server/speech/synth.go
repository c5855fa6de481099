package speech

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

// lameArgv is the command that encodes the WAV on lame's stdin to MP3 on its stdout: mono, VBR
// quality 6 at the input's sample rate (22050 Hz from espeak-ng, 16000 Hz from flite), and -q 7,
// lame's fast algorithm, which speech does not need more than. A rate below minMP3Rate (when
// known: 0 is not) is resampled to it.
func lameArgv(lame string, rate int) []string {
	argv := []string{lame, "--quiet", "-m", "m", "-V", strconv.Itoa(lameVBRQuality), "-q", strconv.Itoa(lameQuality)}
	if rate != 0 && rate < minMP3Rate {
		argv = append(argv, "--resample", strconv.Itoa(minMP3Rate/1000))
	}
	return append(argv, "-", "-")
}

// minMP3Rate is the lowest sample rate of the MP3 made: lower rates are MPEG 2.5, which many
// decoders (go-mp3 among them, and so Parley's own player) cannot play. flite's kal voice
// speaks at 8000 Hz and is resampled.
const minMP3Rate = 16000

// lame's VBR quality (-V) and algorithm quality (-q), for the program and the library alike.
const (
	lameVBRQuality = 6
	lameQuality    = 7
)

// maxInProcessRunes is the longest text spoken in this process. A longer one runs flite's
// program, which a timeout can stop and which runs beside others: the library's call cannot be
// interrupted, and its calls are made one at a time (600 digits take flite 3 s). The voice
// loop's sentences are shorter.
const maxInProcessRunes = 300

// errNoSynthLibrary is why flite's voices are not spoken in this process.
var errNoSynthLibrary = errors.New("libflite or libmp3lame is not available")

// maxWAV bounds a WAV file passed between programs: MaxTextRunes of slow speech at 22050 Hz is
// well under it.
const maxWAV = 128 << 20

// localVoice is one voice of a local synthesiser program: its listing, the command that speaks
// with it (the text goes on stdin, the WAV comes out on stdout) and how to tell the program is
// missing.
type localVoice struct {
	Voice
	// argv is the program and its arguments.
	argv []string
	// fileRate, when not 0, means the program writes its WAV to a file named by one more
	// argument, not to stdout (flite rereads the WAV it writes to update its header, which a pipe
	// cannot give), and that the WAV is mono 16-bit PCM at this many samples a second.
	fileRate int
	// check reports, as an *EngineMissingError, that the program is not installed.
	check func() error
	// inProcess, when not nil, speaks with the voice in this process, MP3 out, instead of
	// running argv and lame.
	inProcess func(ctx context.Context, text string) ([]byte, error)
}

// localSynth speaks with local programs, a synthesiser piped into lame, at most one pair per
// core at a time. Its voices are fixed at construction, the default first.
type localSynth struct {
	voices  []localVoice
	lame    string
	timeout time.Duration
	sem     semaphore
}

// newLocalSynth returns a localSynth offering voices, with the one named def first; an unknown
// def leaves voices in their order.
func newLocalSynth(voices []localVoice, def, lame string, timeout time.Duration) *localSynth {
	s := &localSynth{lame: lame, timeout: timeout, sem: newSemaphore()}
	for _, v := range voices {
		if v.Name == def {
			s.voices = append(s.voices, v)
		}
	}
	for _, v := range voices {
		if v.Name != def {
			s.voices = append(s.voices, v)
		}
	}
	return s
}

func (s *localSynth) Voices() []Voice {
	out := make([]Voice, len(s.voices))
	for i, v := range s.voices {
		out[i] = v.Voice
	}
	return out
}

func (s *localSynth) voice(name string) (localVoice, bool) {
	for _, v := range s.voices {
		if v.Name == name {
			return v, true
		}
	}
	return localVoice{}, false
}

func (s *localSynth) Synthesize(ctx context.Context, text, voice string) ([]byte, error) {
	if err := checkText(text); err != nil {
		return nil, err
	}
	if voice == "" && len(s.voices) > 0 {
		voice = s.voices[0].Name
	}
	v, ok := s.voice(voice)
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownVoice, voice)
	}
	if v.inProcess != nil && utf8.RuneCountInString(text) <= maxInProcessRunes {
		mp3, err := s.speakInProcess(ctx, v, text)
		if !errors.Is(err, errNoSynthLibrary) {
			return mp3, err
		} // the libraries do not load on this machine: the programs speak
	}
	if err := v.check(); err != nil {
		return nil, err
	}
	if _, err := exec.LookPath(s.lame); err != nil {
		return nil, &EngineMissingError{Engine: s.lame, Package: "lame", Purpose: "speech synthesis"}
	}
	if err := s.sem.acquire(ctx); err != nil {
		return nil, err
	}
	defer s.sem.release()

	// The text goes on stdin, never in argv, so that text starting with "-" is not taken for an
	// option and no other user sees it in the process list.
	argv, lame := v.argv, lameArgv(s.lame, v.fileRate)
	var file *wavFile
	if v.fileRate != 0 {
		dir, err := os.MkdirTemp("", "parley-speech-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		file = &wavFile{path: filepath.Join(dir, "speech.wav"), rate: v.fileRate}
		argv = append(slices.Clip(argv), file.path)
	}
	mp3, err := pipe(ctx, s.timeout, strings.NewReader(text), maxMP3, argv, lame, file)
	if errors.Is(err, errWAVFormat) {
		// Not the format lame was told of: encode the file as it is, lame reading its header.
		var wav []byte
		if wav, err = readWAV(file.path); err == nil {
			mp3, err = run(ctx, s.timeout, bytes.NewReader(wav), maxMP3, lame[0], lame[1:]...)
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, &UpstreamError{Op: "synthesize", Err: err}
	}
	if len(mp3) == 0 {
		return nil, &UpstreamError{Op: "synthesize", Err: fmt.Errorf("%s produced no audio", s.lame)}
	}
	return mp3, nil
}

// speakInProcess speaks text with v's in-process synthesiser, bounded by the synthesiser's
// timeout and ctx. The library's call cannot be interrupted: on a timeout or a cancel it
// returns at once, and the call finishes on its own. It takes no slot of s.sem: the library
// makes one call at a time (one core at most), and a call waiting for it must not keep a
// program's slot idle.
func (s *localSynth) speakInProcess(ctx context.Context, v localVoice, text string) ([]byte, error) {
	parent := ctx
	// cancel is the caller's alone: were the call's goroutine to cancel ctx as it ends, the
	// select below would see its result and ctx.Done() at once, and pick either.
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	type result struct {
		mp3 []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		mp3, err := v.inProcess(ctx, text)
		done <- result{mp3, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			if parent.Err() != nil {
				return nil, parent.Err()
			}
			if errors.Is(r.err, errNoSynthLibrary) {
				return nil, r.err
			}
			return nil, &UpstreamError{Op: "synthesize", Err: r.err}
		}
		return r.mp3, nil
	case <-ctx.Done():
		if parent.Err() != nil {
			return nil, parent.Err()
		}
		return nil, &UpstreamError{Op: "synthesize", Err: fmt.Errorf("no speech after %s", s.timeout)}
	}
}

// wavFile is the WAV file a speech program writes, in a format known before it is written.
type wavFile struct {
	path string
	// rate is its samples a second; it is mono, 16-bit PCM.
	rate int
}

// pipe runs a speech program and an encoder (never through a shell), started together so that
// the encoder's start-up overlaps the speech program's work. stdin feeds the speech program; its
// WAV goes to the encoder's stdin through a pipe, so that it never passes through this process.
// When file is not nil, the speech program writes its WAV to that file instead: the encoder is
// given a WAV header of file's format at once (lame prepares its encoder once it has read the
// header, about 20 ms), and the samples when the speech program is done; a file of another
// format is errWAVFormat. Both programs are bounded by timeout and ctx. It returns at most maxOut
// bytes of the encoder's stdout; more is an error. A failure names the program that failed,
// with its stderr (bounded).
func pipe(ctx context.Context, timeout time.Duration, stdin io.Reader, maxOut int, speak, encode []string, file *wavFile) ([]byte, error) {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer w.Close()
	a := exec.CommandContext(ctx, speak[0], speak[1:]...)
	b := exec.CommandContext(ctx, encode[0], encode[1:]...)
	a.WaitDelay, b.WaitDelay = 2*time.Second, 2*time.Second
	aErr, bErr := &cappedBuffer{max: maxStderr}, &cappedBuffer{max: maxStderr}
	out := &cappedBuffer{max: maxOut}
	a.Stdin, a.Stdout, a.Stderr = stdin, w, aErr
	if file != nil {
		a.Stdout = aErr
	}
	b.Stdin, b.Stdout, b.Stderr = r, out, bErr
	err = b.Start()
	r.Close() // b holds its own copy
	if err != nil {
		return nil, fmt.Errorf("%s: %w", encode[0], err)
	}
	err = a.Start()
	if file == nil {
		w.Close() // a holds its own copy: b sees the end of its input when a exits
	} else {
		w.Write(streamingWAVHeader(file.rate)) // a failure shows when the samples are written
	}
	if err != nil {
		b.Process.Kill()
		b.Wait()
		return nil, fmt.Errorf("%s: %w", speak[0], err)
	}
	errA := a.Wait()
	if errA == nil && file != nil {
		errA = copyPCM(w, *file)
	}
	w.Close()
	if errA != nil {
		b.Process.Kill() // its input is incomplete
	}
	errB := b.Wait()
	if err := parent.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", speak[0], err)
	}
	if errors.Is(errA, errWAVFormat) {
		return nil, errA
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s took longer than %v: %w", speak[0]+" | "+encode[0], timeout, err)
	}
	if errB != nil && (brokenPipe(errA) || errors.Is(errA, syscall.EPIPE)) {
		// The encoder failed first, and the WAV could not be written to it: say why it failed.
		errA = nil
	}
	if err := failure(speak[0], errA, aErr); err != nil {
		return nil, err
	}
	if err := failure(encode[0], errB, bErr); err != nil {
		return nil, err
	}
	if out.exceeded() {
		return nil, fmt.Errorf("%s: output longer than %d bytes", encode[0], maxOut)
	}
	return out.buf.Bytes(), nil
}

// errWAVFormat reports a speech program's WAV that is not in the format expected of it.
var errWAVFormat = errors.New("the WAV is not in the expected format")

// streamingWAVHeader is the header of a mono 16-bit PCM WAV of unknown length at rate, as
// espeak-ng writes one to a pipe (its sizes near 2 GB).
func streamingWAVHeader(rate int) []byte {
	const unknown = 0x7ffff000
	h := make([]byte, 0, 44)
	h = append(h, "RIFF"...)
	h = binary.LittleEndian.AppendUint32(h, unknown+36)
	h = append(h, "WAVEfmt "...)
	h = binary.LittleEndian.AppendUint32(h, 16)
	h = binary.LittleEndian.AppendUint16(h, 1) // PCM
	h = binary.LittleEndian.AppendUint16(h, 1) // mono
	h = binary.LittleEndian.AppendUint32(h, uint32(rate))
	h = binary.LittleEndian.AppendUint32(h, uint32(rate*2))
	h = binary.LittleEndian.AppendUint16(h, 2)
	h = binary.LittleEndian.AppendUint16(h, 16)
	h = append(h, "data"...)
	return binary.LittleEndian.AppendUint32(h, unknown)
}

// readWAV reads the WAV file at path, at most maxWAV bytes.
func readWAV(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxWAV+1))
	if err == nil && len(b) > maxWAV {
		err = fmt.Errorf("%s: WAV longer than %d bytes", path, maxWAV)
	}
	return b, err
}

// copyPCM copies the samples of the WAV file f to w; errWAVFormat when it is not mono 16-bit
// PCM at f.rate.
func copyPCM(w io.Writer, f wavFile) error {
	b, err := readWAV(f.path)
	if err != nil {
		return err
	}
	pcm, err := wavSamples(b, f.rate)
	if err != nil {
		return err
	}
	_, err = w.Write(pcm)
	return err
}

// wavSamples returns the samples of the WAV file b (its data chunk, cut at the end of b), or
// errWAVFormat when b is not a mono 16-bit PCM WAV at rate.
func wavSamples(b []byte, rate int) ([]byte, error) {
	if len(b) < 12 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return nil, fmt.Errorf("%w: not a WAV file", errWAVFormat)
	}
	fmtOK := false
	for pos := 12; pos+8 <= len(b); {
		id, size := string(b[pos:pos+4]), int64(binary.LittleEndian.Uint32(b[pos+4:]))
		body := b[pos+8:]
		if size < int64(len(body)) {
			body = body[:size]
		}
		switch id {
		case "fmt ":
			fmtOK = len(body) >= 16 && binary.LittleEndian.Uint16(body) == 1 &&
				binary.LittleEndian.Uint16(body[2:]) == 1 && binary.LittleEndian.Uint32(body[4:]) == uint32(rate) &&
				binary.LittleEndian.Uint16(body[14:]) == 16
			if !fmtOK {
				return nil, fmt.Errorf("%w: not mono 16-bit PCM at %d Hz", errWAVFormat, rate)
			}
		case "data":
			if !fmtOK {
				return nil, fmt.Errorf("%w: no format before the samples", errWAVFormat)
			}
			return body[:len(body)&^1], nil
		}
		pos += 8 + int(min(size, int64(len(b)))) + int(size&1)
	}
	return nil, fmt.Errorf("%w: no samples", errWAVFormat)
}

// failure describes a program's failed run with its stderr; nil when err is nil.
func failure(name string, err error, stderr *cappedBuffer) error {
	if err == nil {
		return nil
	}
	if msg := strings.TrimSpace(stderr.buf.String()); msg != "" {
		return fmt.Errorf("%s: %w: %s", name, err, msg)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// brokenPipe reports whether err is a program's death by SIGPIPE (it wrote to a pipe nobody read).
func brokenPipe(err error) bool {
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return false
	}
	ws, ok := exit.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGPIPE
}
