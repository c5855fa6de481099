package server

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"time"

	"parley/media"
	"parley/server/speech"
	"parley/server/store"
)

// speechTimeout bounds one transcription or synthesis.
const speechTimeout = 120 * time.Second

// handleTranscribe is POST /v1/chat/transcribe: audio in, text and language
// out. The size is judged before the base64 is decoded.
func (s *Server) handleTranscribe(w http.ResponseWriter, r *http.Request, _ store.Account) *apiError {
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
	audio, e := decodeAudio(in)
	if e != nil {
		return e
	}
	ctx, cancel := context.WithTimeout(r.Context(), speechTimeout)
	defer cancel()
	tr, err := s.stt.Transcribe(ctx, audio, in.MIME)
	if err != nil {
		return s.speechError(r, "transcribe", err)
	}
	writeData(w, struct {
		Text     string `json:"text"`
		Language string `json:"language"`
	}{tr.Text, tr.Language})
	return nil
}

// handleSpeech is POST /v1/chat/speech: text in, an MP3 data URI out.
func (s *Server) handleSpeech(w http.ResponseWriter, r *http.Request, _ store.Account) *apiError {
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
			"Text-to-speech is not available: install the Debian packages espeak-ng and lame, or start the service with --tts-url.")
	}
	voices := s.tts.Voices()
	voice := body.Voice
	if voice == "" && len(voices) > 0 {
		voice = voices[0].Name
	} else if voice != "" && len(voices) > 0 && !hasVoice(voices, voice) {
		return unknownVoice(voice, voices)
	}
	ctx, cancel := context.WithTimeout(r.Context(), speechTimeout)
	defer cancel()
	mp3, err := s.tts.Synthesize(ctx, body.Text, voice)
	if errors.Is(err, speech.ErrUnknownVoice) {
		return unknownVoice(voice, voices)
	}
	if err != nil {
		return s.speechError(r, "synthesize", err)
	}
	writeData(w, struct {
		Audio string `json:"audio"`
		Voice string `json:"voice"`
	}{"data:audio/mpeg;base64," + base64.StdEncoding.EncodeToString(mp3), voice})
	return nil
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
	case errors.Is(err, speech.ErrEmptyText), errors.Is(err, speech.ErrTextTooLong):
		return errorf(http.StatusUnprocessableEntity, codeOutOfRange, "The text cannot be spoken: %v.", err)
	case errors.As(err, &upstream), errors.Is(err, context.DeadlineExceeded):
		s.log.Warn("speech engine failed", "op", op, "err", err)
		return errorf(http.StatusBadGateway, codeUpstream, "The speech engine failed; try again later.")
	}
	return s.internal(r, op, err)
}
