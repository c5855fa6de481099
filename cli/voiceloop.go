package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"parley/audio"
	"parley/audio/echo"
	"parley/audio/playback"
	"parley/audio/vad"
	"parley/audio/wake"
	"parley/client"
	"parley/internal/langtag"
	"parley/voice"
)

// onceListen is how long `voice --once` (or --turns) waits for speech to start.
const onceListen = 30 * time.Second

// voiceOptions is what parley voice was asked for, from its flags.
type voiceOptions struct {
	conv       string
	once       bool
	turns      int
	device     string
	hold       time.Duration
	bargeIn    bool
	noEcho     bool
	speculate  bool
	adaptive   bool
	traceFile  string
	speechName string
	speed      float64
	speechLang string
	listen     time.Duration
	speakErrs  bool
	wake       bool
	wakePhrase string
	followUp   time.Duration
	set        modelFlags
	// convSet, turnsSet and listenSet say whether --conversation, --turns and --listen-timeout
	// were given.
	convSet, turnsSet, listenSet bool
}

func newVoiceCmd(g *globals) *cobra.Command {
	o := &voiceOptions{}
	cmd := &cobra.Command{
		Use:   "voice [--conversation ID] [--once | --turns N] [--device D] [--hold DURATION] [--barge-in] [--trace FILE.jsonl]",
		Short: "Talk with the assistant hands-free: it listens, answers aloud, and listens again",
		Long: `Runs a spoken conversation in the terminal. Parley listens to the microphone; when you stop
talking for --hold it sends what you said to speech-to-text, asks the chat (a charged call) in
the conversation, speaks the reply sentence by sentence, and listens again. Ctrl-C stops it at
any point; a question already sent to the chat is allowed to finish, so its reply is stored.

Nothing is sent when no speech was heard, and an empty transcript or one that holds only noise
("[noise]", "um") is never sent to the chat. While the reply is spoken the microphone is
ignored, so the assistant's own voice is never taken for a question; with --barge-in, speaking
clearly louder than the reply's echo stops it and starts a new turn. Where SpeexDSP is installed
(libspeexdsp1), the echo of the replies is removed from what the microphone records, so a
question asked over a reply is heard without the reply under it, and with --barge-in speaking
as loud as the reply is enough; --no-echo-cancel turns that off.

While --hold runs, what you said so far is already being transcribed (transcription is free; at
most 3 such calls a question, cancelled when you go on talking), so the reply comes sooner;
--speculate=false turns that off. --speed 1.5 speaks the replies one and a half times as fast,
at the same pitch (libsonic0, installed with espeak-ng). With a transcript in hand before --hold ends, a question
ends after half a second of silence when it reads as complete, and is waited for up to 1.5 s
when it ends on a word such as "and" or "the"; --adaptive-hold=false always waits --hold.

The states (listening, hearing speech, transcribing, thinking, speaking) go to standard error,
what you said and the replies to standard output. Without --conversation a new conversation is
started, with the settings given (--persona ...) and its ID is printed at the end.

With --wake, Parley waits for a wake phrase ("hey parley", or another of --wake-phrase's)
before each question, and hears it on this machine: until it does, nothing the microphone hears
is recorded or sent anywhere. After a reply the next question needs no wake phrase for
--follow-up (6 s; 0 for none), and saying "stop" or "cancel" while a reply is spoken stops it.
With --once or --turns, --listen-timeout is how long the wake phrase is waited for. This needs
PocketSphinx (libpocketsphinx3 and pocketsphinx-en-us).

On a terminal, Enter mutes and unmutes the microphone.

--once does one turn and exits 0, or exits 1 if no speech starts within --listen-timeout (30 s);
--turns N does N turns so.
--trace writes one JSON object per event of each turn (speech start and end, transcription,
chat, each sentence's speech request, playback, transcriptions made while the hold ran), with its
time in ms since the start.`,
		Example: `  parley voice
  parley voice -c 42 --barge-in
  parley voice --wake --wake-phrase "hey computer"
  parley voice --once --trace turn.jsonl`,
		Args: g.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.convSet = cmd.Flags().Changed("conversation")
			o.turnsSet = cmd.Flags().Changed("turns")
			o.listenSet = cmd.Flags().Changed("listen-timeout")
			if err := o.validate(); err != nil {
				return err
			}
			cfg, err := o.set.modelConfig(cmd)
			if err != nil {
				return err
			}
			return runVoice(cmd.Context(), g, o, cfg)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.conv, "conversation", "c", "", "continue this conversation")
	f.BoolVar(&o.once, "once", false, "do one turn, then exit")
	f.IntVar(&o.turns, "turns", 0, "do this many turns, then exit (default: until stopped)")
	f.StringVar(&o.device, "device", "", "the input: an ID or part of a name from 'parley devices' (default: the system's)")
	f.DurationVar(&o.hold, "hold", vad.DefaultHold, "the silence that ends what you say (0.3s to 5s)")
	f.BoolVar(&o.bargeIn, "barge-in", false, "let speaking over a reply stop it and start a new turn")
	f.BoolVar(&o.noEcho, "no-echo-cancel", false, "hear the microphone as it is, without removing the echo of the replies")
	f.BoolVar(&o.speculate, "speculate", true, "transcribe what was said so far while the hold runs")
	f.BoolVar(&o.adaptive, "adaptive-hold", true, "end a question sooner when it reads as complete, later after \"and\", \"the\"...")
	f.StringVar(&o.traceFile, "trace", "", "write each turn's latency events to this file, one JSON object per line")
	f.StringVar(&o.speechName, "voice", "", "the voice replies are spoken in (see 'parley voices')")
	f.StringVar(&o.speechLang, "speech-language", "", "the language questions are asked in (\"de\"), for a service that takes one: Parley's own")
	f.Float64Var(&o.speed, "speed", 1, "how fast replies are spoken, from 0.75 to 2 times as made, the pitch kept")
	f.DurationVar(&o.listen, "listen-timeout", 0, "give up when no speech starts within this (default 30s with --once or --turns, else never)")
	f.BoolVar(&o.speakErrs, "speak-errors", false, "say aloud when a turn fails, as well as printing it")
	f.BoolVar(&o.wake, "wake", false, "wait for the wake phrase, heard on this machine, before each question")
	f.StringVar(&o.wakePhrase, "wake-phrase", wake.DefaultWakePhrase, "the wake phrase: "+wakePhraseList())
	f.DurationVar(&o.followUp, "follow-up", voice.DefaultFollowUp, "with --wake, how long after a reply a question needs no wake phrase (0 for none)")
	o.set.register(cmd)
	return cmd
}

