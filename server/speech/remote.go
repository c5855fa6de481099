package speech

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"slices"
	"strings"
	"time"

	"parley/engine"
	"parley/internal/keyecho"
	"parley/internal/langtag"
	"parley/internal/loopback"
	"parley/media"
)

// maxTranscriptionResponse bounds a transcription response body.
const maxTranscriptionResponse = 4 << 20

// maxErrorBody bounds how much of an error response goes into an UpstreamError.
const maxErrorBody = 512

// remoteTimeout bounds a remote call when the caller gives no *http.Client.
const remoteTimeout = 2 * time.Minute

// errRedirect is returned for any redirect: following one could resend the API key elsewhere.
var errRedirect = errors.New("the speech service answered with a redirect, which is refused")

// remote is what both remote engines share: where to send, with which key, through which client.
type remote struct {
	baseURL string
	model   string
	apiKey  string
	hc      *http.Client
}

// newRemote is the remote engine at baseURL. A client without a Transport to an address of this
// computer gets engine.LoopbackTransport, whose connections owners judges (nil:
// engine.CheckOwner): the person typed the address, but another user's program may be the one
// listening there.
func newRemote(baseURL, model, apiKey string, hc *http.Client, owners engine.OwnerCheck) remote {
	var c http.Client
	if hc != nil {
		c = *hc // a copy, so the caller's client keeps its own redirect policy
	} else {
		c.Timeout = remoteTimeout
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return errRedirect }
	if c.Transport == nil && loopback.URL(baseURL) {
		c.Transport = engine.LoopbackTransport("the speech service", owners)
	}
	return remote{baseURL: strings.TrimRight(baseURL, "/"), model: model, apiKey: apiKey, hc: &c}
}

// post sends body to path and returns the response, whose body is the caller's to close, when
// its status is 2xx. Anything else is an *UpstreamError.
func (r remote) post(ctx context.Context, op, path, contentType string, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.baseURL+path, bytes.NewReader(body))
	if err != nil {
		return nil, &UpstreamError{Op: op, Err: err}
	}
	req.Header.Set("Content-Type", contentType)
	if r.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+r.apiKey)
	}
	resp, err := r.hc.Do(req)
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
			resp.Body.Close()
		}
		return nil, &UpstreamError{Op: op, Status: status, Err: err}
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return nil, &UpstreamError{Op: op, Status: resp.StatusCode, Err: errors.New(r.errorMessage(b))}
	}
	return resp, nil
}

// errorMessage picks the message out of an error body (OpenAI's {"error":{"message"}} or the
// text itself), bounded, with the API key blanked should the service echo it.
func (r remote) errorMessage(b []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	msg := ""
	if json.Unmarshal(b, &e) == nil && e.Error.Message != "" {
		msg = e.Error.Message
	} else {
		msg = string(b)
	}
	msg = strings.ToValidUTF8(strings.TrimSpace(msg), "?")
	if len(msg) > 4*maxErrorBody {
		msg = strings.ToValidUTF8(msg[:4*maxErrorBody], "")
	}
	msg = keyecho.Blank(msg, r.apiKey, "[API key]")
	if len(msg) > maxErrorBody {
		msg = strings.ToValidUTF8(msg[:maxErrorBody], "") + "…"
	}
	if msg == "" {
		msg = "no message"
	}
	return msg
}

// remoteTranscriber asks an OpenAI-compatible /audio/transcriptions endpoint.
type remoteTranscriber struct{ remote }

// NewRemoteTranscriber returns a Transcriber that posts the audio to {baseURL}/audio/transcriptions
// of an OpenAI-compatible service, with the API key as a bearer token ("" sends none). hc nil
// means a client with a two-minute timeout; redirects are refused either way. At an address of
// this computer it sends nothing to another user's program (see newRemote).
func NewRemoteTranscriber(baseURL, model, apiKey string, hc *http.Client) Transcriber {
	return &remoteTranscriber{newRemote(baseURL, model, apiKey, hc, nil)}
}

// uploadName returns a file name, with the extension the service tells the format by, for
// audio it can take; ok is false for data that is not audio.
func uploadName(audio []byte) (name string, ok bool) {
	if f := media.Sniff(audio); f != media.FormatUnknown {
		return "audio." + f.String(), true
	}
	if len(audio) >= 12 && string(audio[4:8]) == "ftyp" {
		return "audio.m4a", true // MP4 audio, as Safari records it
	}
	return "", false
}

func (t *remoteTranscriber) Transcribe(ctx context.Context, audio []byte, mime string) (Transcript, error) {
	name, ok := uploadName(audio)
	if !ok {
		return Transcript{}, notAudio(media.ErrNotAudio)
	}
	if mime == "" {
		mime = media.Sniff(audio).MIME()
		if strings.HasSuffix(name, ".m4a") {
			mime = "audio/mp4"
		}
	}
	fields := [][2]string{{"model", t.model}, {"response_format", "verbose_json"}}
	if l := LanguageOf(ctx); l != "" {
		fields = append(fields, [2]string{"language", langtag.Base(l)}) // ISO 639-1, as Whisper takes it
	}
	return t.upload(ctx, "/audio/transcriptions", upload{name: name, mime: mime, audio: audio, fields: fields}, parseTranscription)
}

