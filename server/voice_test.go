package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"strings"
	"sync"
	"testing"

	"parley/server/speech"
)

// fakeSTT records what it was given and answers "hello world".
type fakeSTT struct {
	mu    sync.Mutex
	calls int
	audio []byte
	mime  string
	lang  string // the language asked for (speech.LanguageOf)
	hint  string // the language expected (speech.ExpectedLanguageOf)
	err   error
}

func (f *fakeSTT) Transcribe(ctx context.Context, audio []byte, mime string) (speech.Transcript, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	f.audio, f.mime, f.lang, f.hint = audio, mime, speech.LanguageOf(ctx), speech.ExpectedLanguageOf(ctx)
	if f.err != nil {
		return speech.Transcript{}, f.err
	}
	return speech.Transcript{Text: "hello world", Language: "en"}, nil
}

// fakeTTS returns the text as its "MP3".
type fakeTTS struct{ err error }

func (f fakeTTS) Synthesize(_ context.Context, text, voice string) ([]byte, error) {
	if f.err != nil {
		return nil, f.err
	}
	return []byte("ID3" + voice + ":" + text), nil
}

func (fakeTTS) Voices() []speech.Voice {
	return []speech.Voice{{Name: "en-us", Language: "en-US", Description: "American English"}, {Name: "fr", Language: "fr"}}
}

func TestTranscribe_Forms(t *testing.T) {
	stt := &fakeSTT{}
	e := newEnv(t, 10, func(c *Config) { c.STT = stt })
	audio := []byte("RIFF....WAVEfmt some audio bytes")
	b64 := base64.StdEncoding.EncodeToString(audio)
	for _, c := range []struct{ name, in, mime string }{
		{"data uri", "data:audio/webm;base64," + b64, "audio/webm"},
		{"data uri with codecs", "data:audio/webm;codecs=opus;base64," + b64, "audio/webm"},
		{"plain", b64, ""},
		{"plain unpadded url-safe", base64.RawURLEncoding.EncodeToString(audio), ""},
		{"wrapped lines", b64[:10] + "\n" + b64[10:], ""},
	} {
		r := e.do("POST", "/v1/chat/transcribe", map[string]any{"audio": c.in})
		if r.Status != 200 || r.data()["text"] != "hello world" || r.data()["language"] != "en" {
			t.Errorf("%s: %d %s", c.name, r.Status, r.Raw)
			continue
		}
		if !bytes.Equal(stt.audio, audio) || stt.mime != c.mime {
			t.Errorf("%s: engine got %q as %q", c.name, stt.audio, stt.mime)
		}
	}
	if e.balance() != 10 {
		t.Errorf("transcription charged points")
	}
}

// Parley's extension: an optional "language" reaches the recogniser as a BCP 47 tag; one that is
// not a language is refused before any recognition; a recogniser that cannot hear the language
// asked (the built-in one, English only) answers 422 unsupported_language.
func TestTranscribe_Language(t *testing.T) {
	stt := &fakeSTT{}
	e := newEnv(t, 10, func(c *Config) { c.STT = stt })
	b64 := base64.StdEncoding.EncodeToString([]byte("RIFF....WAVEfmt some audio bytes"))
	for in, want := range map[any]string{"German": "de", "de-AT": "de-AT", "": "", nil: ""} {
		r := e.do("POST", "/v1/chat/transcribe", map[string]any{"audio": b64, "language": in})
		if r.Status != 200 || stt.lang != want {
			t.Errorf("language %v: %d %s, recogniser asked for %q, want %q", in, r.Status, r.Raw, stt.lang, want)
		}
	}
	calls := stt.calls
	for _, in := range []any{"not a language!", 42} {
		if r := e.do("POST", "/v1/chat/transcribe", map[string]any{"audio": b64, "language": in}); r.Status != 400 || r.code() != codeInvalidField {
			t.Errorf("language %v: %d %s, want 400 invalid_field", in, r.Status, r.Raw)
		}
	}
	if stt.calls != calls {
		t.Error("a refused language reached the recogniser")
	}
	if r := e.do("POST", "/v1/chat/transcribe", map[string]any{"audio": b64, "expected_language": "Polish"}); r.Status != 200 || stt.hint != "pl" || stt.lang != "" {
		t.Errorf("expected language: %d %s, recogniser told %q, asked for %q", r.Status, r.Raw, stt.hint, stt.lang)
	}
	if r := e.do("POST", "/v1/chat/transcribe", map[string]any{"audio": b64, "expected_language": "not a language!"}); r.Status != 400 {
		t.Errorf("a bad expected language: %d %s", r.Status, r.Raw)
	}
	stt.err = speech.ErrLanguage
	r := e.do("POST", "/v1/chat/transcribe", map[string]any{"audio": b64, "language": "de"})
	if r.Status != 422 || r.code() != codeUnsupportedLanguage || !strings.Contains(string(r.Raw), "English only") {
		t.Errorf("%d %s, want 422 unsupported_language saying the recogniser hears English only", r.Status, r.Raw)
	}
}

