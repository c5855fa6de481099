package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"parley/internal/testenv"
)

// TestVoice_SpeakThenTranscribe is the round trip a person tries first: the MP3 that
// `parley speak` writes goes back through `parley transcribe`, and the words come back.
func TestVoice_SpeakThenTranscribe(t *testing.T) {
	testenv.RequireCommands(t, "espeak-ng", "lame", "pocketsphinx_continuous")
	s := startService(t)
	env := s.env("PARLEY_API_KEY=" + s.newKey(t, 10))
	const said = "what is the weather like in paris today"

	mp3 := filepath.Join(t.TempDir(), "hello.mp3")
	mustRun(t, env, "", "speak", "-o", mp3, said)
	r := mustRun(t, env, "", "transcribe", "--json", mp3)
	var tr struct{ Text, Language string }
	if err := json.Unmarshal([]byte(r.Stdout), &tr); err != nil {
		t.Fatalf("transcribe --json printed %q: %v", r.Stdout, err)
	}
	heard := 0
	for _, w := range strings.Fields(said) {
		if strings.Contains(" "+tr.Text+" ", " "+w+" ") {
			heard++
		}
	}
	if heard < 3 {
		t.Errorf("transcript of the spoken MP3 %+v: want at least 3 of %q", tr, said)
	}
}
