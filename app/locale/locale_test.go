package locale

import (
	"slices"
	"testing"
)

// Chinese is offered, and matched to the system's language, only where a font can show it;
// Latin and Cyrillic languages always are (Fyne's own fonts have their letters).
func TestAvailable_OnlyWithAFontForTheScript(t *testing.T) {
	was := hasFont
	t.Cleanup(func() { hasFont = was })
	codes := func() []string {
		var out []string
		for _, l := range Available() {
			out = append(out, l.Code)
		}
		return out
	}
	t.Setenv("LANGUAGE", "zh_CN")
	t.Setenv("LANG", "zh_CN.UTF-8")

	hasFont = func(string) bool { return false }
	if got := codes(); slices.Contains(got, "zh_Hans") || len(got) != len(Languages)-1 || got[0] != "en" {
		t.Errorf("without a Chinese font: %v", got)
	}
	if l := System(); l.Code != "en" {
		t.Errorf("a Chinese system without a Chinese font shows %q, want English", l.Code)
	}
	t.Cleanup(func() { Use("en") })
	if l := Use("zh_Hans"); l.Code != "en" {
		t.Errorf("Chinese chosen in Preferences, its font gone since: the window shows %q, want English", l.Code)
	}

	hasFont = func(lang string) bool { return lang == "zh-cn" }
	if got := codes(); !slices.Contains(got, "zh_Hans") {
		t.Errorf("with a Chinese font: %v", got)
	}
	if l := System(); l.Code != "zh_Hans" {
		t.Errorf("a Chinese system with a Chinese font shows %q", l.Code)
	}
}
