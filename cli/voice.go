package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"parley/client"
	"parley/media"
)

// maxInputFile bounds how much of an input audio file is read: an hour of 16-bit 48 kHz stereo WAV.
const maxInputFile = 700 << 20

// maxSpeechText is the longest text the reference service speaks at once.
const maxSpeechText = 4096

func newTranscribeCmd(g *globals) *cobra.Command {
	var raw bool
	var mime string
	cmd := &cobra.Command{
		Use:   "transcribe FILE|- [--raw] [--json]",
		Short: "Turn speech in an audio file into text",
		Long: `Uploads an audio file for speech-to-text and prints the text heard.
WAV and raw PCM (.pcm/.raw: 16 kHz mono 16-bit) are encoded as WebM/Opus first, which is about
15 times smaller; WebM, Ogg, MP3 and FLAC files go as they are. --raw sends the file unchanged.
The service accepts at most 10,000,000 bytes of audio.`,
		Args: exactArgs(1, "an audio file (or - for standard input)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			data, err := g.readInput(name)
			if err != nil {
				return err
			}
			upload, kind := data, mime
			if !raw {
				upload, kind, err = media.PrepareUpload(name, data)
				if errors.Is(err, media.ErrNotAudio) {
					return fmt.Errorf("%s is not an audio file Parley recognises: give WAV, raw PCM (.pcm or .raw, 16 kHz mono 16-bit), WebM, Ogg, MP3 or FLAC, or send it unchanged with --raw", displayName(name))
				}
				if err != nil {
					return fmt.Errorf("%s could not be prepared for upload: %w", displayName(name), err)
				}
			} else if kind == "" {
				if f := media.Sniff(data); f != media.FormatUnknown {
					kind = f.MIME()
				}
			}
			if len(upload) > client.MaxAudioBytes {
				return fmt.Errorf("%s is %s bytes after encoding; the service accepts at most 10,000,000 bytes of audio: send a shorter recording",
					displayName(name), thousands(int64(len(upload))))
			}
			c, err := g.newClient(cmd.Context())
			if err != nil {
				return err
			}
			tr, err := c.Transcribe(cmd.Context(), client.TranscribeRequest{Audio: upload, MIMEType: kind})
			if err != nil {
				return err
			}
			if g.json {
				return writeJSON(g.stdout, tr)
			}
			fmt.Fprintln(g.stdout, tr.Text)
			if tr.Language != "" {
				fmt.Fprintf(g.stderr, "language: %s\n", tr.Language)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&raw, "raw", false, "send the file unchanged")
	cmd.Flags().StringVar(&mime, "type", "", "the audio's media type to declare with --raw (default: detected)")
	return cmd
}

// readInput reads a whole input file, or standard input for "-", up to maxInputFile bytes.
func (g *globals) readInput(name string) ([]byte, error) {
	var r io.Reader
	if name == "-" {
		r = g.stdin
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("opening the input: %w", err)
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, maxInputFile+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", displayName(name), err)
	}
	if len(data) > maxInputFile {
		return nil, fmt.Errorf("%s is larger than %d MiB: split it first", displayName(name), maxInputFile>>20)
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("%s is empty", displayName(name))
	}
	return data, nil
}

func displayName(name string) string {
	if name == "-" {
		return "standard input"
	}
	return name
}

func newSpeakCmd(g *globals) *cobra.Command {
	var voice, out string
	cmd := &cobra.Command{
		Use:   "speak [--voice NAME] [-o FILE|-] TEXT...",
		Short: "Turn text into speech and write the MP3",
		Long: `Asks the service to speak TEXT (or standard input, with '-') and writes the MP3 to FILE,
or to standard output with '-o -' or when standard output is not a terminal.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := g.textArg(args, "text")
			if err != nil {
				return err
			}
			if n := utf8.RuneCountInString(text); n > maxSpeechText {
				return usageErrorf("the text is %d characters long; the service speaks at most %d at once", n, maxSpeechText)
			}
			if out == "" {
				if f, ok := g.stdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
					return usageErrorf("say where the MP3 goes: -o FILE, or -o - for standard output")
				}
				out = "-"
			}
			c, err := g.newClient(cmd.Context())
			if err != nil {
				return err
			}
			sp, err := c.Speak(cmd.Context(), client.SpeechRequest{Text: text, Voice: voice})
			if err != nil {
				return err
			}
			if out == "-" {
				_, err := g.stdout.Write(sp.Audio)
				return err
			}
			if err := writeFileAtomic(out, sp.Audio, 0o644); err != nil {
				return err
			}
			fmt.Fprintf(g.stderr, "Wrote %s (%d bytes, %s).\n", out, len(sp.Audio), sp.MIMEType)
			return nil
		},
	}
	cmd.Flags().StringVar(&voice, "voice", "", "the voice to speak with (default: the service's)")
	cmd.Flags().StringVarP(&out, "output", "o", "", "the MP3 file to write, or - for standard output")
	return cmd
}

// thousands formats n with commas between groups of three digits.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
