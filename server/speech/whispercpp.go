package speech

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"parley/internal/langtag"
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
	pcm, err := decodeAudio(audio)
	if err != nil {
		return Transcript{}, err
	}
	fields := [][2]string{{"response_format", "verbose_json"}, {"temperature", "0.0"}}
	if l := LanguageOf(ctx); l != "" {
		fields = append(fields, [2]string{"language", langtag.Base(l)})
	}
	return w.upload(ctx, "/inference", upload{name: "audio.wav", mime: "audio/wav", audio: media.EncodeWAV(media.To16kMono(pcm)),
		fields: fields}, parseWhisperCpp)
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
