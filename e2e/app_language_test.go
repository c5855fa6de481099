package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"

	"parley/internal/testenv"
)

// bundle reads the window's translations into code (app/locale/translations), plurals by
// their "other" form.
func bundle(t *testing.T, code string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "app", "locale", "translations", code+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for k, v := range raw {
		switch v := v.(type) {
		case string:
			out[k] = v
		case map[string]any:
			out[k], _ = v["other"].(string)
		}
	}
	return out
}

// longestWord is the longest word of s (letters only), which OCR reads most surely.
func longestWord(s string) string {
	best := ""
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) }) {
		if len([]rune(w)) > len([]rune(best)) {
			best = w
		}
	}
	return best
}

// verb is a placeholder of a sentence, which OCR never reads as such.
var verb = regexp.MustCompile(`%(\[\d+\])?[-+# 0]*\d*(\.\d+)?[a-zA-Z%]|\{\{[^}]*\}\}`)

// englishLeft are the window's fixed English phrases (of two words or more, from en.json)
// whose translation into the language differs: none may be read on its screens.
func englishLeft(en, tr map[string]string) []string {
	seen := map[string]bool{}
	var out []string
	for k, e := range en {
		if tr[k] == "" || tr[k] == e {
			continue
		}
		for _, piece := range regexp.MustCompile(`[.:;?!()“”"…·,]`).Split(verb.ReplaceAllString(e, "|"), -1) {
			for _, p := range strings.Split(piece, "|") {
				p = strings.Join(strings.Fields(p), " ")
				if strings.Count(p, " ") >= 1 && len(p) >= 12 && !seen[p] && !strings.Contains(tr[k], p) {
					seen[p] = true
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// TestApp_InAnotherLanguage runs the window with LANGUAGE set to German, then Ukrainian, against
// the real service, from the keyboard: the first-run screen, a conversation, Settings, Account
// and Preferences are read back with tesseract in that language, each shows its translated
// words, and none shows a fixed English phrase of the window.
func TestApp_InAnotherLanguage(t *testing.T) {
	testenv.RequireCommands(t, "xdotool", "tesseract")
	for _, l := range []struct{ code, locale, ocr string }{
		{"de", "de_DE.UTF-8", "deu+eng"},
		{"uk", "uk_UA.UTF-8", "ukr+eng"},
	} {
		t.Run(l.code, func(t *testing.T) {
			en, tr := bundle(t, "en"), bundle(t, l.code)
			left := englishLeft(en, tr)
			d := testenv.StartDisplay(t)
			testenv.StartSessionBus(t)
			s := startService(t)
			key := s.newKey(t, 100)
			lang := []string{"LANGUAGE=" + l.code, "LANG=" + l.locale, "LC_ALL=", "LC_MESSAGES="}
			shots := shotsDir(t)
			said := "" // the service's own words on the screen (its replies), lower case
			check := func(screen string, keys ...string) {
				t.Helper()
				var want []string
				for _, k := range keys {
					want = append(want, longestWord(tr[k]))
				}
				read := d.WaitForTextIn(t, want[0], l.ocr, 30*time.Second)
				d.Screenshot(t, filepath.Join(shots, fmt.Sprintf("language-%s-%s.png", l.code, screen)))
				flat := strings.ToLower(strings.Join(strings.Fields(read), " "))
				for _, w := range want[1:] {
					if !strings.Contains(flat, strings.ToLower(w)) {
						t.Errorf("%s: %q (of the translation) not read on the screen:\n%s", screen, w, read)
					}
				}
				for _, p := range left {
					if lp := strings.ToLower(p); strings.Contains(flat, lp) && !strings.Contains(said, lp) {
						t.Errorf("%s: the English %q is on the screen:\n%s", screen, p, read)
					}
				}
			}

			// The first run, with nothing configured.
			first := startAppAt(t, d, append(s.env(lang...), "PARLEY_BASE_URL="), t.TempDir())
			d.WaitForWindow(t, "Parley", 30*time.Second)
			check("welcome", "Welcome to Parley", "Use the local service", "Connect to a service…")
			first.stop(t)

			// A conversation with the service, and the dialogs.
			env := s.env(append(lang, "PARLEY_API_KEY="+key)...)
			startAppAt(t, d, env, t.TempDir())
			d.WaitForWindow(t, "Parley", 30*time.Second)
			check("main", "New conversation", "Voice mode")
			d.Type(t, "Ebbsfleet lighthouse")
			d.Key(t, "Return")
			d.WaitForText(t, "you asked about", 30*time.Second)
			// The reply is the service's words, in its language, shown as it wrote them.
			ids := listConversations(t, env)
			if len(ids) != 1 {
				t.Fatalf("the service has %d conversations, want the one made", len(ids))
			}
			said = strings.ToLower(strings.Join(strings.Fields(mustRun(t, env, "", "history", ids[0]).Stdout), " "))
			check("conversation", "New conversation")
			d.Key(t, "ctrl+comma")
			check("settings", "Temperature", "Persona")
			d.Key(t, "Escape")
			d.Key(t, "alt", "Down", "Return")
			check("account", "Address")
			d.Key(t, "Escape")
			d.Key(t, "alt", "Down", "Down", "Return")
			check("preferences", "Microphone", "Speech rate")
			d.Key(t, "Escape")
		})
	}
}

// The built-in recogniser hears English only. In a conversation written in German, a question
// said in German with push-to-talk gets a notice that says so, and what to do, instead of
// English words it did not hear: the app expects the question in the conversation's language
// (expected_language) and the built-in service's PocketSphinx refuses it. Nothing is put in the
// message box.
func TestApp_BuiltInRecogniserSaysItHearsEnglishOnly(t *testing.T) {
	testenv.RequireCommands(t, "xdotool", "tesseract", "espeak-ng", "sox", "paplay", "parec")
	d := testenv.StartDisplay(t)
	testenv.StartSessionBus(t)
	p := testenv.StartPulse(t)
	env := appEnviron("PARLEY_TEST_RUNTIME_PORTS=none", "PARLEY_TEST_RECOGNISER_PORTS=none", "PARLEY_AUDIO_BACKEND=pulse")
	shots := shotsDir(t)
	dir := t.TempDir()
	question := filepath.Join(dir, "frage.wav")
	if out, err := exec.Command("espeak-ng", "-v", "de", "-w", question, "Wie wird das Wetter morgen in Berlin?").CombinedOutput(); err != nil {
		t.Fatalf("espeak-ng: %v: %s", err, out)
	}
	quietRoom(t, p, dir)
	startAppAt(t, d, env, t.TempDir())
	defer func() {
		if t.Failed() {
			d.Screenshot(t, filepath.Join(shots, "english-only-failed.png"))
		}
	}()
	d.WaitForWindow(t, "Parley", 30*time.Second)
	d.WaitForText(t, "No account needed", 30*time.Second)
	d.Key(t, "Return")
	d.WaitForText(t, "What's on your mind?", 30*time.Second)
	d.Type(t, "Wie lange dauert die Reise mit dem Zug von Hamburg nach Berlin, und was kostet sie?")
	d.Key(t, "Return")
	d.WaitForText(t, "you asked about", 30*time.Second) // the offline responder's reply
	d.Key(t, "ctrl+m")
	d.WaitForText(t, "Listening", 10*time.Second)
	time.Sleep(2500 * time.Millisecond) // the null sink's monitor takes up to 2 s to deliver audio
	playInto(t, p, question)
	read := waitForTextAnySpaces(t, d, "hears English only", 60*time.Second)
	d.Screenshot(t, filepath.Join(shots, "english-only-notice.png"))
	// What to do: OCR may break a line's last word ("Whisper “s server"), so single words.
	flat := strings.Join(strings.Fields(read), " ")
	if !strings.Contains(flat, "Whisper") || !strings.Contains(flat, "speech language") || !strings.Contains(flat, "Preferences") {
		t.Errorf("the notice does not say what to do:\n%s", read)
	}
}