// validate refuses flags out of range or at odds with each other; then --once becomes one turn,
// and with a number of turns --listen-timeout defaults to onceListen.
func (o *voiceOptions) validate() error {
	if o.convSet && strings.TrimSpace(o.conv) == "" {
		return usageErrorf("--conversation is empty: give a conversation ID, or leave the flag out to start a new conversation")
	}
	if o.hold < vad.MinHold || o.hold > vad.MaxHold {
		return usageErrorf("--hold must be between %v and %v, not %v", vad.MinHold, vad.MaxHold, o.hold)
	}
	if o.listenSet && o.listen < 0 {
		return usageErrorf("--listen-timeout must not be negative, not %v", o.listen)
	}
	if err := checkSpeed(o.speed); err != nil {
		return err
	}
	if o.speechLang != "" {
		if o.speechLang = langtag.Normalize(o.speechLang); o.speechLang == "" {
			return usageErrorf("--speech-language must be a language such as \"de\" or \"German\"")
		}
	}
	if o.turns < 0 {
		return usageErrorf("--turns must not be negative, not %d", o.turns)
	}
	if o.once {
		if o.turnsSet && o.turns != 1 {
			return usageErrorf("--once is one turn: leave out --turns %d, or --once", o.turns)
		}
		o.turns = 1
	}
	if !o.listenSet && o.turns > 0 {
		o.listen = onceListen
	}
	if _, ok := wake.LookupWake(o.wakePhrase); !ok {
		return usageErrorf("--wake-phrase %q is not one Parley listens for: use %s", o.wakePhrase, wakePhraseList())
	}
	if o.followUp < 0 || o.followUp > time.Minute {
		return usageErrorf("--follow-up must be between 0 and 1m, not %v", o.followUp)
	}
	return nil
}

// wakePhraseList lists the wake phrases offered, quoted.
func wakePhraseList() string {
	var q []string
	for _, p := range wake.WakePhrases {
		q = append(q, strconv.Quote(p.Text))
	}
	return strings.Join(q, ", ")
}