// upload is an audio file to transcribe, posted as multipart form data: the file as "file",
// with fields.
type upload struct {
	name, mime string
	audio      []byte
	fields     [][2]string
}

// upload posts u to path and reads the answer with parse; a failure of the service or of its
// answer is an *UpstreamError.
func (r remote) upload(ctx context.Context, path string, u upload, parse func([]byte) (Transcript, error)) (Transcript, error) {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, u.name))
	h.Set("Content-Type", u.mime)
	part, err := w.CreatePart(h)
	if err == nil {
		_, err = part.Write(u.audio)
	}
	for _, f := range u.fields {
		if err == nil {
			err = w.WriteField(f[0], f[1])
		}
	}
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		return Transcript{}, err
	}
	resp, err := r.post(ctx, "transcribe", path, w.FormDataContentType(), body.Bytes())
	if err != nil {
		return Transcript{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxTranscriptionResponse+1))
	if err != nil {
		return Transcript{}, &UpstreamError{Op: "transcribe", Status: resp.StatusCode, Err: err}
	}
	if len(b) > maxTranscriptionResponse {
		return Transcript{}, &UpstreamError{Op: "transcribe", Status: resp.StatusCode, Err: fmt.Errorf("response longer than %d bytes", maxTranscriptionResponse)}
	}
	tr, err := parse(b)
	if err != nil {
		return Transcript{}, &UpstreamError{Op: "transcribe", Status: resp.StatusCode, Err: err}
	}
	return tr, nil
}

// parseTranscription reads an OpenAI-compatible transcription response (verbose_json, or the
// plain json form without a language).
func parseTranscription(b []byte) (Transcript, error) {
	var r struct {
		Text     *string `json:"text"`
		Language string  `json:"language"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return Transcript{}, fmt.Errorf("malformed transcription response: %w", err)
	}
	if r.Text == nil {
		return Transcript{}, errors.New("malformed transcription response: no text")
	}
	text := strings.Join(strings.Fields(strings.ToValidUTF8(*r.Text, "")), " ")
	return Transcript{Text: text, Language: langtag.Normalize(r.Language)}, nil
}

// defaultRemoteVoices are OpenAI's voices, offered when NewRemoteSynthesizer is given none.
var defaultRemoteVoices = []string{"alloy", "echo", "fable", "onyx", "nova", "shimmer"}

// remoteSynthesizer asks an OpenAI-compatible /audio/speech endpoint.
type remoteSynthesizer struct {
	remote
	voices []string
}

// NewRemoteSynthesizer returns a Synthesizer that posts the text to {baseURL}/audio/speech of an
// OpenAI-compatible service. It accepts exactly the voices given, the first being the default;
// none given means OpenAI's six (alloy first). hc as for NewRemoteTranscriber.
func NewRemoteSynthesizer(baseURL, model, apiKey string, voices []string, hc *http.Client) Synthesizer {
	vs := slices.DeleteFunc(slices.Clone(voices), func(v string) bool { return strings.TrimSpace(v) == "" })
	if len(vs) == 0 {
		vs = slices.Clone(defaultRemoteVoices)
	}
	return &remoteSynthesizer{remote: newRemote(baseURL, model, apiKey, hc, nil), voices: vs}
}

func (s *remoteSynthesizer) Voices() []Voice {
	out := make([]Voice, len(s.voices))
	for i, v := range s.voices {
		out[i] = Voice{Name: v, Description: "voice " + v + " of the remote speech service"}
	}
	return out
}

func (s *remoteSynthesizer) Synthesize(ctx context.Context, text, voice string) ([]byte, error) {
	if err := checkText(text); err != nil {
		return nil, err
	}
	if voice == "" {
		voice = s.voices[0]
	}
	if !slices.Contains(s.voices, voice) {
		return nil, fmt.Errorf("%w %q", ErrUnknownVoice, voice)
	}
	body, err := json.Marshal(map[string]string{
		"model": s.model, "input": text, "voice": voice, "response_format": "mp3",
	})
	if err != nil {
		return nil, err
	}
	resp, err := s.post(ctx, "synthesize", "/audio/speech", "application/json", body)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxMP3+1))
	if err != nil {
		return nil, &UpstreamError{Op: "synthesize", Status: resp.StatusCode, Err: err}
	}
	switch {
	case len(b) > maxMP3:
		err = fmt.Errorf("audio longer than %d bytes", maxMP3)
	case media.Sniff(b) != media.FormatMP3:
		err = fmt.Errorf("response is not MP3 (starts %q)", b[:min(len(b), 16)])
	}
	if err != nil {
		return nil, &UpstreamError{Op: "synthesize", Status: resp.StatusCode, Err: err}
	}
	return b, nil
}
