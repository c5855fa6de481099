package cli

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"parley/audio"
	"parley/audio/echo"
	"parley/media"
)

func newCancelEchoCmd(g *globals) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "cancel-echo PLAYED.wav HEARD.wav [-o CLEANED.wav]",
		Short: "Remove the echo of what was played from a recording, as voice mode does, and say how much",
		Long: `Removes the echo of PLAYED.wav (what the speakers played) from HEARD.wav (what the microphone
recorded, starting when the playback started) with the echo canceller voice mode uses, and says
how much quieter the echo came out (its echo return loss enhancement, over the second half of the
recording, where the canceller has learned the room). With -o it writes the cleaned recording.

Use it to see what the canceller does with your speakers and microphone: play a reply and record
it at the same time, for example with 'paplay' and 'parecord'. HEARD.wav must be 16 kHz mono (sox
heard.wav -r 16000 -c 1 heard16.wav); PLAYED.wav may be at any rate.`,
		Example: `  parley cancel-echo reply.wav mic.wav -o cleaned.wav`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageErrorf("give two WAV files: what was played, then what the microphone heard")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if out != "" {
				if err := checkOutput(out, "cleaned.wav"); err != nil {
					return err
				}
			}
			played, err := g.readWAV(args[0])
			if err != nil {
				return err
			}
			heard, err := g.readWAV(args[1])
			if err != nil {
				return err
			}
			if heard.Rate != audio.SampleRate || heard.Channels != 1 {
				return phrased(nil, "%s is %d Hz with %d channels; the canceller hears 16 kHz mono: convert it with sox %s -r 16000 -c 1 heard16.wav",
					elastic(displayName(args[1])), heard.Rate, heard.Channels, args[1])
			}
			c, err := echo.New()
			if err != nil {
				return phrased(err, "There is no echo canceller here: %s.", strings.TrimPrefix(err.Error(), echo.ErrUnavailable.Error()+": "))
			}
			defer c.Close()
			var pcm bytes.Buffer
			for _, s := range played.Samples {
				pcm.WriteByte(byte(s))
				pcm.WriteByte(byte(uint16(s) >> 8))
			}
			cleaned := c.Process(pcm.Bytes(), played.Rate, played.Channels, heard.Samples)
			half := len(cleaned) / 2
			erle := echo.ERLE(heard.Samples, cleaned, half, len(cleaned))
			if erle == 0 {
				return phrased(nil, "%s holds no sound in its second half, where the echo is measured: record the microphone while %s plays, from its start.",
					elastic(displayName(args[1])), elastic(displayName(args[0])))
			}
			if out != "" {
				if err := writeFileAtomic(out, media.EncodeWAV(media.PCM{Rate: audio.SampleRate, Channels: 1, Samples: cleaned}), 0o644); err != nil {
					return err
				}
			}
			st := c.Stats()
			if g.json {
				return writeJSON(g.stdout, struct {
					ERLE    float64 `json:"erle_db"`
					DelayMS *int64  `json:"delay_ms"`
				}{erle, delayMS(st)})
			}
			fmt.Fprintf(g.stdout, "The echo came out %.1f dB quieter", erle)
			if st.DelayKnown {
				fmt.Fprintf(g.stdout, " (it reached the microphone %d ms after it was played)", st.Delay.Milliseconds())
			}
			fmt.Fprintln(g.stdout, ".")
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the cleaned recording to this WAV file")
	return cmd
}

func delayMS(st echo.Stats) *int64 {
	if !st.DelayKnown {
		return nil
	}
	ms := st.Delay.Milliseconds()
	return &ms
}

// readWAV reads a WAV file named on the command line.
func (g *globals) readWAV(name string) (media.PCM, error) {
	data, err := g.readInput(name, "a WAV file")
	if err != nil {
		return media.PCM{}, err
	}
	p, err := media.ReadWAV(bytes.NewReader(data))
	if err != nil || p.Frames() == 0 {
		if err == nil {
			err = errors.New("no samples")
		}
		return media.PCM{}, phrased(err, "%s is not a WAV file Parley can read (16-bit, 24-bit or float PCM): %s.", elastic(displayName(name)), clippable(err.Error()))
	}
	return p, nil
}
