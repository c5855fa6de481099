package client

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"
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
	// DataURI is the audio as a data URI, as the service gave it or built from Audio.
	DataURI string
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
	if !res.isJSON {
		// Some services answer with the audio itself.
		ct, _, _ := mime.ParseMediaType(res.header.Get("Content-Type"))
		if strings.HasPrefix(ct, "audio/") && len(res.body) > 0 {
			return &Speech{MIMEType: ct, Audio: res.body, DataURI: EncodeDataURI(ct, res.body)}, nil
		}
		return nil, c.decodeError(res, "audio")
	}
	ls := layersOf(res.doc)
	uri, ok := lookupString(ls, "audio", "audio_url", "audioUrl", "data_uri", "dataUri", "url", "src", "speech", "audio_base64", "audioBase64", "base64", "audio_data")
	if !ok {
		if s, isString := res.doc.(string); isString {
			uri, ok = s, true
		} else if s, isString := payloadOf(res.doc).(string); isString {
			uri, ok = s, true
		}
	}
	if !ok || strings.TrimSpace(uri) == "" {
		return nil, c.decodeError(res, "audio")
	}
	mimeType, audio, err := ParseDataURILimit(uri, maxSpeechBytes)
	if err != nil {
		return nil, fmt.Errorf("POST %s: the audio in the answer: %w", route, err)
	}
	if len(audio) == 0 {
		return nil, c.decodeError(res, "audio")
	}
	if mimeType == "" {
		if mt, ok := lookupString(ls, "mime_type", "mimeType", "content_type", "contentType", "format"); ok {
			mimeType = speechType(mt)
		}
	}
	if mimeType == "" {
		mimeType = "audio/mpeg"
	}
	if !strings.HasPrefix(strings.ToLower(strings.TrimSpace(uri)), "data:") {
		uri = EncodeDataURI(mimeType, audio)
	}
	return &Speech{MIMEType: mimeType, Audio: audio, DataURI: uri}, nil
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
