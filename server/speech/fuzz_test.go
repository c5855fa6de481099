package speech

import (
	"strings"
	"testing"
	"unicode/utf8"

	"parley/internal/langtag"
)

func TestParsePocketSphinx(t *testing.T) {
	cases := map[string]string{
		"what is the weather like you do\n": "what is the weather like you do",
		"":                                  "",
		"\n\n":                              "",
		"hello world\ngood  morning\n":      "hello world good morning",
		"<s> hello <sil> [NOISE] ++BREATH++ world(2) </s>\n": "hello world",
		"INFO: cmd_ln.c(...)\nREADY....\nhi\n":               "hi",
		"the(a) end(23)":                                     "the(a) end",
	}
	for in, want := range cases {
		if got := parsePocketSphinx([]byte(in)); got != want {
			t.Errorf("parsePocketSphinx(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParsePocketSphinx(f *testing.F) {
	f.Add([]byte("what is the weather like you do\n"))
	f.Add([]byte("<s> hello <sil> [NOISE] world(2) </s>\nINFO: x\n"))
	f.Add([]byte("\xff\xfe(\x00)\r\n"))
	f.Fuzz(func(t *testing.T, out []byte) {
		got := parsePocketSphinx(out)
		if !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8: %q", got)
		}
		if got != strings.Join(strings.Fields(got), " ") {
			t.Fatalf("not single-spaced words: %q", got)
		}
		for _, w := range strings.Fields(got) {
			if strings.HasPrefix(w, "<") && strings.HasSuffix(w, ">") {
				t.Fatalf("filler %q kept in %q", w, got)
			}
		}
	})
}

func TestParseTranscription(t *testing.T) {
	cases := []struct {
		in      string
		want    Transcript
		wantErr bool
	}{
		{`{"text":" Hello there. ","language":"english"}`, Transcript{"Hello there.", "en"}, false},
		{`{"text":"Bonjour"}`, Transcript{"Bonjour", ""}, false},
		{`{"text":"","language":"en"}`, Transcript{"", "en"}, false},
		{`{"text":"hi","language":"zz top!"}`, Transcript{"hi", ""}, false},
		{`{"language":"en"}`, Transcript{}, true},
		{`{"text":42}`, Transcript{}, true},
		{`<html>502</html>`, Transcript{}, true},
		{``, Transcript{}, true},
	}
	for _, c := range cases {
		got, err := parseTranscription([]byte(c.in))
		if (err != nil) != c.wantErr || got != c.want {
			t.Errorf("parseTranscription(%s) = %+v, %v; want %+v, error %v", c.in, got, err, c.want, c.wantErr)
		}
	}
}

func FuzzParseTranscription(f *testing.F) {
	f.Add([]byte(`{"task":"transcribe","language":"english","duration":1.5,"text":" Hi. ","segments":[]}`))
	f.Add([]byte(`{"text":"x","language":"en-US"}`))
	f.Add([]byte(`{"text":"\ud800","language":"jw"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := parseTranscription(b)
		if err != nil {
			return
		}
		if !utf8.ValidString(got.Text) || got.Text != strings.Join(strings.Fields(got.Text), " ") {
			t.Fatalf("text %q: invalid UTF-8 or not single-spaced", got.Text)
		}
		if got.Language != "" && !langtag.IsTag(got.Language) {
			t.Fatalf("language %q is not a BCP 47 tag", got.Language)
		}
	})
}
