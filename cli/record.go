package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"parley/audio"
	"parley/audio/vad"
)

// recordOptions is what parley record was asked for, from its flags.
type recordOptions struct {
	device  string
	seconds float64
	useVAD  bool
	hold    time.Duration
	out     string
	// secondsSet and holdSet say whether --seconds and --hold were given.
	secondsSet, holdSet bool
}

func newRecordCmd(g *globals) *cobra.Command {
	o := &recordOptions{}
	cmd := &cobra.Command{
		Use:   "record [--device D] [--seconds N | --vad [--hold 0.9s]] -o FILE",
		Short: "Record from the microphone to a WebM/Opus or WAV file",
		Long: `Records from the default input, or the one --device names (an ID or part of a name from
'parley devices'), to FILE: WebM/Opus (16 kbit/s, what 'parley transcribe' uploads), or 16 kHz
mono WAV when FILE ends in .wav.

It records for --seconds, or with --vad from when you start speaking until you stop for --hold
(0.3 to 5 s), or else until Ctrl-C. Ctrl-C always stops and keeps what was recorded. With --vad,
hearing no speech writes nothing and exits 1.`,
		Args: g.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.secondsSet = cmd.Flags().Changed("seconds")
			o.holdSet = cmd.Flags().Changed("hold")
			if err := o.validate(); err != nil {
				return err
			}
			return runRecord(cmd.Context(), g, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.device, "device", "", "the input: an ID or part of a name from 'parley devices' (default: the system's)")
	f.Float64Var(&o.seconds, "seconds", 0, "record this many seconds")
	f.BoolVar(&o.useVAD, "vad", false, "record from the start of speech to the end of it")
	f.DurationVar(&o.hold, "hold", vad.DefaultHold, "with --vad, the silence that ends the recording (0.3s to 5s)")
	f.StringVarP(&o.out, "output", "o", "", "the file to write: WebM/Opus, or WAV when it ends in .wav")
	return cmd
}

// validate refuses an output that cannot be written, and flags out of range or at odds with
// each other.
func (o *recordOptions) validate() error {
	if o.out == "" {
		return usageErrorf("say where the recording goes: -o FILE (.webm, or .wav for WAV)")
	}
	ext := strings.ToLower(filepath.Ext(o.out))
	if ext != ".webm" && ext != ".wav" {
		return usageErrorf("-o %s: parley record writes WebM/Opus or WAV, so name the file .webm or .wav", elastic(o.out))
	}
	if err := checkOutput(o.out, "take.webm"); err != nil {
		return err
	}
	if o.secondsSet && o.useVAD {
		return usageErrorf("--seconds and --vad both say when to stop: give one of them")
	}
	if o.secondsSet && (o.seconds <= 0 || o.seconds > 3600) {
		return usageErrorf("--seconds must be between 0 and 3600, not %v", o.seconds)
	}
	if o.holdSet && !o.useVAD {
		return usageErrorf("--hold is the silence that ends a --vad recording: add --vad")
	}
	if o.hold < vad.MinHold || o.hold > vad.MaxHold {
		return usageErrorf("--hold must be between %v and %v, not %v", vad.MinHold, vad.MaxHold, o.hold)
	}
	return nil
}

// maxDuration is how long --seconds lets the recording run, 0 for no limit.
func (o *recordOptions) maxDuration() time.Duration {
	return time.Duration(o.seconds * float64(time.Second))
}

// takeOptions is what the recorder is asked for.
func (o *recordOptions) takeOptions() audio.TakeOptions {
	opts := audio.TakeOptions{
		Device:      o.device,
		VAD:         o.useVAD,
		VADConfig:   vad.Config{Hold: o.hold},
		MaxDuration: o.maxDuration(),
	}
	if strings.ToLower(filepath.Ext(o.out)) == ".wav" {
		opts.Encoding = audio.EncodingWAV
	}
	return opts
}

// banner tells the person that the recording runs, and what stops it.
func (o *recordOptions) banner() string {
	switch {
	case o.useVAD:
		return fmt.Sprintf("Listening: speak now; recording stops after %v of silence (Ctrl-C stops it sooner).", o.hold)
	case o.maxDuration() > 0:
		return fmt.Sprintf("Recording for %v (Ctrl-C stops it sooner).", o.maxDuration())
	default:
		return "Recording: press Ctrl-C to stop."
	}
}

// runRecord records a take as o says, writes it to o.out and says what was written. A take cut
// short by an error is still written when it holds speech; the error is returned after.
func runRecord(ctx context.Context, g *globals, o *recordOptions) error {
	backend, err := g.audioBackend()
	if err != nil {
		return err
	}
	take, err := recordAnnounced(ctx, g, backend, o.takeOptions(), o.banner())
	if take == nil {
		if o.device != "" && errors.Is(err, audio.ErrNoDevice) && noInputMatches(ctx, backend, o.device) {
			return &noSuchInputError{name: o.device}
		}
		return err
	}
	if o.useVAD && take.Empty() {
		if err != nil {
			return err
		}
		return fmt.Errorf("no speech heard (%s); nothing was written", take.Reason)
	}
	if err != nil && take.Empty() {
		return err
	}
	if werr := writeFileAtomic(o.out, take.Audio, 0o644); werr != nil {
		return werr
	}
	if werr := reportTake(g, o.out, take); werr != nil {
		return werr
	}
	return err
}

// recordAnnounced records a take, printing banner on standard error once the device delivers
// audio, not before it has opened.
func recordAnnounced(ctx context.Context, g *globals, backend audio.Backend, opts audio.TakeOptions, banner string) (*audio.Take, error) {
	levels := make(chan audio.Level, 4)
	opts.Levels = levels
	announced := make(chan struct{})
	go func() {
		defer close(announced)
		first := true
		for range levels {
			if first {
				fmt.Fprintln(g.stderr, banner)
				first = false
			}
		}
	}()
	take, err := audio.NewRecorder(backend).Record(ctx, opts)
	close(levels)
	<-announced
	return take, err
}

// reportTake says what was written to out: a JSON object on standard output with --json, and
// a line on standard error.
func reportTake(g *globals, out string, take *audio.Take) error {
	if g.json {
		if err := writeJSON(g.stdout, struct {
			File    string  `json:"file"`
			MIME    string  `json:"mime_type"`
			Seconds float64 `json:"seconds"`
			Bytes   int     `json:"bytes"`
			Speech  bool    `json:"speech"`
			Reason  string  `json:"stop_reason"`
		}{out, take.MIME, take.Duration.Seconds(), len(take.Audio), take.Speech, take.Reason.String()}); err != nil {
			return err
		}
	}
	fmt.Fprintf(g.stderr, "Wrote %s: %.1f s, %s bytes (%s), stopped: %s.\n",
		out, take.Duration.Seconds(), thousands(int64(len(take.Audio))), take.MIME, take.Reason)
	if take.Empty() {
		fmt.Fprintln(g.stderr, "No speech was heard in it.")
	}
	return nil
}

// noInputMatches reports whether the backend lists inputs and none of them matches name the way
// --device is matched (an ID or a name, or part of one, in any case): a device that is not there,
// rather than an audio system that is not.
func noInputMatches(ctx context.Context, backend audio.Backend, name string) bool {
	inputs, err := backend.Inputs(ctx)
	if err != nil || len(inputs) == 0 {
		return false
	}
	want := strings.ToLower(strings.TrimSpace(name))
	for _, d := range inputs {
		if strings.Contains(strings.ToLower(d.ID), want) || strings.Contains(strings.ToLower(d.Name), want) {
			return false
		}
	}
	return true
}