func TestTranscribe_Rejections(t *testing.T) {
	stt := &fakeSTT{}
	e := newEnv(t, 10, func(c *Config) { c.STT = stt })
	for _, c := range []struct {
		name, body string
		status     int
		code       string
	}{
		{"missing", `{}`, 400, codeInvalidField},
		{"number", `{"audio": 12}`, 400, codeInvalidField},
		{"empty", `{"audio": ""}`, 400, codeInvalidField},
		{"bad base64", `{"audio": "not base64!!"}`, 400, codeInvalidField},
		{"bad length", `{"audio": "QUJDR"}`, 400, codeInvalidField},
		{"no comma", `{"audio": "data:audio/webm;base64"}`, 400, codeInvalidField},
		{"not base64 uri", `{"audio": "data:audio/webm,abcd"}`, 400, codeInvalidField},
		{"text uri", `{"audio": "data:text/plain;base64,aGVsbG8="}`, 415, codeUnsupportedAudio},
		{"image uri", `{"audio": "data:image/png;base64,aGVsbG8="}`, 415, codeUnsupportedAudio},
	} {
		r := e.do("POST", "/v1/chat/transcribe", c.body)
		if r.Status != c.status || r.code() != c.code {
			t.Errorf("%s: %d %q, want %d %q: %s", c.name, r.Status, r.code(), c.status, c.code, r.Raw)
		}
	}
	stt.err = speech.ErrNotAudio
	if r := e.do("POST", "/v1/chat/transcribe", map[string]any{"audio": "aGVsbG8gd29ybGQ="}); r.Status != 415 || r.code() != codeUnsupportedAudio {
		t.Errorf("engine says not audio: %d %s", r.Status, r.Raw)
	}
	stt.err = speech.ErrNarrowband
	if r := e.do("POST", "/v1/chat/transcribe", map[string]any{"audio": "aGVsbG8gd29ybGQ="}); r.Status != 422 || r.code() != codeNarrowband ||
		!strings.Contains(string(r.Raw), "16 kHz") {
		t.Errorf("narrowband audio: %d %s", r.Status, r.Raw)
	}
	stt.err = &speech.EngineMissingError{Engine: "pocketsphinx_continuous", Package: "pocketsphinx pocketsphinx-en-us"}
	r := e.do("POST", "/v1/chat/transcribe", map[string]any{"audio": "aGVsbG8gd29ybGQ="})
	if r.Status != 503 || !strings.Contains(string(r.Raw), "pocketsphinx-en-us") {
		t.Errorf("engine missing: %d %s", r.Status, r.Raw)
	}
	stt.err = &speech.UpstreamError{Op: "transcribe", Status: 500}
	if r := e.do("POST", "/v1/chat/transcribe", map[string]any{"audio": "aGVsbG8gd29ybGQ="}); r.Status != 502 {
		t.Errorf("engine failed: %d %s", r.Status, r.Raw)
	}
}

// bigAudio is n bytes of audio in base64 without building the bytes.
func bigAudio(n int) string {
	// "AAAA" decodes to three zero bytes.
	s := strings.Repeat("AAAA", n/3)
	switch n % 3 {
	case 1:
		s += "AA=="
	case 2:
		s += "AAA="
	}
	return s
}

