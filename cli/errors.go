package cli

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"unicode/utf8"

	"parley/audio"
	"parley/audio/playback"
	"parley/internal/explain"
	"parley/internal/loopback"
	"parley/keystore"
	"parley/server"
)

// This file is where the CLI phrases errors. The packages below it (client, keystore, audio,
// media, server) return short typed errors that state facts; here each kind becomes one line
// that says what happened and what to do at a terminal. What happened, for the client's and the
// keystore's kinds, comes from package explain, which the desktop app uses too: the two say the
// same facts in the same words, and each adds its own action.

// maxLine is the longest error line Parley prints, in characters.
const maxLine = 160

// describe turns an error into one line a person can act on; the printer redacts it again.
func (g *globals) describe(err error) string {
	return clipLine(g.phrase(err))
}

// phrase picks the sentence for err's kind: the CLI's own kinds here, the client's and the
// keystore's through package explain, which states the facts the app states too; the CLI adds
// what to do at a terminal.
func (g *globals) phrase(err error) string {
	var (
		pe *phrasedError
		dv *doubledV1Error
		ni *noSuchInputError
		fe *configFileError
		nd *server.NoDatabaseError
		dl *server.DataDirLockedError
	)
	switch {
	case errors.As(err, &pe):
		return fit(pe.format, pe.args...)
	case errors.Is(err, audio.ErrSilentDevice):
		return "The microphone delivers only silence: check that it is not muted, or pick another input with --device (see 'parley devices')."
	case errors.Is(err, audio.ErrDeviceFailed):
		return "The audio input stopped working: check the microphone's connection and try again."
	case errors.Is(err, playback.ErrNoDevice):
		return "No audio output device found: start a sound server (PulseAudio or PipeWire) or connect speakers; PARLEY_AUDIO_BACKEND picks the audio system."
	case errors.As(err, &ni):
		return fit("No audio input matches %q: list the inputs with 'parley devices', and give --device an ID or part of a name.", elastic(ni.name))
	case errors.Is(err, audio.ErrNoDevice):
		return "No audio device found: start a sound server (PulseAudio or PipeWire) or connect one; PARLEY_AUDIO_BACKEND picks the audio system."
	case errors.Is(err, server.ErrNoSuchKey):
		if g.command == "parley admin key revoke" {
			return "No account has this API key in the service's database: check the key, and --data if the service keeps its data elsewhere."
		}
		return "No account has this API key in the service's database: check --key, and --data if the service keeps its data elsewhere."
	case errors.As(err, &nd):
		return fit("There is no Parley database in %s: give the service's --data DIR, or create a key there first.", elastic(nd.Dir))
	case errors.As(err, &dl):
		if dl.PID > 0 {
			return fit("Another Parley (PID %d) uses the data directory %s: stop it, or give another --data.", dl.PID, elastic(dl.Dir))
		}
		return fit("Another Parley uses the data directory %s: stop it, or give another --data.", elastic(dl.Dir))
	case errors.Is(err, server.ErrTooManyPoints):
		return "That would take the balance past 9,007,199,254,740,991 points, the most an account may hold: grant fewer."
	case errors.Is(err, syscall.EADDRINUSE):
		return "The address is already in use, perhaps by another 'parley serve': stop it, or give another --addr (127.0.0.1:0 picks a free port)."
	case errors.As(err, &dv):
		return fit("No API key is stored for %s, but there is one without the /v1: drop it from the base URL (Parley adds /v1 itself).", elastic(dv.base))
	case errors.As(err, &fe):
		switch {
		case fe.op == "parse":
			return fit("The config file %s is not valid JSON: fix or delete it.", elastic(fe.path))
		case fe.path == "":
			return fit("Cannot %s the config directory: %s.", fe.op, clippable(fe.err.Error()))
		}
		return fit("Cannot %s the config file %s: %s.", fe.op, elastic(fe.path), clippable(fe.err.Error()))
	}
	f := explain.Error(err, g.scene())
	if f.Kind == explain.Unknown {
		return explain.Capitalize(err.Error()) + "."
	}
	advice, args := g.advice(f, err)
	return g.sentence(f, advice, args...)
}

