package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"parley/audio/playback"
	"parley/media"
)

func newPlayCmd(g *globals) *cobra.Command {
	var volume, speed float64
	cmd := &cobra.Command{
		Use:   "play FILE|- [--volume V] [--speed S]",
		Short: "Play an MP3 file, or a file holding an MP3 data URI",
		Long: `Plays an MP3 file, or a file holding a data URI of one ("data:audio/mpeg;base64,...",
as the speech service returns it), on the default audio output, and returns when it has been
heard to its end. '-' reads standard input. Ctrl-C stops it.`,
		Args: wantOne("an MP3 file", ", or - for standard input"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if volume < 0 || volume > 1 {
				return usageErrorf("--volume must be between 0 and 1, not %v", volume)
			}
			if err := checkSpeed(speed); err != nil {
				return err
			}
			name := args[0]
			data, err := g.readInput(name, "an MP3 file")
			if err != nil {
				return err
			}
			played, err := playClip(cmd.Context(), g, data, volume, speed)
			switch {
			case errors.Is(err, playback.ErrMalformed), errors.Is(err, playback.ErrEmpty), errors.Is(err, playback.ErrDataURI):
				return unplayable(name, data, err)
			case errors.Is(err, playback.ErrTooLong):
				return phrased(err, "%s lasts longer than %v: parley play is for speech clips.", elastic(displayName(name)), playback.MaxDuration)
			case err != nil:
				return err
			}
			if g.json {
				return writeJSON(g.stdout, struct {
					File    string  `json:"file"`
					Seconds float64 `json:"seconds"`
				}{name, played.Seconds()})
			}
			fmt.Fprintf(g.stderr, "Played %s (%.1f s).\n", displayName(name), played.Seconds())
			return nil
		},
	}
	cmd.Flags().Float64Var(&volume, "volume", 1, "the volume, from 0 (silent) to 1 (as recorded)")
	cmd.Flags().Float64Var(&speed, "speed", 1, "how fast, from 0.75 to 2 times as recorded, the pitch kept")
	return cmd
}

// unplayable says why the clip in data, read from name, cannot be played: it is another kind
// of audio, a damaged MP3, or no audio at all. The decoder's own words stay out of it.
func unplayable(name string, data []byte, err error) error {
	shown := elastic(displayName(name))
	f := media.Sniff(data)
	switch {
	case errors.Is(err, playback.ErrDataURI):
		return phrased(err, "%s holds a data URI that is not base64 audio: give an MP3, or a data URI of one.", shown)
	case isDataURI(data):
		return phrased(err, "The data URI in %s does not hold a playable MP3: parley play plays MP3 (the service's speech).", shown)
	case f == media.FormatMP3 && errors.Is(err, playback.ErrEmpty):
		return phrased(err, "%s holds no MP3 audio.", shown)
	case f == media.FormatMP3:
		return phrased(err, "%s is a damaged MP3 file: it cannot be decoded.", shown)
	case f != media.FormatUnknown:
		return phrased(err, "%s is %s file; parley play plays MP3 (the service's speech).", shown, formatName(f))
	}
	return phrased(err, "%s is not an MP3 file; parley play plays MP3 (the service's speech), or a data URI of one.", shown)
}

// formatName names an audio container with its article: "a WAV", "an Ogg".
func formatName(f media.Format) string {
	switch f {
	case media.FormatWAV:
		return "a WAV"
	case media.FormatWebM:
		return "a WebM"
	case media.FormatOgg:
		return "an Ogg"
	case media.FormatFLAC:
		return "a FLAC"
	}
	return "an " + strings.ToUpper(f.String())
}

// isDataURI reports whether data starts with "data:", after leading white space.
func isDataURI(data []byte) bool {
	head := bytes.TrimSpace(data[:min(len(data), 64)])
	return len(head) >= 5 && strings.EqualFold(string(head[:5]), "data:")
}

// playClip plays an MP3, given as bytes or as a data URI, and returns when it has been heard to
// its end, or ctx is done. It returns how much audio played.
func playClip(ctx context.Context, g *globals, data []byte, volume, speed float64) (time.Duration, error) {
	open := func() (io.Reader, error) { return bytes.NewReader(data), nil }
	if isDataURI(data) {
		uri := string(data)
		open = func() (io.Reader, error) { return playback.OpenDataURI(uri) }
	}
	// Say what is wrong with the input before touching the device: that is what the person can
	// fix here, and a file that is not audio must not wait on, or stir up, the audio system.
	if err := checkClip(ctx, open); err != nil {
		return 0, err
	}
	if err := playback.OpenOutput(); err != nil {
		return 0, err
	}
	r, err := open()
	if err != nil {
		return 0, err
	}
	type ended struct {
		err    error
		played time.Duration
	}
	done := make(chan ended, 1)
	p := playback.New(func(e playback.Event) {
		if e.Kind == playback.ClipEnded {
			done <- ended{e.Err, e.Played}
		}
	})
	defer p.Close()
	p.SetVolume(volume)
	setSpeed(g, p, speed)
	if _, err := p.Enqueue(r); err != nil {
		return 0, err
	}
	select {
	case e := <-done:
		if e.err != nil {
			return e.played, e.err
		}
		// ClipEnded comes when the last PCM left the player; the device still holds a little.
		select {
		case <-time.After(playback.DrainTime):
		case <-ctx.Done():
		}
		return e.played, nil
	case <-ctx.Done():
		p.Stop()
		return 0, ctx.Err()
	}
}

// checkClip decodes the start of the clip without playing it, up to its first audio, and returns
// why it cannot be played, if it cannot. A clip damaged further on fails while it plays.
func checkClip(ctx context.Context, open func() (io.Reader, error)) error {
	r, err := open()
	if err != nil {
		return err
	}
	s := playback.NewStream(ctx, r, playback.OutputFormat)
	defer s.Close()
	_, err = s.Read(make([]byte, 1))
	return err
}

// checkSpeed refuses a --speed out of range.
func checkSpeed(speed float64) error {
	if !(speed >= playback.MinSpeed && speed <= playback.MaxSpeed) {
		return usageErrorf("--speed must be between %v and %v, not %v", playback.MinSpeed, playback.MaxSpeed, speed)
	}
	return nil
}

// setSpeed gives the player the speed asked for, and says on standard error when it cannot be
// had, so that a person knows why the speech is not faster.
func setSpeed(g *globals, p *playback.Player, speed float64) {
	p.SetSpeed(speed)
	if speed == 1 {
		return
	}
	if err := playback.SpeedAvailable(); err != nil {
		fmt.Fprintf(g.stderr, "The speech plays at the speed it was made: %s.\n", strings.TrimPrefix(err.Error(), playback.ErrNoSpeed.Error()+": "))
	}
}
