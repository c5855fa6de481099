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
)

func newPlayCmd(g *globals) *cobra.Command {
	var volume float64
	cmd := &cobra.Command{
		Use:   "play FILE|- [--volume V]",
		Short: "Play an MP3 file, or a file holding an MP3 data URI",
		Long: `Plays an MP3 file, or a file holding a data URI of one ("data:audio/mpeg;base64,...",
as the speech service returns it), on the default audio output, and returns when it has been
heard to its end. '-' reads standard input. Ctrl-C stops it.`,
		Args: exactArgs(1, "an MP3 file or a file holding a data URI (or - for standard input)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if volume < 0 || volume > 1 {
				return usageErrorf("--volume must be between 0 and 1, not %v", volume)
			}
			name := args[0]
			data, err := g.readInput(name)
			if err != nil {
				return err
			}
			played, err := playClip(cmd.Context(), data, volume)
			switch {
			case errors.Is(err, playback.ErrMalformed), errors.Is(err, playback.ErrEmpty), errors.Is(err, playback.ErrDataURI):
				return fmt.Errorf("%s is not a playable MP3 or MP3 data URI (%w)", displayName(name), err)
			case errors.Is(err, playback.ErrTooLong):
				return fmt.Errorf("%s is too long to play: %w (%v); parley play is for speech clips", displayName(name), err, playback.MaxDuration)
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
	return cmd
}

// playClip plays an MP3, given as bytes or as a data URI, and returns when it has been heard to
// its end, or ctx is done. It returns how much audio played.
func playClip(ctx context.Context, data []byte, volume float64) (time.Duration, error) {
	open := func() (io.Reader, error) { return bytes.NewReader(data), nil }
	if head := bytes.TrimSpace(data[:min(len(data), 64)]); len(head) >= 5 && strings.EqualFold(string(head[:5]), "data:") {
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
