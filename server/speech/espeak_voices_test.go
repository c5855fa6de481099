package speech

import (
	"os"
	"strings"
	"testing"

	"parley/internal/testenv"
)

// What Debian 12's espeak-ng 1.51 lists (testdata/espeak-ng-voices.txt) gives a voice for each
// of its languages, named as -v takes it, with a BCP 47 tag and a readable description.
func TestParseEspeakVoices(t *testing.T) {
	out, err := os.ReadFile("testdata/espeak-ng-voices.txt")
	if err != nil {
		t.Fatal(err)
	}
	voices := parseEspeakVoices(out)
	if len(voices) < 100 {
		t.Fatalf("%d voices read, want every language espeak-ng has (over 100)", len(voices))
	}
	byName := map[string]Voice{}
	for _, v := range voices {
		if _, dup := byName[v.Name]; dup {
			t.Errorf("%q listed twice", v.Name)
		}
		byName[v.Name] = v
	}
	for name, want := range map[string]Voice{
		"de":    {Name: "de", Language: "de", Description: "German, male"},
		"en-us": {Name: "en-us", Language: "en-US", Description: "English (America), male"},
		"pt-br": {Name: "pt-br", Language: "pt-BR", Description: "Portuguese (Brazil), male"},
		"uk":    {Name: "uk", Language: "uk", Description: "Ukrainian, male"},
		"yue":   {Name: "yue", Language: "yue", Description: "Chinese (Cantonese), male"},
	} {
		if got := byName[name]; got != want {
			t.Errorf("%s: %+v, want %+v", name, got, want)
		}
	}
	for _, bad := range []string{"", "Pty Language Age/Gender VoiceName File\n", " 5 x;rm --/M Evil evil/x\n", strings.Repeat("a", 1<<10)} {
		if v := parseEspeakVoices([]byte(bad)); len(v) != 0 {
			t.Errorf("%q read as %+v", bad, v)
		}
	}
}

// The built-in service offers espeak-ng's voice of every language it has, after the ones it
// offered before, in their order.
func TestInstalledEspeak_EveryLanguage(t *testing.T) {
	testenv.RequireCommands(t, "espeak-ng")
	voices := installedEspeak("espeak-ng")
	for i, v := range espeakVoices {
		if voices[i] != v {
			t.Errorf("voice %d is %+v, want %+v first as before", i, voices[i], v)
		}
	}
	for _, want := range []string{"fi", "ja", "ru", "uk", "cmn", "vi"} {
		if _, ok := findVoice(voices, want); !ok {
			t.Errorf("no %q voice among %d", want, len(voices))
		}
	}
	if v := installedEspeak("/nonexistent/espeak-ng"); len(v) != len(espeakVoices) {
		t.Errorf("without espeak-ng: %d voices, want the %d known", len(v), len(espeakVoices))
	}
}

func FuzzParseEspeakVoices(f *testing.F) {
	out, _ := os.ReadFile("testdata/espeak-ng-voices.txt")
	f.Add(out)
	f.Add([]byte("h\n 5 en-us --/M English_(America) gmw/en-US (en 3)\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, v := range parseEspeakVoices(b) {
			if v.Name == "" || v.Language == "" || len(v.Description) > 80 || strings.ContainsAny(v.Name, " \t\n;/") {
				t.Fatalf("bad voice %+v", v)
			}
		}
	})
}