// scene is what the CLI knows about the call that failed.
func (g *globals) scene() explain.Scene {
	s := explain.Scene{BaseURL: g.base, Conversation: g.conv, Timeout: g.timeoutUsed}
	switch g.keySource {
	case fromNone:
		s.Key = explain.KeyNone
	case fromFlag:
		s.Key = explain.KeyFlag
	case fromEnv:
		s.Key = explain.KeyEnv
	case fromKeyring:
		s.Key = explain.KeyStored
	case fromStdin:
		s.Key = explain.KeyTyped
	}
	if g.command == "parley login" {
		s.Key = explain.KeyTyped
	}
	switch g.command {
	case "parley chat":
		s.Work = explain.WorkChat
	case "parley speak", "parley transcribe":
		s.Work = explain.WorkSpeech
	}
	return s
}

// maxServiceWords is the most of the service's own words a line quotes, in characters.
const maxServiceWords = 72 // ": " and 70

// sentence is the fact, then the advice (a format for more) after a colon, as one line that
// fits: the variable parts are what gets shortened.
func (g *globals) sentence(f explain.Fact, advice string, more ...any) string {
	args := make([]any, len(f.Args), len(f.Args)+len(more))
	for i, a := range f.Args {
		switch v := a.(type) {
		case explain.Name:
			args[i] = elastic(v)
		case explain.Words:
			args[i] = clippable(v.Clip(maxServiceWords))
		default:
			args[i] = a
		}
	}
	format := f.Format + "."
	if advice != "" {
		format = f.Format + ": " + advice + "."
	}
	return fit(format, append(args, more...)...)
}

// advice is what to do at a terminal about f, as a format and its arguments.
func (g *globals) advice(f explain.Fact, err error) (string, []any) {
	switch f.Kind {
	case explain.Undecodable:
		return "check that %s is a Chat and Voice Service", []any{elastic(g.hostOrBase())}
	case explain.KeyringUnavailable:
		var ue *keystore.UnavailableError
		if errors.As(err, &ue) {
			return keyringAdvice(ue.Reason) + ", or set PARLEY_API_KEY", nil
		}
	}
	return strings.ReplaceAll(g.plainAdvice(f), "%", "%%"), nil
}

// plainAdvice is what to do at a terminal about f: by its kind, and for some kinds by what
// the CLI knows of the run (the command, where the key came from, the service's address).
func (g *globals) plainAdvice(f explain.Fact) string {
	switch f.Kind {
	case explain.ReplyLost:
		return g.replyLostAdvice(f)
	case explain.ReplyUnreadable:
		return g.replyUnreadableAdvice(f)
	case explain.KeyRefused:
		return g.keyRefusedAdvice()
	case explain.Busy:
		if f.RetryAfter > 0 {
			return "try again in " + explain.Round(f.RetryAfter)
		}
		return "try again in a moment"
	case explain.NotListening:
		if g.isLocal() {
			return "start the reference service with 'parley serve', or set --base-url"
		}
		return "check the address, or try again later"
	case explain.Certificate:
		if f.OtherHost {
			return "check the address"
		}
		return "check the address, or install the certificate's authority"
	}
	return kindAdvice[f.Kind]
}

