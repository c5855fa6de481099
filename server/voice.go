package server

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"parley/media"
	"parley/server/speech"
	"parley/server/store"
)

// speechTimeout bounds one transcription or synthesis.
const speechTimeout = 120 * time.Second

// handleTranscribe is POST /v1/chat/transcribe: audio in, text and language
// out. The call is admitted (sttGate) before its body is read, the size is
// judged before the base64 is decoded, and the audio is decoded only once the
// call has a slot to run in, so that waiting calls hold their upload only.
func (s *Server) handleTranscribe(w http.ResponseWriter, r *http.Request, acct store.Account) *apiError {
	release, e := s.sttGate.admit(w, acct.ID)
	if e != nil {
		return e
	}
	defer release()
	f, e := readObject(r)
	if e != nil {
		return e
	}
	in, e := decodeTranscribe(f)
	if e != nil {
		return e
	}
	if s.stt == nil {
		return errorf(http.StatusServiceUnavailable, codeEngineMissing,
			"Speech-to-text is not available: install the Debian packages pocketsphinx pocketsphinx-en-us, or start the service with --stt-url.")
	}
	done, e := s.sttGate.run(r.Context(), w)
	if e != nil {
		return e
	}
	defer done()
	audio, e := decodeAudio(in)
	if e != nil {
		return e
	}
	ctx, cancel := context.WithTimeout(r.Context(), speechTimeout)
	defer cancel()
	tr, err := s.stt.Transcribe(speech.WithExpectedLanguage(speech.WithLanguage(ctx, in.Language), in.Expected), audio, in.MIME)
	if err != nil {
		return s.speechError(r, "transcribe", err)
	}
	writeData(w, struct {
		Text     string `json:"text"`
		Language string `json:"language"`
	}{tr.Text, tr.Language})
	return nil
}

// handleSpeech is POST /v1/chat/speech: text in, an MP3 data URI out. Calls
// are admitted and run through ttsGate like transcriptions.
func (s *Server) handleSpeech(w http.ResponseWriter, r *http.Request, acct store.Account) *apiError {
	release, e := s.ttsGate.admit(w, acct.ID)
	if e != nil {
		return e
	}
	defer release()
	f, e := readObject(r)
	if e != nil {
		return e
	}
	body, e := decodeSpeech(f)
	if e != nil {
		return e
	}
	if s.tts == nil {
		return errorf(http.StatusServiceUnavailable, codeEngineMissing,
			"Text-to-speech is not available: install the Debian packages flite (or espeak-ng) and lame, or start the service with --tts-url.")
	}
	voices := s.tts.Voices()
	voice := body.Voice
	if voice == "" && len(voices) > 0 {
		voice = voices[0].Name
	} else if voice != "" && len(voices) > 0 && !hasVoice(voices, voice) {
		if !s.lenient {
			return unknownVoice(voice, voices)
		}
		voice = voices[0].Name
	}
	done, e := s.ttsGate.run(r.Context(), w)
	if e != nil {
		return e
	}
	mp3, err := s.synthesize(r.Context(), body.Text, voice)
	done()
	if errors.Is(err, speech.ErrUnknownVoice) {
		return unknownVoice(voice, voices)
	}
	if err != nil {
		return s.speechError(r, "synthesize", err)
	}
	if info, ok := r.Context().Value(logInfoKey{}).(*logInfo); ok {
		info.voice.Store(&voice) // the request's log line names it
	}
	writeSpeech(w, mp3, voice)
	return nil
}

func (s *Server) synthesize(ctx context.Context, text, voice string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, speechTimeout)
	defer cancel()
	return s.tts.Synthesize(ctx, text, voice)
}

// speechPrefix begins the answer of a speech call, up to the base64 of its MP3.
const speechPrefix = `{"data":{"audio":"data:audio/mpeg;base64,`

