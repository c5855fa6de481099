package langtag

import "testing"

func TestNormalize(t *testing.T) {
	cases := map[string]string{
		"english": "en", "English": "en", " german ": "de", "en": "en", "EN": "en", "en-US": "en-US",
		"jw": "jv", "cantonese": "yue", "": "", "klingonese": "", "en_US": "", "x": "",
	}
	for in, want := range cases {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBase(t *testing.T) {
	for in, want := range map[string]string{"de-AT": "de", "pt_BR": "pt", "EN": "en", "uk": "uk", "": "", "zh-Hans-CN": "zh"} {
		if got := Base(in); got != want {
			t.Errorf("Base(%q) = %q, want %q", in, got, want)
		}
	}
}
