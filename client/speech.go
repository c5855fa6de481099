package client

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"parley/internal/jsonscan"
)

// SpeechRequest is text to speak.
type SpeechRequest struct {
	// Text is what to say.
	Text string
	// Voice names the voice; empty is not sent, leaving the service's default.
	Voice string
}

// Speech is spoken audio, normally MP3.
type Speech struct {
	// MIMEType is the audio's media type, such as "audio/mpeg".
	MIMEType string
	// Audio holds the decoded audio bytes.
	Audio []byte
}

// speechAnswer is the payload of a speech answer: the reference service's {"audio": <data URI>},
// or plain base64 under "audio" or "audio_base64" with its type under "format", "mime_type" or
// "content_type". A JSON string answer is read as the audio itself.
type speechAnswer struct {
	Audio       jsonString `json:"audio"`
	AudioBase64 jsonString `json:"audio_base64"`
	Format      jsonString `json:"format"`
	MIMEType    jsonString `json:"mime_type"`
	ContentType jsonString `json:"content_type"`
}

// maxSpeechBytes bounds decoded speech audio; the body cap already bounds it near this.
const maxSpeechBytes = maxSuccessBody

// Speak converts text to speech (POST /v1/chat/speech).
func (c *Client) Speak(ctx context.Context, req SpeechRequest) (*Speech, error) {
	const route = "/v1/chat/speech"
	if strings.TrimSpace(req.Text) == "" {
		return nil, errors.New("POST " + route + ": no text to speak")
	}
	body := struct {
		Text  string `json:"text"`
		Voice string `json:"voice,omitempty"`
	}{req.Text, req.Voice}
	r := &request{method: http.MethodPost, path: route, retry: true, accept: "application/json, audio/mpeg;q=0.9, audio/*;q=0.8"}
	if err := r.jsonBody(body); err != nil {
		return nil, err
	}
	res, err := c.do(ctx, r)
	if err != nil {
		return nil, err
	}
	return c.decodeSpeech(res)
}

func (c *Client) decodeSpeech(res *response) (*Speech, error) {
	const route = "/v1/chat/speech"
	if !res.isJSON {
		// Some services answer with the audio itself.
		ct, _, _ := mime.ParseMediaType(res.header.Get("Content-Type"))
		if strings.HasPrefix(ct, "audio/") && len(res.body) > 0 {
			return &Speech{MIMEType: ct, Audio: res.body}, nil
		}
		return nil, c.decodeError(res, "audio")
	}
	var a speechAnswer
	var uri string
	ok := false
	if decodeObject(res.payload, &a) {
		for _, f := range []jsonString{a.Audio, a.AudioBase64} {
			if uri, ok = f.get(); ok {
				break
			}
		}
	} else {
		uri, ok = jsonscan.String(res.payload)
	}
	if !ok || strings.TrimSpace(uri) == "" {
		return nil, c.decodeError(res, "audio")
	}
	mimeType, audio, err := parseDataURI(uri, maxSpeechBytes, false)
	if err != nil {
		return nil, fmt.Errorf("POST %s: the audio in the answer: %w", route, err)
	}
	if len(audio) == 0 {
		return nil, c.decodeError(res, "audio")
	}
	if mimeType == "" {
		for _, f := range []jsonString{a.Format, a.MIMEType, a.ContentType} {
			if s, ok := f.get(); ok {
				mimeType = speechType(s)
				break
			}
		}
	}
	if mimeType == "" {
		mimeType = "audio/mpeg"
	}
	return &Speech{MIMEType: mimeType, Audio: audio}, nil
}

// speechType turns a format name like "mp3" into a media type.
func speechType(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "mp3", "mpeg":
		return "audio/mpeg"
	case "wav", "wave":
		return "audio/wav"
	case "ogg", "opus":
		return "audio/ogg"
	case "":
		return ""
	}
	if strings.Contains(s, "/") {
		return s
	}
	return "audio/" + s
}
