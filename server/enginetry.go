package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"parley/engine"
	"parley/internal/keyecho"
	"parley/media"
	"parley/server/speech"
)

// tryTimeout bounds each Try: a model loading for its first answer may take a while.
const tryTimeout = 90 * time.Second

// The texts the Try functions send.
const (
	tryQuestion = "Reply with one short sentence: are you ready?"
	tryPhrase   = "testing one two three"
	trySentence = "This is how replies will sound."
)

// TryChat asks spec's model a short question and says in one line how it went: which model
// answered, how soon, and the start of its reply. Its error is one line too, naming the engine
// and what to do. Nothing is stored and no points are charged. A model found on this computer
// is asked nothing when another user's program listens at its port.
func TryChat(ctx context.Context, spec engine.Chat) (string, error) {
	return tryChat(ctx, spec, nil)
}

// tryChat is TryChat with owners finding who listens at a runtime's port (nil: engine.CheckOwner).
func tryChat(ctx context.Context, spec engine.Chat, owners engine.OwnerCheck) (string, error) {
	if err := spec.Check(); err != nil {
		return "", err
	}
	if spec.Kind == engine.Offline {
		return "The offline responder answers at once: it cannot think, but it keeps your conversation.", nil
	}
	ctx, cancel := context.WithTimeout(ctx, tryTimeout)
	defer cancel()
	hc := &http.Client{Timeout: tryTimeout}
	if spec.Kind == engine.Detected {
		hc.Transport = runtimeTransport(spec.Runtime, owners)
	}
	m := NewOpenAIChatWith(OpenAIChatOptions{BaseURL: spec.URL, Model: spec.Model, APIKey: spec.Key, Where: spec.Where(),
		ContextTokens: spec.ContextTokens, HTTP: hc})
	start := time.Now()
	reply, err := m.Complete(ctx, ChatRequest{UserText: tryQuestion})
	if err != nil {
		var cf *ChatFailure
		var ue *engine.UntrustedError
		if errors.As(err, &ue) {
			return "", errors.New(sentence(ue.Error()))
		}
		if errors.As(err, &cf) {
			return "", errors.New(cf.Sentence())
		}
		return "", err
	}
	return fmt.Sprintf("%s answered in %s: “%s”", engine.ModelName(spec.Model), seconds(time.Since(start)), oneLine(reply, 60)), nil
}

// TrySpeechRecognition has spec transcribe a test phrase spoken by the local voices (a second of
// silence where they are missing) and says what it heard and how soon.
func TrySpeechRecognition(ctx context.Context, spec engine.Speech) (string, error) {
	if err := spec.Check(); err != nil {
		return "", err
	}
	var stt speech.Transcriber
	where := "Speech recognition"
	if spec.Remote {
		stt = speech.NewRemoteTranscriber(spec.URL, spec.Model, spec.Key, &http.Client{Timeout: tryTimeout})
		where = engine.WhereURL(spec.URL)
	} else {
		if err := speech.CheckPocketSphinx(speech.PocketSphinxOptions{}); err != nil {
			return "", errors.New(sentence(err.Error()))
		}
		stt = speech.NewPocketSphinx(speech.PocketSphinxOptions{})
	}
	return tryTranscriber(ctx, stt, where, spec.Key)
}

// tryTranscriber has stt (where names it in a failure) transcribe the spoken test phrase, within
// tryTimeout, and says in one line what it heard.
func tryTranscriber(ctx context.Context, stt speech.Transcriber, where, key string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, tryTimeout)
	defer cancel()
	audio, spoken := testPhrase(ctx)
	start := time.Now()
	tr, err := stt.Transcribe(ctx, audio, "")
	if err != nil {
		return "", speechFailure(where, err, key)
	}
	took := seconds(time.Since(start))
	text := strings.TrimSpace(tr.Text)
	switch {
	case !spoken && text == "":
		return "It answered in " + took + ", hearing nothing in a second of silence (install flite for a spoken test).", nil
	case !spoken:
		return fmt.Sprintf("It answered in %s, hearing “%s” in a second of silence.", took, oneLine(text, 60)), nil
	case text == "":
		return "It answered in " + took + ", but heard nothing in the spoken test phrase: check the model.", nil
	}
	return fmt.Sprintf("Heard “%s” in %s (the test said “%s”).", oneLine(text, 60), took, tryPhrase), nil
}

