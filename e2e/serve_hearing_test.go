package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"parley/internal/testenv"
)

// TestServe_STTAutoHearsWithAWhisperServer: `parley serve --stt auto` finds a Whisper server on
// this computer (a stand-in served by this test's process, in the OpenAI shape as speaches
// serves it, or whisper.cpp's server's), says which, and `parley transcribe` hears through it;
// nothing is sent to it while it is looked for.
func TestServe_STTAutoHearsWithAWhisperServer(t *testing.T) {
	wav := spokenWAV(t, "what time is it in tokyo")
	for _, c := range []struct {
		kind testenv.WhisperKind
		says string
	}{
		{testenv.WhisperOpenAI, "Speech recognition: whisper-small, from faster-whisper on this computer (pocketsphinx while it does not answer)."},
		{testenv.WhisperCpp, "Speech recognition: whisper.cpp's server on this computer (pocketsphinx while it does not answer)."},
	} {
		w := testenv.StartWhisper(t, c.kind, "What time is it in Tokyo?")
		hung := testenv.StartWhisper(t, testenv.WhisperHung, "")
		ports := "PARLEY_TEST_RECOGNISER_PORTS=" + strconv.Itoa(hung.Port) + "," + strconv.Itoa(w.Port)
		s := startServiceEnv(t, []string{ports}, "--stt", "auto")
		if log := s.logs.String(); !strings.Contains(log, c.says) {
			t.Errorf("the service does not say what hears:\n%s", log)
		}
		if w.Heard.Load() != 0 {
			t.Error("looking for the server sent it audio")
		}
		key := s.newKey(t, 10)
		r := mustRun(t, s.env("PARLEY_API_KEY="+key), "", "transcribe", wav)
		if strings.TrimSpace(r.Stdout) != "What time is it in Tokyo?" || w.Heard.Load() != 1 || w.Bad.Load() != 0 {
			t.Errorf("transcribe printed %s; the server heard %d, refused %d", r, w.Heard.Load(), w.Bad.Load())
		}
	}
}

// TestServe_STTAutoFindsNothing: with only a server that never answers, --stt auto starts within
// its bound, says so, and PocketSphinx hears.
func TestServe_STTAutoFindsNothing(t *testing.T) {
	hung := testenv.StartWhisper(t, testenv.WhisperHung, "")
	s := startServiceEnv(t, []string{"PARLEY_TEST_RECOGNISER_PORTS=" + strconv.Itoa(hung.Port)}, "--stt", "auto")
	if log := s.logs.String(); !strings.Contains(log, "--stt auto found no Whisper server on this computer") {
		t.Errorf("the service log says:\n%s", log)
	}
	key := s.newKey(t, 10)
	r := mustRun(t, s.env("PARLEY_API_KEY="+key), "", "transcribe", spokenWAV(t, "what time is it in tokyo"))
	if !strings.Contains(strings.ToLower(r.Stdout), "time") {
		t.Errorf("pocketsphinx did not hear the question: %s", r)
	}
}

// spokenWAV is text spoken by flite's slt voice at 16 kHz, in a WAV file.
func spokenWAV(t *testing.T, text string) string {
	t.Helper()
	testenv.RequireCommands(t, "flite", "sox")
	dir := t.TempDir()
	raw, wav := filepath.Join(dir, "raw.wav"), filepath.Join(dir, "q.wav")
	if out, err := exec.Command("flite", "-voice", "slt", "-t", text, "-o", raw).CombinedOutput(); err != nil {
		t.Fatalf("flite: %v: %s", err, out)
	}
	if out, err := exec.Command("sox", raw, "-r", "16000", wav).CombinedOutput(); err != nil {
		t.Fatalf("sox: %v: %s", err, out)
	}
	if _, err := os.Stat(wav); err != nil {
		t.Fatal(err)
	}
	return wav
}