// openSpotters makes the wake phrase's spotter and the stop words', for --wake.
func openSpotters(o *voiceOptions) (wakeSp, stopSp *wake.Spotter, err error) {
	if !o.wake {
		return nil, nil, nil
	}
	p, _ := wake.LookupWake(o.wakePhrase)
	if wakeSp, err = wake.New([]wake.Phrase{p}); err != nil {
		return nil, nil, phrased(err, "The wake phrase cannot be listened for here (%v). Leave out --wake, or install PocketSphinx: sudo apt install libpocketsphinx3 pocketsphinx-en-us", err)
	}
	if stopSp, err = wake.New(wake.StopPhrases); err != nil {
		wakeSp.Close()
		return nil, nil, phrased(err, "The stop words cannot be listened for here (%v). Leave out --wake, or reinstall PocketSphinx's English model: sudo apt install --reinstall pocketsphinx-en-us", err)
	}
	return wakeSp, stopSp, nil
}

// runVoice runs the voice loop as o says, in conversation o.conv (a new one, with the settings
// cfg, when it is empty), until its turns are done or ctx ends.
func runVoice(ctx context.Context, g *globals, o *voiceOptions, cfg client.Config) error {
	convID, err := g.conversationArg(o.conv)
	if err != nil {
		return err
	}
	backend, err := g.audioBackend()
	if err != nil {
		return err
	}
	c, err := g.newClient(ctx)
	if err != nil {
		return err
	}
	trace, closeTrace, err := openTrace(o.traceFile)
	if err != nil {
		return err
	}
	defer closeTrace()
	if err := playback.OpenOutput(); err != nil {
		return phrased(err, "There is no audio output, so replies cannot be spoken: check the sound settings (parley devices lists the outputs).")
	}
	mic, err := openMic(ctx, backend, o.device)
	if err != nil {
		return err
	}
	defer mic.Close()
	var src voice.Source = mic
	if !o.noEcho {
		if ec, err := echo.Shared(); err == nil {
			src = echo.NewSource(mic, ec)
		} else if o.bargeIn {
			why := strings.TrimPrefix(err.Error(), echo.ErrUnavailable.Error()+": ")
			fmt.Fprintf(g.stderr, "No echo canceller here (%s): a question asked over a reply is recorded with the reply under it.\n", why)
		}
	}

	wakeSp, stopSp, err := openSpotters(o)
	if err != nil {
		return err
	}

	runCtx, endRun := context.WithCancel(ctx)
	defer endRun()
	chat := &cliChatter{c: c, id: convID, cfg: cfg, end: endRun}
	var loop *voice.Loop
	player := playback.New(func(ev playback.Event) { loop.PlaybackEvent(ev) })
	defer player.Close()
	setSpeed(g, player, o.speed)
	out := &voicePrinter{g: g, phrase: o.wakePhrase}
	// The service's voices, read in the background, for speaking each reply by a voice of its
	// language (nil until read; a service without the list gives none).
	var voices voice.VoiceList
	voices.Read(ctx, c)
	vc := voice.Config{
		Source: src, Transcriber: c, Chat: chat, Synth: c, Player: player,
		Voice: o.speechName, VoiceChosen: o.speechName != "", Voices: voices.Get, SpeechLanguage: o.speechLang,
		Hold: o.hold, BargeIn: o.bargeIn, ListenTimeout: o.listen,
		Speculate: o.speculate, AdaptiveHold: o.adaptive,
		SpeakErrors: o.speakErrs,
		OnStatus:    out.status,
		OnHeard:     func(_ int, q string) { fmt.Fprintf(g.stdout, "You: %s\n", q) },
		OnReply:     func(_ int, r string) { fmt.Fprintf(g.stdout, "Assistant: %s\n", strings.TrimSpace(r)) },
		OnTrace: func(e voice.TraceEvent) {
			if trace != nil {
				trace.write(e)
			}
		},
		Turns: o.turns,
	}
	if o.wake {
		defer wakeSp.Close()
		defer stopSp.Close()
		vc.Wake, vc.StopWords, vc.FollowUp = wakeSp, stopSp, o.followUp
		if o.followUp == 0 {
			vc.FollowUp = -1
		}
	}
	loop = voice.New(vc)
	muteOnEnter(g, loop)
	runErr := loop.Run(runCtx)
	if trace != nil {
		if err := trace.close(); err != nil && runErr == nil {
			runErr = fmt.Errorf("writing the trace to %s: %w", o.traceFile, err)
		}
	}
	// Let the end of the last reply be heard before the process exits.
	time.Sleep(playback.DrainTime)
	chat.note(g)
	return voiceOutcome(g, chat, runErr, o)
}

