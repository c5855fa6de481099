package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"parley/audio"
)

// deviceJSON is one device in `parley devices --json`.
type deviceJSON struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Default bool   `json:"default"`
}

func newDevicesCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "devices [--json]",
		Short: "List the audio inputs and outputs",
		Long: `Lists the microphones (inputs) and speakers (outputs) of the audio system, marking the
default ones with '*'. Give 'parley record --device' an input's ID or part of its name.
Only devices are listed, not the ALSA plugins (rate converters, mixers) listed beside them.
PARLEY_AUDIO_BACKEND (pulse, alsa, jack or null) picks the audio system; by default the first
that answers of PulseAudio and ALSA is used.`,
		Args: g.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			backend, err := g.audioBackend()
			if err != nil {
				return err
			}
			inputs, err := backend.Inputs(cmd.Context())
			if err != nil {
				return err
			}
			outputs, err := backend.Outputs(cmd.Context())
			if err != nil {
				return err
			}
			if len(inputs) == 0 && len(outputs) == 0 {
				return fmt.Errorf("no audio devices found: %w", audio.ErrNoDevice)
			}
			if g.json {
				return writeJSON(g.stdout, map[string]any{
					"backend": backend.String(),
					"inputs":  devicesJSON(inputs),
					"outputs": devicesJSON(outputs),
				})
			}
			printDevices(g.stdout, "Inputs", inputs)
			printDevices(g.stdout, "Outputs", outputs)
			return nil
		},
	}
}

// audioBackend is the audio system PARLEY_AUDIO_BACKEND picks, or miniaudio's default order.
func (g *globals) audioBackend() (audio.Backend, error) {
	backend, ok := audio.ParseBackend(g.getenv(audio.BackendEnv))
	if !ok {
		return backend, usageErrorf("%s=%q is not an audio system: use pulse, alsa, jack or null", audio.BackendEnv, g.getenv(audio.BackendEnv))
	}
	return backend, nil
}

func devicesJSON(devs []audio.Device) []deviceJSON {
	out := make([]deviceJSON, len(devs))
	for i, d := range devs {
		out[i] = deviceJSON{ID: d.ID, Name: d.Name, Default: d.Default}
	}
	return out
}

// printDevices writes one section of the device list: '*' marks the default.
func printDevices(w io.Writer, title string, devs []audio.Device) {
	fmt.Fprintf(w, "%s:\n", title)
	if len(devs) == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	for _, d := range devs {
		mark := " "
		if d.Default {
			mark = "*"
		}
		fmt.Fprintf(w, "%s %s\n    id: %s\n", mark, d.Name, d.ID)
	}
}
