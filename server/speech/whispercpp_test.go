package speech

import (
	"errors"
	"strconv"
	"testing"

	"parley/internal/testenv"
	"parley/media"
)

// TestWhisperCpp_SendsWAVAndReadsTheText: a take as the app uploads it (Opus in WebM, 16 kHz)
// and a 44.1 kHz stereo WAV both reach whisper.cpp's server as 16 kHz mono WAV, and its text
// comes back trimmed.
func TestWhisperCpp_SendsWAVAndReadsTheText(t *testing.T) {
	srv := testenv.StartWhisper(t, testenv.WhisperCpp, "What is the weather like?")
	stt := NewWhisperCppTranscriber("http://127.0.0.1:"+strconv.Itoa(srv.Port), nil)
	tone := media.PCM{Rate: 16000, Channels: 1, Samples: make([]int16, 16000)}
	for i := range tone.Samples {
		tone.Samples[i] = int16(1000 * (i % 40) / 40)
	}
	webm, err := media.EncodeWebMOpus(tone, 16000)
	if err != nil {
		t.Fatal(err)
	}
	wide := media.Resample(tone, 44100)
	wide.Channels, wide.Samples = 2, append(append([]int16{}, wide.Samples...), wide.Samples...)
	for name, audio := range map[string][]byte{"webm": webm, "wav 44.1 kHz stereo": media.EncodeWAV(wide)} {
		tr, err := stt.Transcribe(t.Context(), audio, "")
		if err != nil || tr.Text != "What is the weather like?" {
			t.Errorf("%s: %+v, %v", name, tr, err)
		}
	}
	if srv.Heard.Load() != 2 || srv.Bad.Load() != 0 {
		t.Errorf("the server heard %d and refused %d", srv.Heard.Load(), srv.Bad.Load())
	}
	if _, err := stt.Transcribe(t.Context(), []byte("not audio at all"), ""); !errors.Is(err, ErrNotAudio) {
		t.Errorf("not audio: %v", err)
	}
	if l := srv.Language.Load(); l != "" {
		t.Errorf("language %q sent unasked", l)
	}
	if _, err := stt.Transcribe(WithLanguage(t.Context(), "uk-UA"), webm, ""); err != nil || srv.Language.Load() != "uk" {
		t.Errorf("asked for Ukrainian: %v, the server was sent %q", err, srv.Language.Load())
	}
}

func TestParseWhisperCpp(t *testing.T) {
	for body, want := range map[string]string{
		`{"text":" Hello there.\n","language":"en"}`: "Hello there.|en",
		`{"text":""}`: "|",
	} {
		tr, err := parseWhisperCpp([]byte(body))
		if err != nil || tr.Text+"|"+tr.Language != want {
			t.Errorf("%s: %+v %v", body, tr, err)
		}
	}
	for _, body := range []string{`{"error":"FFmpeg conversion failed."}`, `{}`, `not json`} {
		if _, err := parseWhisperCpp([]byte(body)); err == nil {
			t.Errorf("%s: no error", body)
		}
	}
}

func FuzzParseWhisperCpp(f *testing.F) {
	for _, s := range []string{`{"text":" Hi.","language":"en"}`, `{"error":"x"}`, `{"error":null,"text":"a"}`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tr, err := parseWhisperCpp(b)
		if err == nil && len(tr.Text) > len(b) {
			t.Errorf("text %q longer than the body", tr.Text)
		}
		if err != nil && len(err.Error()) > maxErrorBody+100 {
			t.Errorf("error of %d bytes", len(err.Error()))
		}
	})
}