// writeSpeech writes the 200 answer of a speech call, {"data": {"audio": "data:audio/mpeg;
// base64,…", "voice": …}}, as writeData would, but encodes the MP3 to base64 on its way to
// the client, so that the answer holds the MP3 and a small buffer, not three copies of it.
func writeSpeech(w http.ResponseWriter, mp3 []byte, voice string) {
	voiceJSON, err := json.Marshal(voice)
	if err != nil {
		voiceJSON = []byte(`""`) // a string always marshals
	}
	const middle, end = `","voice":`, "}}\n"
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(len(speechPrefix)+base64.StdEncoding.EncodedLen(len(mp3))+len(middle)+len(voiceJSON)+len(end)))
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(w, 32<<10)
	bw.WriteString(speechPrefix)
	enc := base64.NewEncoder(base64.StdEncoding, bw)
	enc.Write(mp3)
	enc.Close()
	bw.WriteString(middle)
	bw.Write(voiceJSON)
	bw.WriteString(end)
	bw.Flush() // an error means the client is gone or too slow: nobody reads an answer now
}

// handleVoices is GET /v1/chat/voices: the voices /v1/chat/speech accepts,
// the default first.
func (s *Server) handleVoices(w http.ResponseWriter, _ *http.Request, _ store.Account) *apiError {
	type voiceJSON struct {
		Name        string `json:"name"`
		Language    string `json:"language"`
		Description string `json:"description"`
		Default     bool   `json:"default"`
	}
	out := struct {
		Voices []voiceJSON `json:"voices"`
	}{Voices: []voiceJSON{}}
	if s.tts != nil {
		for i, v := range s.tts.Voices() {
			out.Voices = append(out.Voices, voiceJSON{v.Name, v.Language, v.Description, i == 0})
		}
	}
	writeData(w, out)
	return nil
}

func hasVoice(voices []speech.Voice, name string) bool {
	for _, v := range voices {
		if v.Name == name {
			return true
		}
	}
	return false
}

func unknownVoice(name string, voices []speech.Voice) *apiError {
	names := make([]string, 0, 8)
	for i, v := range voices {
		if i == 8 {
			names = append(names, "…")
			break
		}
		names = append(names, v.Name)
	}
	msg := "There is no voice " + quote(name) + "."
	if len(names) > 0 {
		msg += " Voices include " + strings.Join(names, ", ") + "; GET /v1/chat/voices lists them all."
	}
	return errorf(http.StatusUnprocessableEntity, codeUnknownVoice, "%s", msg)
}

func quote(s string) string { return "\"" + truncate(s, 64) + "\"" }

// speechError maps an engine's error to what the client is told.
func (s *Server) speechError(r *http.Request, op string, err error) *apiError {
	var missing *speech.EngineMissingError
	var upstream *speech.UpstreamError
	switch {
	case clientGone(r) && errors.Is(err, context.Canceled):
		// The client went away while the engine waited or ran: not a fault.
		return errClientClosed()
	case errors.As(err, &missing):
		s.log.Warn("speech engine missing", "op", op, "err", err)
		return errorf(http.StatusServiceUnavailable, codeEngineMissing,
			"The speech engine is not installed: %s.", missing.Error())
	case errors.Is(err, media.ErrTooLong):
		return errorf(http.StatusRequestEntityTooLarge, codeAudioTooLarge,
			"The audio is longer than %d minutes, the most the service transcribes at once.", int(media.MaxDuration/time.Minute))
	case errors.Is(err, speech.ErrNotAudio):
		return errorf(http.StatusUnsupportedMediaType, codeUnsupportedAudio,
			"The audio could not be read; send WebM/Opus, Ogg/Opus, WAV, MP3 or FLAC.")
	case errors.Is(err, speech.ErrNarrowband):
		return errorf(http.StatusUnprocessableEntity, codeNarrowband,
			"The audio has nothing above 4 kHz, as a telephone or a Bluetooth headset's microphone sends it; "+
				"this service's recogniser needs a microphone that records at 16 kHz or more.")
	case errors.Is(err, speech.ErrLanguage):
		return errorf(http.StatusUnprocessableEntity, codeUnsupportedLanguage,
			"This service's recogniser hears English only; for other languages it needs a Whisper server (see its README). "+
				"If the question was in English, ask for English.")
	case errors.Is(err, speech.ErrEmptyText), errors.Is(err, speech.ErrTextTooLong):
		return errorf(http.StatusUnprocessableEntity, codeOutOfRange, "The text cannot be spoken: %v.", err)
	case errors.As(err, &upstream), errors.Is(err, context.DeadlineExceeded):
		s.log.Warn("speech engine failed", "op", op, "err", err)
		return errorf(http.StatusBadGateway, codeUpstream, "The speech engine failed; try again later.")
	}
	return s.internal(r, op, err)
}
