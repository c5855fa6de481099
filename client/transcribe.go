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
)

// TranscribeRequest is audio to turn into text.
type TranscribeRequest struct {
	// Audio is the recording, at most MaxAudioBytes.
	Audio []byte
	// MIMEType, such as "audio/webm", is sent as a data URI prefix; empty sends plain base64.
	MIMEType string
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
	r := &request{method: http.MethodPost, path: route, retry: true}
	r.body, r.length = transcribeBody(req.MIMEType, req.Audio)
	res, err := c.do(ctx, r)
	if err != nil {
		return nil, err
	}
	if !res.isJSON {
		return nil, c.decodeError(res, "text")
	}
	ls := layersOf(res.doc)
	if o, ok := lookupObject(ls, "transcript", "transcription", "result"); ok {
		ls = append([]object{o}, ls...)
	}
	text, ok := lookupString(ls, "text", "transcript", "transcription", "result", "content")
	if !ok {
		if s, isString := res.doc.(string); isString {
			text, ok = s, true
		}
	}
	if !ok {
		return nil, c.decodeError(res, "text")
	}
	langKeys := []string{"language", "lang", "detected_language", "detectedLanguage", "language_code", "languageCode", "locale"}
	lang, ok := lookupString(ls, langKeys...)
	if !ok {
		if o, found := lookupObject(ls, langKeys...); found { // {"language": {"code": "en", "name": "English"}}
			lang, _ = lookupString([]object{o}, "code", "name")
		}
	}
	return &Transcript{Text: text, Language: lang}, nil
}

// transcribeBody returns a factory for the JSON body {"audio":"[data:<mime>;base64,]<base64>"}
// that encodes the audio as it is read, and the body's exact length.
func transcribeBody(mimeType string, audio []byte) (func() io.Reader, int64) {
	prefix := ""
	if mimeType != "" {
		prefix = "data:" + mimeType + ";base64,"
	}
	head, _ := json.Marshal(prefix) // escapes anything unusual in the type
	head = append([]byte(`{"audio":`), head[:len(head)-1]...)
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