// kindAdvice is what to do at a terminal about the kinds whose advice depends on nothing else.
var kindAdvice = map[explain.Kind]string{
	explain.NoPoints:           "ask the service's operator for more",
	explain.Forbidden:          "ask its operator for a key that may",
	explain.DoubledV1:          "Parley adds /v1 itself, so drop the /v1 from the base URL",
	explain.NoConversation:     "list yours with 'parley conversations'",
	explain.NoEndpoint:         "check the base URL",
	explain.AudioTooLarge:      "send a shorter recording",
	explain.TooLarge:           "send a shorter text or recording",
	explain.UnreadableAudio:    "try another format, such as WAV",
	explain.NarrowbandAudio:    "record it at 16 kHz or more",
	explain.LanguageUnheard:    "ask in English, or run a Whisper server for the service (see the README)",
	explain.VoiceRefused:       "list its voices with 'parley voices'",
	explain.BadRequest:         "check the values you gave",
	explain.UpstreamFailed:     "try again",
	explain.ServiceDown:        "try again later",
	explain.Redirect:           "use the final address as --base-url",
	explain.Insecure:           "use https://",
	explain.BadBaseURL:         "write it like https://api.example.com",
	explain.UserInBaseURL:      "give the API key through 'parley login' or PARLEY_API_KEY",
	explain.InvalidKey:         "check that the whole key was pasted, and nothing else",
	explain.NoKey:              "run 'parley login', or set PARLEY_API_KEY",
	explain.KeyringUnavailable: "check your keyring, or set PARLEY_API_KEY",
	explain.Timeout:            "try again, or allow longer with --timeout",
	explain.HostNotFound:       "check the address in --base-url, and your connection",
	explain.ConnectionFailed:   "check your connection and try again",
}

// keyRefusedAdvice is what to do about a refused key, by the command and where the key came
// from.
func (g *globals) keyRefusedAdvice() string {
	switch {
	case g.command == "parley login":
		return "check the key; nothing was stored"
	case g.keySource == fromNone:
		return "run 'parley login', or set PARLEY_API_KEY"
	case g.keySource == fromFlag:
		return "check the key"
	case g.keySource == fromEnv:
		return "fix it, or unset it to use the keyring"
	}
	return "run 'parley login' with a valid key"
}

// replyLostAdvice says where to look before sending again: the conversation's history when its
// ID is known and the line can hold it whole.
func (g *globals) replyLostAdvice(f explain.Fact) string {
	return g.historyAdvice(f, "check %s before sending it again")
}

// replyUnreadableAdvice says where the charged reply may be read: the conversation's history.
func (g *globals) replyUnreadableAdvice(f explain.Fact) string {
	return g.historyAdvice(f, "look for the reply with %s; it is not sent again")
}

// historyAdvice fills format with where to look: 'parley history ID' when the conversation is
// known and the line can hold it whole, else the list, or the history command without the ID,
// said in as many words as the line holds (a command cut short could not be run; the person
// gave the ID, so it is left out).
func (g *globals) historyAdvice(f explain.Fact, format string) string {
	if g.conv == "" {
		return fmt.Sprintf(format, "'parley conversations'")
	}
	for _, where := range []string{"'parley history " + g.conv + "'", "'parley history' with the conversation's ID"} {
		if advice := fmt.Sprintf(format, where); utf8.RuneCountInString(f.String()+": "+advice+".") <= maxLine {
			return advice
		}
	}
	return fmt.Sprintf(format, "'parley history'")
}

// endsInV1 reports whether the base URL ends in /v1, which Parley adds itself.
func (g *globals) endsInV1() bool { return explain.EndsInV1(g.base) }

// keyringAdvice says how to make a keyring usable again.
func keyringAdvice(r keystore.Reason) string {
	switch r {
	case keystore.ReasonTimeout, keystore.ReasonLocked:
		return "unlock it and try again"
	case keystore.ReasonNoSessionBus:
		return "run Parley in a desktop session"
	case keystore.ReasonNoSecretService:
		return "start a keyring such as gnome-keyring"
	}
	return "check your keyring"
}

// hostOrBase names the service briefly: its host, else its address.
func (g *globals) hostOrBase() string {
	if u, err := url.Parse(g.base); err == nil && u.Host != "" {
		return u.Host
	}
	if g.base != "" {
		return g.base
	}
	return "the service"
}