// testPhrase is tryPhrase spoken by the local voices, else a second of silence (spoken false).
func testPhrase(ctx context.Context) (audio []byte, spoken bool) {
	if speech.CheckBuiltIn(speech.BuiltInOptions{}) == nil {
		mp3, err := speech.NewBuiltIn(ctx, speech.BuiltInOptions{}).Synthesize(ctx, tryPhrase, "")
		if err == nil {
			return mp3, true
		}
	}
	return media.EncodeWAV(media.PCM{Rate: 16000, Channels: 1, Samples: make([]int16, 16000)}), false
}

// TryVoices has spec speak a test sentence and returns it (MP3) with a line on how soon.
func TryVoices(ctx context.Context, spec engine.Speech) (string, []byte, error) {
	if err := spec.Check(); err != nil {
		return "", nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, tryTimeout)
	defer cancel()
	var tts speech.Synthesizer
	where := "The local voices"
	if spec.Remote {
		tts = speech.NewRemoteSynthesizer(spec.URL, spec.Model, spec.Key, nil, &http.Client{Timeout: tryTimeout})
		where = engine.WhereURL(spec.URL)
	} else {
		if err := speech.CheckBuiltIn(speech.BuiltInOptions{}); err != nil {
			return "", nil, errors.New(sentence(err.Error()))
		}
		tts = speech.NewBuiltIn(ctx, speech.BuiltInOptions{})
	}
	start := time.Now()
	mp3, err := tts.Synthesize(ctx, trySentence, "")
	if err != nil {
		return "", nil, speechFailure(where, err, spec.Key)
	}
	if media.Sniff(mp3) != media.FormatMP3 {
		return "", nil, fmt.Errorf("%s answered with something that is not MP3 audio: check the address and model", where)
	}
	return fmt.Sprintf("Spoke “%s” in %s; playing it now.", trySentence, seconds(time.Since(start))), mp3, nil
}

// speechFailure says what a failed speech call means, in one line naming the engine.
func speechFailure(where string, err error, key string) error {
	var ue *speech.UpstreamError
	var me *speech.EngineMissingError
	var ne net.Error
	switch {
	case errors.As(err, &me):
		return errors.New(sentence(me.Error()))
	case errors.As(err, &ue) && (ue.Status == http.StatusUnauthorized || ue.Status == http.StatusForbidden):
		return fmt.Errorf("%s refused the API key (%d): check the key", where, ue.Status)
	case errors.As(err, &ue) && ue.Status == http.StatusNotFound:
		return fmt.Errorf("%s has no such endpoint or model (404): check that the address ends in /v1, and the model's name", where)
	case errors.As(err, &ue) && ue.Status != 0:
		return fmt.Errorf("%s failed (%d: %s)", where, ue.Status, oneLine(keyecho.Blank(ue.Err.Error(), key, "[API key]"), 120))
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("%s did not answer: is it running, and is the address right?", where)
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
		return fmt.Errorf("%s took longer than %s to answer", where, seconds(tryTimeout))
	}
	return fmt.Errorf("%s failed: %s", where, oneLine(keyecho.Blank(err.Error(), key, "[API key]"), 160))
}

// seconds is d as people read it: "0.8 s", "12 s".
func seconds(d time.Duration) string {
	if d < 10*time.Second {
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + " s"
	}
	return strconv.Itoa(int(d.Round(time.Second).Seconds())) + " s"
}

// oneLine is s on one line, cut to n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// sentence is msg with a capital first letter.
func sentence(msg string) string {
	r, n := utf8.DecodeRuneInString(msg)
	if !unicode.IsLower(r) {
		return msg
	}
	return string(unicode.ToUpper(r)) + msg[n:]
}
