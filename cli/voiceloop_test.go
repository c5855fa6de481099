package cli_test

import (
	"strings"
	"testing"
)

func TestVoice_Usage(t *testing.T) {
	t.Parallel()
	h := newHome(t, "PARLEY_AUDIO_BACKEND=null")
	for _, args := range [][]string{
		{"voice", "--hold", "10s"},
		{"voice", "--hold", "0.1s"},
		{"voice", "-c", " "},
		{"voice", "--listen-timeout", "-1s"},
		{"voice", "--turns", "-1"},
		{"voice", "--once", "--turns", "5"},
		{"voice", "--temperature", "3"},
		{"voice", "--speed", "3"},
		{"voice", "--speed", "0.5"},
		{"voice", "--speed", "NaN"},
		{"voice", "--speech-language", "not a language!"},
		{"transcribe", "--language", "x y", "x.wav"},
		{"play", "--speed", "2.5", "x.mp3"},
		{"voice", "extra"},
	} {
		if r := h.run(t, "", args...); r.Code != 2 || strings.Count(strings.TrimSpace(r.Stderr), "\n") > 1 {
			t.Errorf("parley %v: %s; want exit 2 with one line", args, r)
		}
	}
	r := h.run(t, "", "voice", "--help")
	for _, want := range []string{"--once", "--turns", "--barge-in", "--trace", "--device", "--hold", "never sent to the chat", "--adaptive-hold", "--speculate", "--speed"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("voice --help lacks %q", want)
		}
	}
}