// isLocal reports whether the service is on this machine.
func (g *globals) isLocal() bool { return loopback.URL(g.base) }

var spaces = regexp.MustCompile(`\s+`)

// clipLine makes s one line of at most maxLine characters. It is the last resort: the sentences
// are written to fit, with fit shortening their variable parts.
func clipLine(s string) string { return clipTo(s, maxLine) }

// clipTo makes s one line of at most limit characters.
func clipTo(s string, limit int) string {
	s = strings.TrimSpace(spaces.ReplaceAllString(s, " "))
	if utf8.RuneCountInString(s) > limit {
		s = string([]rune(s)[:limit-1]) + "…"
	}
	return s
}

// elastic is a variable part of a line, such as a URL, a file name or an ID, that fit may
// shorten by cutting out its middle, so that the advice around it stays whole.
type elastic string

// clippable is a variable part of a line, such as the service's own words, that fit may
// shorten by cutting off its end.
type clippable string

// minElastic is the fewest characters fit leaves of a variable part.
const minElastic = 16

// fit formats a line like fmt.Sprintf and, when it is longer than maxLine characters, shortens
// its elastic and clippable arguments, the longest first, until it fits or they cannot shrink.
func fit(format string, args ...any) string { return fitIn(maxLine, format, args...) }

// fitIn is fit for a line of at most limit characters.
func fitIn(limit int, format string, args ...any) string {
	args = slices.Clone(args)
	for {
		s := fmt.Sprintf(format, args...)
		over := utf8.RuneCountInString(s) - limit
		if over <= 0 {
			return s
		}
		// Cut the longest parts down to one level, the highest at which the line fits.
		var sizes []int
		for _, a := range args {
			switch v := a.(type) {
			case elastic:
				sizes = append(sizes, utf8.RuneCountInString(string(v)))
			case clippable:
				sizes = append(sizes, utf8.RuneCountInString(string(v)))
			}
		}
		level := slices.Max(append(sizes, 0))
		for level > minElastic {
			cut := 0
			for _, n := range sizes {
				cut += max(0, n-(level-1))
			}
			level--
			if cut >= over {
				break
			}
		}
		if level >= slices.Max(append(sizes, 0)) {
			return s // nothing left to shorten
		}
		for i, a := range args {
			switch v := a.(type) {
			case elastic:
				if r := []rune(string(v)); len(r) > level {
					head := (level - 1) * 2 / 3
					args[i] = elastic(string(r[:head]) + "…" + string(r[len(r)-(level-1-head):]))
				}
			case clippable:
				if r := []rune(string(v)); len(r) > level {
					args[i] = clippable(string(r[:level-1]) + "…")
				}
			}
		}
	}
}

// phrasedError is an error the CLI has already phrased as a sentence; its variable parts may be
// elastic, and its cause is kept for errors.Is.
type phrasedError struct {
	format string
	args   []any
	cause  error
}

func (e *phrasedError) Error() string { return fmt.Sprintf(e.format, e.args...) }

func (e *phrasedError) Unwrap() error { return e.cause }

// phrased returns an error whose line is the sentence format makes of args, caused by cause.
func phrased(cause error, format string, args ...any) error {
	return &phrasedError{format: format, args: args, cause: cause}
}

// doubledV1Error is a base URL ending in /v1 for which no key is stored, while one is stored for
// the same address without /v1: the base URL names the API's root, and Parley adds /v1 itself.
type doubledV1Error struct{ base, without string }

func (e *doubledV1Error) Error() string {
	return fmt.Sprintf("no API key is stored for %s, but one is for %s", e.base, e.without)
}

func (e *doubledV1Error) Unwrap() error { return keystore.ErrNotFound }

// noSuchInputError is a --device that names none of the audio inputs.
type noSuchInputError struct{ name string }

func (e *noSuchInputError) Error() string {
	return fmt.Sprintf("no audio input matches %q", e.name)
}
