package speech

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// lameArgs encode the WAV on lame's stdin to MP3 on its stdout: mono, VBR quality 6 at the
// input's sample rate (22050 Hz from espeak-ng, 16000 Hz from flite), and -q 7, lame's fast
// algorithm, which speech does not need more than.
var lameArgs = []string{"--quiet", "-m", "m", "-V", "6", "-q", "7", "-", "-"}

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
	// toFile means the program writes its WAV to a file named by one more argument, not to
	// stdout (flite rereads the WAV it writes to update its header, which a pipe cannot give).
	toFile bool
	// check reports, as an *EngineMissingError, that the program is not installed.
	check func() error
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
	argv, wavFile := v.argv, ""
	if v.toFile {
		dir, err := os.MkdirTemp("", "parley-speech-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		wavFile = filepath.Join(dir, "speech.wav")
		argv = append(slices.Clip(argv), wavFile)
	}
	mp3, err := pipe(ctx, s.timeout, strings.NewReader(text), maxMP3, argv, append([]string{s.lame}, lameArgs...), wavFile)
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

// pipe runs a speech program and an encoder (never through a shell), started together so that
// the encoder's start-up overlaps the speech program's work. stdin feeds the speech program; its
// WAV goes to the encoder's stdin through a pipe, so that it never passes through this process,
// or, when wavFile is not "", through that file, which the speech program writes and this
// process then copies (at most maxWAV bytes) into the encoder. Both are bounded by timeout and
// ctx. It returns at most maxOut bytes of the encoder's stdout; more is an error. A failure names
// the program that failed, with its stderr (bounded).
func pipe(ctx context.Context, timeout time.Duration, stdin io.Reader, maxOut int, speak, encode []string, wavFile string) ([]byte, error) {
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
	if wavFile != "" {
		a.Stdout = aErr
	}
	b.Stdin, b.Stdout, b.Stderr = r, out, bErr
	err = b.Start()
	r.Close() // b holds its own copy
	if err != nil {
		return nil, fmt.Errorf("%s: %w", encode[0], err)
	}
	err = a.Start()
	if wavFile == "" {
		w.Close() // a holds its own copy: b sees the end of its input when a exits
	}
	if err != nil {
		b.Process.Kill()
		b.Wait()
		return nil, fmt.Errorf("%s: %w", speak[0], err)
	}
	errA := a.Wait()
	if errA == nil && wavFile != "" {
		errA = copyWAV(w, wavFile)
	}
	w.Close()
	if errA != nil {
		b.Process.Kill() // its input is incomplete
	}
	errB := b.Wait()
	if err := parent.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", speak[0], err)
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

// copyWAV copies the WAV file at path, at most maxWAV bytes of it, to w.
func copyWAV(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	n, err := io.Copy(w, io.LimitReader(f, maxWAV+1))
	if err == nil && n > maxWAV {
		err = fmt.Errorf("%s: WAV longer than %d bytes", path, maxWAV)
	}
	return err
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
