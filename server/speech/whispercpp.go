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
	"strings"

	"parley/media"
)

// whisperCpp asks whisper.cpp's server (its /inference endpoint), which reads 16 kHz WAV only
// unless started with --convert: every take is sent as such.
type whisperCpp struct{ remote }

// NewWhisperCppTranscriber returns a Transcriber that posts the audio, decoded and sent as 16 kHz
// mono WAV, to {baseURL}/inference of whisper.cpp's server. hc as for NewRemoteTranscriber; at
// an address of this computer it sends nothing to another user's program.
func NewWhisperCppTranscriber(baseURL string, hc *http.Client) Transcriber {
	return &whisperCpp{newRemote(baseURL, "", "", hc, nil)}
}

func (w *whisperCpp) Transcribe(ctx context.Context, audio []byte, mime string) (Transcript, error) {
	pcm, err := media.Decode(audio)
	if err != nil {
		if errors.Is(err, media.ErrTooLong) {
			return Transcript{}, err
		}
		return Transcript{}, notAudio(err)
	}
	if pcm.Rate <= 0 || pcm.Channels <= 0 {
		return Transcript{}, notAudio(fmt.Errorf("audio with %d channels at %d Hz", pcm.Channels, pcm.Rate))
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="file"; filename="audio.wav"`)
	h.Set("Content-Type", "audio/wav")
	part, err := mw.CreatePart(h)
	if err == nil {
		_, err = part.Write(media.EncodeWAV(media.To16kMono(pcm)))
	}
	for _, f := range [][2]string{{"response_format", "verbose_json"}, {"temperature", "0.0"}} {
		if err == nil {
			err = mw.WriteField(f[0], f[1])
		}
	}
	if err == nil {
		err = mw.Close()
	}
	if err != nil {
		return Transcript{}, err
	}
	resp, err := w.post(ctx, "transcribe", "/inference", mw.FormDataContentType(), body.Bytes())
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
	tr, err := parseWhisperCpp(b)
	if err != nil {
		return Transcript{}, &UpstreamError{Op: "transcribe", Status: resp.StatusCode, Err: err}
	}
	return tr, nil
}

// parseWhisperCpp reads whisper.cpp's server's answer: {"text", "language"} (verbose_json), or
// {"error"} with a status of 200.
func parseWhisperCpp(b []byte) (Transcript, error) {
	var e struct {
		Error *string `json:"error"`
	}
	if json.Unmarshal(b, &e) == nil && e.Error != nil {
		msg := strings.ToValidUTF8(strings.TrimSpace(*e.Error), "?")
		if len(msg) > maxErrorBody {
			msg = strings.ToValidUTF8(msg[:maxErrorBody], "") + "…"
		}
		return Transcript{}, fmt.Errorf("whisper.cpp: %s", msg)
	}
	return parseTranscription(b)
}