// openTrace opens --trace's file for writing, and returns the writer and what closes the file
// (after the writer's close has flushed it). With no --trace, the writer is nil.
func openTrace(path string) (trace *traceWriter, closeFile func(), err error) {
	if path == "" {
		return nil, func() {}, nil
	}
	if err := checkOutput(path, "trace.jsonl"); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, nil, err
	}
	return &traceWriter{w: bufio.NewWriter(f)}, func() { f.Close() }, nil
}

// openMic opens the input that device names ("" for the system's); a name that matches no
// input the backend lists is a noSuchInputError.
func openMic(ctx context.Context, backend audio.Backend, device string) (*audio.Capture, error) {
	mic, err := audio.OpenCapture(backend, device)
	if err != nil {
		if device != "" && errors.Is(err, audio.ErrNoDevice) && noInputMatches(ctx, backend, device) {
			return nil, &noSuchInputError{name: device}
		}
		return nil, err
	}
	return mic, nil
}

// muteOnEnter lets Enter mute and unmute the microphone when standard input is a terminal.
func muteOnEnter(g *globals, loop *voice.Loop) {
	f, ok := g.stdin.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return
	}
	fmt.Fprintln(g.stderr, "Press Enter to mute or unmute the microphone; Ctrl-C stops.")
	go func() {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			loop.SetMuted(!loop.Muted())
		}
	}()
}

// voiceOutcome is how parley voice ends, after the loop returned runErr: a first reply that was
// lost, no speech within listen, or turns failing in a row, each said so a person can act on it.
func voiceOutcome(g *globals, chat *cliChatter, runErr error, o *voiceOptions) error {
	switch {
	case chat.lost() != nil:
		return chat.lost()
	case errors.Is(runErr, voice.ErrNoSpeech) && o.wake:
		return phrased(runErr, "%q was not heard in %v: say it clearly, then your question; check the microphone with 'parley record --vad -o test.webm'.", o.wakePhrase, o.listen)
	case errors.Is(runErr, voice.ErrNoSpeech):
		return phrased(runErr, "No speech was heard in %v: check the microphone with 'parley record --vad -o test.webm', or pick one with --device (see 'parley devices').", o.listen)
	case runErr != nil:
		var fe *voice.FailuresError
		if errors.As(runErr, &fe) {
			return phrased(runErr, "Stopped after %d failed turns in a row. The last: %s", fe.N, g.phrase(voice.Cause(fe.Last)))
		}
		return runErr
	}
	return nil
}

// cliChatter asks the chat in one conversation: the first call starts it when no ID was given,
// with the settings given on the command line.
type cliChatter struct {
	c   *client.Client
	cfg client.Config

	// end ends the loop: after a first call whose reply was lost, the next question would start
	// another conversation, without the context of the one the service made and charged for.
	end func()

	mu               sync.Mutex
	id               client.ConversationID
	charged, balance *int64
	calls            int
	// lostFirst is the error of a first call whose reply was lost (the conversation it made
	// is not known): the command ends with it (exit 3), as 'parley chat' does.
	lostFirst error
}

func (ch *cliChatter) Chat(ctx context.Context, q string) (string, error) {
	return ch.ChatStream(ctx, q, nil, nil)
}

// ChatStream is Chat whose reply, from a service that streams, comes to onText as it is written;
// closing stop asks the service to end it where it is (a barge-in, Stop).
func (ch *cliChatter) ChatStream(ctx context.Context, q string, onText func(string), stop <-chan struct{}) (string, error) {
	ch.mu.Lock()
	req := client.SendMessageRequest{ConversationID: ch.id, Message: q}
	if ch.id.IsZero() {
		req.Persona, req.Temperature, req.TopP, req.MaxTokens = ch.cfg.Persona, ch.cfg.Temperature, ch.cfg.TopP, ch.cfg.MaxTokens
	}
	ch.mu.Unlock()
	var res *client.SendMessageResult
	var err error
	if onText != nil {
		res, err = ch.c.SendMessageStream(ctx, req, client.StreamOptions{OnText: onText, Stop: stop})
	} else {
		res, err = ch.c.SendMessage(ctx, req)
	}
	if err != nil {
		if errors.Is(err, client.ErrReplyLost) && req.ConversationID.IsZero() {
			ch.mu.Lock()
			ch.lostFirst = err
			ch.mu.Unlock()
			if ch.end != nil {
				ch.end()
			}
		}
		return "", err
	}
	ch.mu.Lock()
	defer ch.mu.Unlock()
	ch.id = res.ConversationID
	ch.calls++
	if res.PointsCharged != nil {
		total := *res.PointsCharged
		if ch.charged != nil {
			total += *ch.charged
		}
		ch.charged = &total
	}
	ch.balance = res.Balance
	return res.Reply, nil
}