func TestTranscribe_SizeLimit(t *testing.T) {
	stt := &fakeSTT{}
	e := newEnv(t, 10, func(c *Config) { c.STT = stt })
	over := bigAudio(MaxAudioBytes + 1)
	if n, ok := decodedLen(over); n != MaxAudioBytes+1 || !ok {
		t.Fatalf("decodedLen %d %v", n, ok)
	}
	for name, audio := range map[string]string{"data uri": "data:audio/webm;base64," + over, "plain": over} {
		r := e.do("POST", "/v1/chat/transcribe", `{"audio":"`+audio+`"}`)
		if r.Status != 413 || r.code() != codeAudioTooLarge {
			t.Errorf("%s: %d %s", name, r.Status, r.Raw)
		}
	}
	if stt.calls != 0 {
		t.Errorf("the engine was called %d times for oversize audio", stt.calls)
	}
	at := bigAudio(MaxAudioBytes)
	r := e.do("POST", "/v1/chat/transcribe", `{"audio":"data:audio/wav;base64,`+at+`"}`)
	if r.Status != 200 || len(stt.audio) != MaxAudioBytes {
		t.Errorf("exactly 10 MB: %d (engine got %d bytes)", r.Status, len(stt.audio))
	}
}

func TestDecodeTranscribe_JudgesSizeBeforeDecoding(t *testing.T) {
	// Invalid base64 of an oversize length: only a check that never decodes
	// can answer 413 rather than 400.
	bad := strings.Repeat("!!!!", MaxAudioBytes/3+1)
	for _, in := range []string{bad, "data:audio/ogg;base64," + bad} {
		if _, e := decodeTranscribe(fields{"audio": []byte(`"` + in + `"`)}); e == nil || e.Status != 413 {
			t.Errorf("got %v, want 413", e)
		}
	}
}

func TestSpeech(t *testing.T) {
	e := newEnv(t, 10, func(c *Config) { c.TTS = fakeTTS{} })
	r := e.do("POST", "/v1/chat/speech", map[string]any{"text": "Good morning"})
	audio, _ := r.data()["audio"].(string)
	if r.Status != 200 || r.data()["voice"] != "en-us" || !strings.HasPrefix(audio, "data:audio/mpeg;base64,") {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	mp3, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(audio, "data:audio/mpeg;base64,"))
	if err != nil || string(mp3) != "ID3en-us:Good morning" {
		t.Errorf("audio %q %v", mp3, err)
	}
	if r := e.do("POST", "/v1/chat/speech", map[string]any{"text": "Bonjour", "voice": "fr"}); r.data()["voice"] != "fr" {
		t.Errorf("voice fr: %s", r.Raw)
	}
	for _, c := range []struct {
		name, body string
		status     int
		code       string
	}{
		{"missing text", `{}`, 400, codeInvalidField},
		{"number text", `{"text": 1}`, 400, codeInvalidField},
		{"number voice", `{"text": "hi", "voice": 1}`, 400, codeInvalidField},
		{"blank text", `{"text": " "}`, 422, codeOutOfRange},
		{"long text", `{"text": "` + strings.Repeat("ü", maxSpeechRunes+1) + `"}`, 422, codeOutOfRange},
		{"max text", `{"text": "` + strings.Repeat("ü", maxSpeechRunes) + `"}`, 200, ""},
		{"unknown voice", `{"text": "hi", "voice": "klingon"}`, 422, codeUnknownVoice},
		{"null voice", `{"text": "hi", "voice": null}`, 200, ""},
	} {
		r := e.do("POST", "/v1/chat/speech", c.body)
		if r.Status != c.status || r.code() != c.code {
			t.Errorf("%s: %d %q, want %d %q: %s", c.name, r.Status, r.code(), c.status, c.code, truncate(string(r.Raw), 300))
		}
	}
	v := e.do("GET", "/v1/chat/voices", nil)
	voices, _ := v.data()["voices"].([]any)
	if len(voices) != 2 || voices[0].(map[string]any)["name"] != "en-us" || voices[0].(map[string]any)["default"] != true {
		t.Errorf("voices %s", v.Raw)
	}
}

func TestSpeech_EnginesAbsent(t *testing.T) {
	e := newEnv(t, 10, nil)
	r := e.do("POST", "/v1/chat/speech", map[string]any{"text": "hi"})
	if r.Status != 503 || r.code() != codeEngineMissing || !strings.Contains(string(r.Raw), "espeak-ng") {
		t.Errorf("speech: %d %s", r.Status, r.Raw)
	}
	r = e.do("POST", "/v1/chat/transcribe", map[string]any{"audio": "aGVsbG8="})
	if r.Status != 503 || !strings.Contains(string(r.Raw), "pocketsphinx") {
		t.Errorf("transcribe: %d %s", r.Status, r.Raw)
	}
	if v := e.do("GET", "/v1/chat/voices", nil); v.Status != 200 || len(v.data()["voices"].([]any)) != 0 {
		t.Errorf("voices: %s", v.Raw)
	}
}
