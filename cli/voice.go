package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"parley/client"
	"parley/internal/langtag"
	"parley/media"
)

// maxInputFile bounds how much of an input audio file is read: an hour of 16-bit 48 kHz stereo WAV.
const maxInputFile = 700 << 20

// maxSpeechText is the longest text the reference service speaks at once.
const maxSpeechText = 4096

func newTranscribeCmd(g *globals) *cobra.Command {
	var raw bool
	var mime, language string
	cmd := &cobra.Command{
		Use:   "transcribe FILE|- [--raw] [--language L] [--json]",
		Short: "Turn speech in an audio file into text",
		Long: `Uploads an audio file for speech-to-text and prints the text heard.
WAV and raw PCM (.pcm/.raw: 16 kHz mono 16-bit) are encoded as WebM/Opus first, which is about
15 times smaller; WebM, Ogg, MP3 and FLAC files go as they are. --raw sends the file unchanged.
The service accepts at most 10,000,000 bytes of audio.`,
		Args: wantOne("an audio file", ", or - for standard input"),
		RunE: func(cmd *cobra.Command, args []string) error {
			lang := ""
			if language != "" {
				if lang = langtag.Normalize(language); lang == "" {
					return usageErrorf("--language must be a language such as \"de\" or \"German\", not %q", language)
				}
			}
			name := args[0]
			data, err := g.readInput(name, "an audio file")
			if err != nil {
				return err
			}
			upload, kind := data, mime
			if !raw {
				upload, kind, err = media.PrepareUpload(name, data)
				if errors.Is(err, media.ErrNotAudio) {
					return phrased(err, "Parley does not recognise %s as audio: give WAV, PCM (.pcm/.raw, 16 kHz mono), WebM, Ogg, MP3 or FLAC, or send it as it is with --raw.", elastic(displayName(name)))
				}
				if err != nil {
					return phrased(err, "Parley could not prepare %s for upload (%s): send it as it is with --raw.", elastic(displayName(name)), clippable(err.Error()))
				}
			} else if kind == "" {
				if f := media.Sniff(data); f != media.FormatUnknown {
					kind = f.MIME()
				}
			}
			if len(upload) > client.MaxAudioBytes {
				return phrased(client.ErrAudioTooLarge, "The audio of %s is %s bytes; the service accepts at most 10,000,000 bytes: send a shorter recording.",
					elastic(displayName(name)), thousands(int64(len(upload))))
			}
			c, err := g.newClient(cmd.Context())
			if err != nil {
				return err
			}
			stop := g.waitFor("the transcript")
			tr, err := c.Transcribe(cmd.Context(), client.TranscribeRequest{Audio: upload, MIMEType: kind, Language: lang})
			stop()
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
	cmd.Flags().StringVar(&language, "language", "", "the language spoken (\"de\"), for a service that takes one: Parley's own")
	return cmd
}

// readInput reads a whole input file, or standard input for "-", up to maxInputFile bytes; what
// says what the file should have been ("an audio file"), for the sentence when it is a directory.
func (g *globals) readInput(name, what string) ([]byte, error) {
	shown := elastic(displayName(name))
	var r io.Reader
	if name == "-" {
		r = g.stdin
	} else {
		f, err := os.Open(name)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return nil, phrased(err, "There is no file %s: check the name.", shown)
		case errors.Is(err, os.ErrPermission):
			return nil, phrased(err, "Parley may not read %s (permission denied).", shown)
		case err != nil:
			return nil, phrased(err, "Cannot open %s: %s.", shown, clippable(err.Error()))
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			return nil, phrased(nil, "%s is a directory: give %s.", shown, what)
		}
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, maxInputFile+1))
	if err != nil {
		return nil, phrased(err, "Cannot read %s: %s.", shown, clippable(err.Error()))
	}
	if len(data) > maxInputFile {
		return nil, phrased(nil, "%s is larger than %d MiB: split it first.", shown, maxInputFile>>20)
	}
	if len(data) == 0 {
		return nil, phrased(nil, "%s is empty: give %s.", shown, what)
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
or to standard output with '-o -' or when standard output is not a terminal.
With --json and -o FILE, standard output holds {"file","bytes","mime_type"}.`,
		Args: textArgs("the text to speak"),
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
				if g.json {
					return usageErrorf("with --json, give -o FILE: the JSON goes to standard output, so the MP3 cannot")
				}
				out = "-"
			}
			if out == "-" && g.json {
				return usageErrorf("-o - and --json would both write to standard output: give -o FILE")
			}
			if err := checkOutput(out, "speech.mp3"); err != nil {
				return err
			}
			if err := g.refuseKeyShaped("--voice", voice); err != nil {
				return err
			}
			c, err := g.newClient(cmd.Context())
			if err != nil {
				return err
			}
			stop := g.waitFor("the speech")
			sp, err := c.Speak(cmd.Context(), client.SpeechRequest{Text: text, Voice: voice})
			stop()
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
			if g.json {
				return writeJSON(g.stdout, struct {
					File  string `json:"file"`
					Bytes int    `json:"bytes"`
					MIME  string `json:"mime_type"`
				}{out, len(sp.Audio), sp.MIMEType})
			}
			fmt.Fprintf(g.stderr, "Wrote %s (%d bytes, %s).\n", out, len(sp.Audio), sp.MIMEType)
			return nil
		},
	}
	cmd.Flags().StringVar(&voice, "voice", "", "the voice to speak with (default: the service's)")
	cmd.Flags().StringVarP(&out, "output", "o", "", "the MP3 file to write, or - for standard output")
	return cmd
}

// refuseKeyShaped refuses a flag's value that is shaped like a key, or is one Parley knows of,
// before it is sent anywhere: a key pasted into the wrong flag.
func (g *globals) refuseKeyShaped(flag, value string) error {
	if value != "" && (g.printer.knows(value) || looksKeyShaped(value)) {
		return usageErrorf("%s looks like an API key (not shown), so it was not sent: give the key with --api-key or 'parley login'", flag)
	}
	return nil
}

// checkOutput makes sure a file can be written at path before any work is done for it: the
// path is not a directory, and its directory exists. example names a file, for the advice.
func checkOutput(path, example string) error {
	if path == "-" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return usageErrorf("-o %s is a directory: give a file name, such as %s", elastic(path), elastic(filepath.Join(path, example)))
	}
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return usageErrorf("-o %s names a directory that does not exist: create it, or give another path", elastic(path))
	}
	f, err := os.CreateTemp(dir, ".parley-check-*")
	if err != nil {
		return writeError(path, err)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// thousands formats n with commas between groups of three digits.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
