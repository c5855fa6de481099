package client

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"parley/internal/jsonscan"
	"parley/internal/langtag"
)

// TranscribeRequest is audio to turn into text.
type TranscribeRequest struct {
	// Audio is the recording, at most MaxAudioBytes.
	Audio []byte
	// MIMEType, such as "audio/webm", is sent as a data URI prefix; empty sends plain base64.
	MIMEType string
	// Language, a BCP 47 tag such as "de", asks for speech in that language. The Chat and Voice
	// Service's transcribe takes no language: set it only for a service that does, Parley's own
	// (docs/API.md); empty sends none.
	Language string
	// ExpectedLanguage, a BCP 47 tag, is the language the question is probably in (the language
	// its conversation is written in) when no Language is asked for: a hint, sent as
	// "expected_language", with which a recogniser that cannot hear it says so instead of
	// guessing words; one that can tell languages itself ignores it. Like Language, only for
	// Parley's own service; empty sends none.
	ExpectedLanguage string
}

// Transcript is the text heard in the audio and its language.
type Transcript struct {
	// Text is what was said.
	Text string `json:"text"`
	// Language is the language the service detected, in its own notation.
	Language string `json:"language"`
}

// Transcribe converts speech to text (POST /v1/chat/transcribe). The audio is base64-encoded while
// it is sent, never copied whole; audio over MaxAudioBytes is refused before any upload.
func (c *Client) Transcribe(ctx context.Context, req TranscribeRequest) (*Transcript, error) {
	const route = "/v1/chat/transcribe"
	if len(req.Audio) == 0 {
		return nil, errors.New("POST " + route + ": no audio to transcribe")
	}
	if len(req.Audio) > MaxAudioBytes {
		return nil, fmt.Errorf("POST %s: %w", route, &sizeError{what: "the audio", size: int64(len(req.Audio)), limit: MaxAudioBytes, audio: true})
	}
	if strings.ContainsAny(req.MIMEType, ", \t\r\n\"\\") || strings.HasSuffix(strings.ToLower(req.MIMEType), ";base64") {
		return nil, fmt.Errorf("POST %s: invalid audio type %q", route, truncate(req.MIMEType, 40))
	}
	for _, l := range []string{req.Language, req.ExpectedLanguage} {
		if l != "" && !langtag.IsTag(l) {
			return nil, fmt.Errorf("POST %s: invalid language %q", route, truncate(l, 40))
		}
	}
	r := &request{method: http.MethodPost, path: route, retry: true}
	r.body, r.length = transcribeBody(req.MIMEType, req.Language, req.ExpectedLanguage, req.Audio)
	res, err := c.do(ctx, r)
	if err != nil {
		return nil, err
	}
	return c.decodeTranscript(res)
}

func (c *Client) decodeTranscript(res *response) (*Transcript, error) {
	if !res.isJSON {
		return nil, c.decodeError(res, "text")
	}
	var a transcriptAnswer
	if !decodeObject(res.payload, &a) {
		if text, ok := jsonscan.String(res.payload); ok {
			return &Transcript{Text: text}, nil
		}
		return nil, c.decodeError(res, "text")
	}
	t, ok := a.transcript()
	if !ok && a.Result.ok {
		t, ok = a.Result.a.transcript()
	}
	if !ok {
		return nil, c.decodeError(res, "text")
	}
	return &t, nil
}

// transcriptAnswer is the payload of a transcription: the reference service's {"text",
// "language"}. "transcript" for "text", "lang", "detected_language" or "language_code" for
// "language", a language object {"code", "name"}, a {"result": {...}} wrapper and a JSON string
// answer are variants.
type transcriptAnswer struct {
	transcriptFields
	Result resultWrapper `json:"result"`
}

// transcriptFields are the members of a transcription, at the top or under "result".
type transcriptFields struct {
	Text             jsonString    `json:"text"`
	Transcript       jsonString    `json:"transcript"`
	Language         languageField `json:"language"`
	Lang             jsonString    `json:"lang"`
	DetectedLanguage jsonString    `json:"detected_language"`
	LanguageCode     jsonString    `json:"language_code"`
}