// lost is the error of a first call whose reply was lost, nil when there was none.
func (ch *cliChatter) lost() error {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return ch.lostFirst
}

// note prints the conversation and what the session cost on standard error.
func (ch *cliChatter) note(g *globals) {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.calls == 0 {
		return
	}
	g.printer.allow(ch.id.String())
	fmt.Fprintln(g.stderr, chargeNote(ch.id, ch.charged, ch.balance))
}

// noticeLine is what standard error says for the loop's notices.
var noticeLine = map[voice.NoticeKind]string{
	voice.NoticeSilentMic:   "The microphone delivers only silence: check that it is on and not muted.",
	voice.NoticeDidNotCatch: "Didn't catch that.",
}

// voicePrinter shows the loop's states on standard error, one line per change.
type voicePrinter struct {
	g      *globals
	phrase string // the wake phrase
	last   string
}

func (p *voicePrinter) status(s voice.Status) {
	line := s.State.String()
	switch {
	case s.Stopping:
		line = "stopping: waiting for the reply to the question already sent, so it is stored"
	case s.State == voice.Error && s.Err != nil:
		line = "error: " + p.failed(s.Err) + " Listening again in a moment."
	case s.State == voice.Listening && s.Failed != nil:
		line = "listening again (Ctrl-C stops); the last turn failed: " + p.failed(s.Failed)
	case s.State == voice.Listening && s.FollowUp:
		line = "listening for a follow-up (no wake phrase needed)"
	case s.State == voice.Listening:
		line = "listening (Ctrl-C stops)"
	case s.State == voice.Waiting:
		line = fmt.Sprintf("waiting for %q; nothing is sent before it (Ctrl-C stops)", p.phrase)
	case s.Muted && s.State != voice.Muted:
		line += " (microphone muted)"
	}
	if n, ok := noticeLine[s.Notice]; ok {
		line = n
	}
	if line == p.last {
		return
	}
	p.last = line
	fmt.Fprintf(p.g.stderr, "[%s]\n", line)
}

// failedLead opens the reason a step of a turn failed, by the step.
var failedLead = map[string]string{
	"record":     "Could not record what you said.",
	"transcribe": "Could not transcribe what you said.",
	"chat":       "Could not get a reply.",
	"speak":      "Could not speak the reply.",
}

// failed says why a step of a turn failed: the step, then the reason.
func (p *voicePrinter) failed(err error) string {
	text := p.g.phrase(voice.Cause(err))
	var se *voice.StepError
	if errors.As(err, &se) && failedLead[se.Step] != "" {
		text = failedLead[se.Step] + " " + text
	}
	return text
}

// traceWriter writes trace events as JSON lines.
type traceWriter struct {
	w   *bufio.Writer
	err error
}

func (t *traceWriter) write(e voice.TraceEvent) {
	if t.err != nil {
		return
	}
	rec := struct {
		TimeMS      float64         `json:"t_ms"`
		Turn        int             `json:"turn"`
		Event       voice.TraceKind `json:"event"`
		Index       *int            `json:"sentence,omitempty"`
		Speculative bool            `json:"speculative,omitempty"`
	}{float64(e.Since.Microseconds()) / 1000, e.Turn, e.Kind, nil, e.Speculative}
	if e.Index >= 0 {
		rec.Index = &e.Index
	}
	b, err := json.Marshal(rec)
	if err == nil {
		b = append(b, '\n')
		_, err = t.w.Write(b)
	}
	if err == nil {
		err = t.w.Flush()
	}
	t.err = err
}

func (t *traceWriter) close() error {
	if t.err != nil {
		return t.err
	}
	return t.w.Flush()
}
