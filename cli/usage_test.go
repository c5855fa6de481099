package cli_test

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"parley/internal/testenv"
)

func TestBaseURL_MisspeltSchemeAndMissingHost(t *testing.T) {
	t.Parallel()
	h := newHome(t, "PARLEY_API_KEY="+canary)
	for _, tc := range []struct{ url, want string }{
		{"http:/127.0.0.1:35729", `did you mean "http://127.0.0.1:35729"?`},
		{"https:api.example.com", `did you mean "https://api.example.com"?`},
		{"http//localhost:8780", `did you mean "http://localhost:8780"?`},
		{"http://", `"http://" has no host`},
		{"https:///v1", `has no host`},
	} {
		r := h.run(t, "", "--base-url", tc.url, "conversations")
		if r.Code != 2 || !strings.Contains(r.Stderr, tc.want) || strings.Contains(r.Stderr, "https://http") {
			t.Errorf("--base-url %s: %s; want exit 2 and %s", tc.url, r, tc.want)
		}
	}
}

// TestUsage_RawErrorsBecomeSentences checks that no command line gets Go's or cobra's own words.
func TestUsage_RawErrorsBecomeSentences(t *testing.T) {
	t.Parallel()
	f := testenv.NewFakeService(t)
	h := newHome(t, "PARLEY_BASE_URL="+f.URL, "PARLEY_API_KEY="+canary)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"conversations", "--limit", "x"}, `--limit wants a whole number, not "x"`},
		{[]string{"--timeout", "5", "conversations"}, `--timeout wants a duration with a unit, such as 5s or 2m, not "5"`},
		{[]string{"--timeout", "soon", "conversations"}, `--timeout wants a duration such as 30s or 2m, not "soon"`},
		{[]string{"--timeout", "0", "conversations"}, "--timeout must be more than 0"},
		{[]string{"--timeout", "0s", "conversations"}, "--timeout must be more than 0"},
		{[]string{"chat", "--temperature", "warm", "hi"}, `--temperature wants a number, not "warm"`},
		{[]string{"chat", "--json=maybe", "hi"}, `--json wants true or false, not "maybe"`},
		{[]string{"chat", "-c"}, "--conversation needs a value"},
		{[]string{"chat"}, "give the message to send, or - to read it from standard input"},
		{[]string{"speak"}, "give the text to speak, or - to read it from standard input"},
		{[]string{"history"}, "give a conversation ID (list them with 'parley conversations')"},
		{[]string{"delete", "7", "8"}, "give one argument, a conversation ID, not 2"},
		{[]string{"transcribe"}, "give an audio file, or - for standard input"},
		{[]string{"play"}, "give an MP3 file, or - for standard input"},
		{[]string{"voices", "en"}, `voices takes no arguments, but was given "en"`},
		{[]string{"completion", "bahs"}, `unknown shell "bahs" for "parley completion": give bash, fish, powershell or zsh; did you mean 'bash'?`},
		{[]string{"completion"}, `"parley completion" needs a shell: bash, fish, powershell or zsh`},
		{[]string{"admin", "kye"}, "did you mean 'key'?"},
		{[]string{"admin", "price", "sett", "5"}, "did you mean 'set'?"},
		{[]string{"logout", "extra"}, "logout takes no arguments (what was given is not shown, in case it is a key) ("},
	} {
		r := h.run(t, "", tc.args...)
		line := strings.TrimSuffix(r.Stderr, "\n")
		if r.Code != 2 || !strings.Contains(line, tc.want) || strings.Contains(line, "\n") {
			t.Errorf("parley %q: %s\nwant exit 2 and %q on one line", tc.args, r, tc.want)
		}
		for _, raw := range []string{"strconv.", "time: ", "invalid argument", "requires at least", "accepts ", "arg(s)", "pipe the key in"} {
			if strings.Contains(line, raw) {
				t.Errorf("parley %q: %q holds %q", tc.args, line, raw)
			}
		}
	}
	if n := len(f.Requests()); n != 0 {
		t.Errorf("usage errors sent %d requests", n)
	}
}