// transcript returns the text and language, if the text was given.
func (a *transcriptFields) transcript() (Transcript, bool) {
	for _, f := range []jsonString{a.Text, a.Transcript} {
		if text, ok := f.get(); ok {
			t := Transcript{Text: text}
			for _, l := range []jsonString{a.Language.jsonString, a.Lang, a.DetectedLanguage, a.LanguageCode} {
				if s, ok := l.get(); ok {
					t.Language = s
					break
				}
			}
			return t, true
		}
	}
	return Transcript{}, false
}

// languageField is a language given as a string, or as {"code": …, "name": …} (the code is kept).
type languageField struct{ jsonString }

// UnmarshalJSON reads a string, or the code (else the name) of an object.
func (l *languageField) UnmarshalJSON(b []byte) error {
	if jsonscan.FirstByte(b) != '{' {
		return l.jsonString.UnmarshalJSON(b)
	}
	var o struct {
		Code jsonString `json:"code"`
		Name jsonString `json:"name"`
	}
	decodeObject(b, &o)
	l.jsonString = o.Code
	if !o.Code.ok {
		l.jsonString = o.Name
	}
	return nil
}

// resultWrapper is a transcription wrapped as {"result": {"text", "language"}}.
type resultWrapper struct {
	a  transcriptFields
	ok bool
}

// UnmarshalJSON reads an object and ignores any other value.
func (r *resultWrapper) UnmarshalJSON(b []byte) error {
	r.ok = decodeObject(b, &r.a)
	return nil
}

// transcribeBody returns a factory for the JSON body {"audio":"[data:<mime>;base64,]<base64>"}
// that encodes the audio as it is read, and the body's exact length.
func transcribeBody(mimeType, language, expected string, audio []byte) (func() io.Reader, int64) {
	prefix := ""
	if mimeType != "" {
		prefix = "data:" + mimeType + ";base64,"
	}
	head, _ := json.Marshal(prefix) // escapes anything unusual in the type
	open := []byte(`{`)
	for _, f := range []struct{ name, value string }{{"language", language}, {"expected_language", expected}} {
		if f.value != "" {
			v, _ := json.Marshal(f.value)
			open = append(append(append(append(open, '"'), f.name...), `":`...), v...)
			open = append(open, ',')
		}
	}
	open = append(open, `"audio":`...)
	head = append(open, head[:len(head)-1]...)
	tail := []byte(`"}`)
	n := int64(len(head)) + int64(base64.StdEncoding.EncodedLen(len(audio))) + int64(len(tail))
	return func() io.Reader {
		return io.MultiReader(bytes.NewReader(head), &base64Reader{src: audio}, bytes.NewReader(tail))
	}, n
}

// base64Reader encodes src as standard base64 straight into the reader's buffer.
type base64Reader struct {
	src  []byte
	pend [4]byte // encoded bytes not yet delivered, when the caller's buffer was tiny
	np   int
}

func (r *base64Reader) Read(p []byte) (int, error) {
	n := 0
	for r.np > 0 && n < len(p) {
		p[n] = r.pend[4-r.np]
		r.np--
		n++
	}
	if len(r.src) == 0 {
		if n == 0 {
			return 0, io.EOF
		}
		return n, nil
	}
	room := (len(p) - n) / 4 * 3
	if room > 0 {
		take := min(room, len(r.src))
		base64.StdEncoding.Encode(p[n:], r.src[:take])
		r.src = r.src[take:]
		return n + base64.StdEncoding.EncodedLen(take), nil
	}
	if n > 0 {
		return n, nil
	}
	// Fewer than four bytes of room: encode one group aside and hand it out piecemeal.
	take := min(3, len(r.src))
	base64.StdEncoding.Encode(r.pend[:], r.src[:take])
	r.src = r.src[take:]
	r.np = 4
	for r.np > 0 && n < len(p) {
		p[n] = r.pend[4-r.np]
		r.np--
		n++
	}
	return n, nil
}
