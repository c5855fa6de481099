package server

import (
	"encoding/base64"
	"io"
	"mime"
	"net/http"
	"strings"

	"parley/internal/langtag"
)

// MaxAudioBytes is the largest decoded audio a transcribe call accepts.
const MaxAudioBytes = 10_000_000

// audioInput is the audio of a transcribe body, still in base64.
type audioInput struct {
	MIME   string // from a data URI; "" for plain base64
	Base64 string
	Size   int // the decoded size, as judged from the base64 length
	// Language is the language the speech is in, as a BCP 47 tag, "" to have it found:
	// Parley's extension, an optional "language" field (docs/API.md).
	Language string
	// Expected is the language the question is probably in, a hint when Language is "": the
	// optional "expected_language" field, Parley's extension too.
	Expected string
}

// decodeTranscribe reads the audio field, splits off a data-URI prefix and
// judges the decoded size from the base64 length, before any decoding.
func decodeTranscribe(f fields) (audioInput, *apiError) {
	s, e := f.requiredStr("audio")
	if e != nil {
		return audioInput{}, e
	}
	in := audioInput{Base64: s}
	if len(s) >= 5 && strings.EqualFold(s[:5], "data:") {
		comma := strings.IndexByte(s, ',')
		if comma < 0 {
			return in, errorf(http.StatusBadRequest, codeInvalidField,
				"The audio data URI has no comma before its data.")
		}
		header := s[5:comma]
		in.Base64 = s[comma+1:]
		params := strings.Split(header, ";")
		if !strings.EqualFold(strings.TrimSpace(params[len(params)-1]), "base64") {
			return in, errorf(http.StatusBadRequest, codeInvalidField,
				"The audio data URI must be base64-encoded (data:<type>;base64,<data>).")
		}
		mt := strings.ToLower(strings.TrimSpace(params[0]))
		if len(params) > 1 && mt != "" {
			if parsed, _, err := mime.ParseMediaType(strings.Join(params[:len(params)-1], ";")); err == nil {
				mt = parsed
			}
		}
		if mt != "" && !audioMIME(mt) {
			return in, errorf(http.StatusUnsupportedMediaType, codeUnsupportedAudio,
				"The data URI says %q, which is not audio; send WebM/Opus, Ogg/Opus, WAV, MP3 or FLAC.", truncate(mt, 64))
		}
		in.MIME = mt
	}
	n, ok := decodedLen(in.Base64)
	if n > MaxAudioBytes {
		return in, errorf(http.StatusRequestEntityTooLarge, codeAudioTooLarge,
			"The audio is larger than %d bytes once decoded.", MaxAudioBytes)
	}
	if !ok {
		return in, errorf(http.StatusBadRequest, codeInvalidField, "The audio is not valid base64.")
	}
	if n == 0 {
		return in, errorf(http.StatusBadRequest, codeInvalidField, "The audio is empty.")
	}
	in.Size = n
	for _, l := range []struct {
		field string
		to    *string
	}{{"language", &in.Language}, {"expected_language", &in.Expected}} {
		lang, present, e := f.str(l.field)
		if e != nil {
			return in, e
		}
		if present && strings.TrimSpace(lang) != "" {
			*l.to = langtag.Normalize(lang)
			if *l.to == "" {
				return in, errorf(http.StatusBadRequest, codeInvalidField,
					"The %s %q is not a language tag such as \"en\" or \"de-AT\".", l.field, truncate(lang, 40))
			}
		}
	}
	return in, nil
}

// audioMIME reports whether a data-URI media type may hold audio.
func audioMIME(mt string) bool {
	switch {
	case strings.HasPrefix(mt, "audio/"):
		return true
	case mt == "video/webm", mt == "video/ogg", mt == "application/ogg", mt == "application/octet-stream":
		return true
	}
	return false
}

// isB64Space reports the bytes a base64 decoder skips.
func isB64Space(c byte) bool { return c == '\r' || c == '\n' || c == ' ' || c == '\t' }

// decodedLen returns the number of bytes the base64 text s decodes to,
// counted without decoding: (characters × 3 / 4) − padding. ok is false when
// the length cannot be that of base64.
func decodedLen(s string) (n int, ok bool) {
	chars, pad := 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isB64Space(c):
		case c == '=':
			pad++
			chars++
		default:
			chars++
		}
	}
	if pad > 2 {
		return chars * 3 / 4, false
	}
	if pad > 0 {
		if chars%4 != 0 {
			return chars*3/4 - pad, false
		}
		return chars*3/4 - pad, true
	}
	// Unpadded base64 is accepted too.
	return chars * 3 / 4, chars%4 != 1
}

// decodeAudio decodes the base64 of in with a streaming decoder that stops
// past MaxAudioBytes. It accepts standard and URL-safe alphabets, padded or
// not, with line breaks.
func decodeAudio(in audioInput) ([]byte, *apiError) {
	enc := base64.StdEncoding
	if strings.ContainsAny(in.Base64, "-_") {
		enc = base64.URLEncoding
	}
	if !strings.Contains(in.Base64, "=") {
		enc = enc.WithPadding(base64.NoPadding)
	}
	// Valid base64 decodes to exactly the judged size; the buffer has one
	// byte more, so that filling it shows data that is not valid base64.
	audio := make([]byte, min(in.Size, MaxAudioBytes)+1)
	n, err := io.ReadFull(base64.NewDecoder(enc, strings.NewReader(in.Base64)), audio)
	if err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, errorf(http.StatusBadRequest, codeInvalidField, "The audio is not valid base64.")
	}
	audio = audio[:n]
	if len(audio) == 0 {
		return nil, errorf(http.StatusBadRequest, codeInvalidField, "The audio is empty.")
	}
	return audio, nil
}

// truncate cuts s to at most n bytes for quoting in a message.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