// TestFiles_DirectoriesAndMissingFilesAreSentences gives paths relative to the home, where
// parley runs (t.Chdir), so that the lines need not shorten them. The working directory is the
// process's, which the commands resolve file names against: this test cannot run in parallel.
func TestFiles_DirectoriesAndMissingFilesAreSentences(t *testing.T) {
	f := testenv.NewFakeService(t)
	h := newHome(t, "PARLEY_BASE_URL="+f.URL, "PARLEY_API_KEY="+canary)
	t.Chdir(h.dir)
	for _, d := range []string{"recordings", "take.webm"} {
		if err := os.Mkdir(filepath.Join(h.dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"transcribe", "recordings"}, 1, "parley: recordings is a directory: give an audio file.\n"},
		{[]string{"play", "recordings"}, 1, "parley: recordings is a directory: give an MP3 file.\n"},
		{[]string{"transcribe", "absent.wav"}, 1, "parley: There is no file absent.wav: check the name.\n"},
		// The output is checked before the service is asked.
		{[]string{"speak", "-o", "recordings", "hi"}, 2, "-o recordings is a directory: give a file name, such as recordings/speech.mp3"},
		{[]string{"speak", "-o", "absent/hi.mp3", "hi"}, 2, "-o absent/hi.mp3 names a directory that does not exist: create it, or give another path"},
		{[]string{"record", "-o", "take.webm"}, 2, "-o take.webm is a directory: give a file name, such as take.webm/take.webm"},
	} {
		r := h.run(t, "", tc.args...)
		if r.Code != tc.code || !strings.Contains(r.Stderr, tc.want) || strings.Contains(r.Stderr, "read recordings") {
			t.Errorf("parley %q: %s\nwant exit %d and %q", tc.args, r, tc.code, tc.want)
		}
	}
	if n := len(f.Requests()); n != 0 {
		t.Errorf("%d requests were sent for output that could not be written", n)
	}
}

func TestSpeak_JSONDescribesTheFile(t *testing.T) {
	t.Parallel()
	f := testenv.NewFakeService(t)
	mp3 := []byte("\xff\xfb\x90\x00fake-mp3-frame-bytes")
	f.On("POST /v1/chat/speech", 200, `{"audio":"data:audio/mpeg;base64,`+base64.StdEncoding.EncodeToString(mp3)+`"}`)
	h := newHome(t, "PARLEY_BASE_URL="+f.URL, "PARLEY_API_KEY="+canary)
	out := filepath.Join(h.dir, "hi.mp3")
	r := h.run(t, "", "--json", "speak", "-o", out, "Hi")
	var got struct {
		File  string `json:"file"`
		Bytes int    `json:"bytes"`
		MIME  string `json:"mime_type"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &got); err != nil || got.File != out || got.Bytes != len(mp3) || got.MIME != "audio/mpeg" {
		t.Errorf("speak --json -o FILE: %s (%v); want {file, bytes, mime_type}", r, err)
	}
	for _, args := range [][]string{{"--json", "speak", "-o", "-", "Hi"}, {"--json", "speak", "Hi"}} {
		if r := h.run(t, "", args...); r.Code != 2 || r.Stdout != "" {
			t.Errorf("parley %q: %s; want exit 2: the MP3 and the JSON cannot share stdout", args, r)
		}
	}
}

func TestRecord_RefusesExtensionsItDoesNotWrite(t *testing.T) {
	t.Parallel()
	h := newHome(t, "PARLEY_AUDIO_BACKEND=null")
	for _, name := range []string{"rec.mp3", "rec.ogg", "rec"} {
		out := filepath.Join(h.dir, name)
		r := h.run(t, "", "record", "--seconds", "1", "-o", out)
		if r.Code != 2 || !strings.Contains(r.Stderr, ".webm or .wav") {
			t.Errorf("record -o %s: %s; want exit 2 naming .webm and .wav", name, r)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("record -o %s wrote the file", name)
		}
	}
}

func TestRecord_DeviceThatMatchesNothing(t *testing.T) {
	t.Parallel()
	h := newHome(t, "PARLEY_AUDIO_BACKEND=null")
	r := h.run(t, "", "record", "--device", "nonexist", "--seconds", "1", "-o", filepath.Join(h.dir, "x.webm"))
	if r.Code != 1 || !strings.Contains(r.Stderr, `No audio input matches "nonexist"`) || !strings.Contains(r.Stderr, "parley devices") || strings.Contains(r.Stderr, "sound server") {
		t.Errorf("record --device nonexist: %s; want exit 1 saying no input matches, pointing to parley devices", r)
	}
}

func TestAdmin_RevokeAnUnknownKeyAdvisesOnTheKey(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	dir := filepath.Join(h.dir, "data")
	adminKey(t, h, dir, "1")
	r := h.run(t, "", "admin", "--data", dir, "key", "revoke", "pk_unknown_0000000000000000")
	if r.Code != 1 || !strings.Contains(r.Stderr, "check the key") || strings.Contains(r.Stderr, "--key") || strings.Contains(r.Stderr, "pk_unknown") {
		t.Errorf("admin key revoke UNKNOWN: %s; want advice about the key given, not --key", r)
	}
}
