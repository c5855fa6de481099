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

func newRecordCmd(g *globals) *cobra.Command {
	var (
		device  string
		seconds float64
		useVAD  bool
		hold    time.Duration
		out     string
	)
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
			if out == "" {
				return usageErrorf("say where the recording goes: -o FILE (.webm, or .wav for WAV)")
			}
			ext := strings.ToLower(filepath.Ext(out))
			if ext != ".webm" && ext != ".wav" {
				return usageErrorf("-o %s: parley record writes WebM/Opus or WAV, so name the file .webm or .wav", elastic(out))
			}
			if err := checkOutput(out, "take.webm"); err != nil {
				return err
			}
			if cmd.Flags().Changed("seconds") && useVAD {
				return usageErrorf("--seconds and --vad both say when to stop: give one of them")
			}
			if cmd.Flags().Changed("seconds") && (seconds <= 0 || seconds > 3600) {
				return usageErrorf("--seconds must be between 0 and 3600, not %v", seconds)
			}
			if cmd.Flags().Changed("hold") && !useVAD {
				return usageErrorf("--hold is the silence that ends a --vad recording: add --vad")
			}
			if hold < vad.MinHold || hold > vad.MaxHold {
				return usageErrorf("--hold must be between %v and %v, not %v", vad.MinHold, vad.MaxHold, hold)
			}
			backend, err := g.audioBackend()
			if err != nil {
				return err
			}
			opts := audio.TakeOptions{
				Device:      device,
				VAD:         useVAD,
				VADConfig:   vad.Config{Hold: hold},
				MaxDuration: time.Duration(seconds * float64(time.Second)),
			}
			if ext == ".wav" {
				opts.Encoding = audio.EncodingWAV
			}
			var banner string
			switch {
			case useVAD:
				banner = fmt.Sprintf("Listening: speak now; recording stops after %v of silence (Ctrl-C stops it sooner).", hold)
			case opts.MaxDuration > 0:
				banner = fmt.Sprintf("Recording for %v (Ctrl-C stops it sooner).", opts.MaxDuration)
			default:
				banner = "Recording: press Ctrl-C to stop."
			}
			// Say so once the device delivers audio, not before it has opened.
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
			take, err := audio.NewRecorder(backend).Record(cmd.Context(), opts)
			close(levels)
			<-announced
			if take == nil {
				if device != "" && errors.Is(err, audio.ErrNoDevice) && noInputMatches(cmd.Context(), backend, device) {
					return &noSuchInputError{name: device}
				}
				return err
			}
			if useVAD && take.Empty() {
				if err != nil {
					return err
				}
				return fmt.Errorf("no speech heard (%s); nothing was written", take.Reason)
			}
			if err != nil && take.Empty() {
				return err
			}
			if werr := writeFileAtomic(out, take.Audio, 0o644); werr != nil {
				return werr
			}
			if g.json {
				if jerr := writeJSON(g.stdout, struct {
					File    string  `json:"file"`
					MIME    string  `json:"mime_type"`
					Seconds float64 `json:"seconds"`
					Bytes   int     `json:"bytes"`
					Speech  bool    `json:"speech"`
					Reason  string  `json:"stop_reason"`
				}{out, take.MIME, take.Duration.Seconds(), len(take.Audio), take.Speech, take.Reason.String()}); jerr != nil {
					return jerr
				}
			}
			fmt.Fprintf(g.stderr, "Wrote %s: %.1f s, %s bytes (%s), stopped: %s.\n",
				out, take.Duration.Seconds(), thousands(int64(len(take.Audio))), take.MIME, take.Reason)
			if take.Empty() {
				fmt.Fprintln(g.stderr, "No speech was heard in it.")
			}
			if err != nil {
				return err
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&device, "device", "", "the input: an ID or part of a name from 'parley devices' (default: the system's)")
	f.Float64Var(&seconds, "seconds", 0, "record this many seconds")
	f.BoolVar(&useVAD, "vad", false, "record from the start of speech to the end of it")
	f.DurationVar(&hold, "hold", vad.DefaultHold, "with --vad, the silence that ends the recording (0.3s to 5s)")
	f.StringVarP(&out, "output", "o", "", "the file to write: WebM/Opus, or WAV when it ends in .wav")
	return cmd
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
