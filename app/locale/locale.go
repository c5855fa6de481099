// Package locale gives the window its language: the translations of every sentence it shows
// (go-i18n JSON bundles, embedded, read by Fyne's lang package), the languages offered in
// Preferences, and the choice between the system's language and the person's.
//
// The code is written in English: lang.L("Send") in the window, i18n.T in the packages it shares
// with the CLI. A bundle per language (translations/de.json, …) maps each English sentence to
// its translation; TestBundles_MatchTheCode fails when a sentence has no entry in a bundle or an
// entry is no longer used.
package locale

import (
	"embed"
	"os"
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/lang"
	"github.com/jeandeaual/go-locale"
	"golang.org/x/text/language"

	"parley/internal/i18n"
)

//go:embed translations/*.json
var bundles embed.FS

// Language is one the window can be shown in.
type Language struct {
	Code string // the bundle's name, and what Preferences stores: "de", "pt_BR"
	Name string // as its speakers write it
}

// Languages are those the window is translated into, English first.
var Languages = []Language{
	{"en", "English"},
	{"de", "Deutsch"},
	{"es", "Español"},
	{"fr", "Français"},
	{"it", "Italiano"},
	{"nl", "Nederlands"},
	{"pl", "Polski"},
	{"pt_BR", "Português (Brasil)"},
	{"uk", "Українська"},
}

var (
	mu     sync.Mutex
	chosen Language
)

func init() {
	// Under go test the window is English whatever the machine's language, so that tests read
	// the words they expect; a test of another language calls Use.
	if testing.Testing() {
		Use("en")
		return
	}
	Use("")
}

// Use shows the window in the language of code ("de"), or the system's when code is "" or not
// one of Languages: LANGUAGE, LC_ALL, LC_MESSAGES and LANG, as gettext reads them. Widgets made
// before keep their words: the app calls it before it builds its window.
func Use(code string) Language {
	mu.Lock()
	defer mu.Unlock()
	want, ok := find(code)
	if !ok {
		want = fromSystem()
	}
	restore := pretend(want.Code)
	err := lang.AddTranslationsFS(bundles, "translations")
	restore()
	if err != nil {
		fyne.LogError("Parley's translations could not be read", err)
	}
	chosen = want
	tag := language.Make(strings.ReplaceAll(want.Code, "_", "-"))
	if want.Code == "en" {
		i18n.Use(nil)
		return want
	}
	i18n.Use(&i18n.Translator{
		Tag:    tag,
		One:    func(s string) string { return lang.L(s) },
		Plural: func(s string, n int) string { return lang.N(s, n) },
	})
	return want
}

// System is the language of Languages the system's settings ask for (English when none).
func System() Language {
	mu.Lock()
	defer mu.Unlock()
	return fromSystem()
}

// Current is the language the window is shown in.
func Current() Language {
	mu.Lock()
	defer mu.Unlock()
	return chosen
}

// Offered says whether code is one of Languages.
func Offered(code string) bool {
	_, ok := find(code)
	return ok
}

func find(code string) (Language, bool) {
	for _, l := range Languages {
		if l.Code == code {
			return l, true
		}
	}
	return Language{}, false
}

// fromSystem is the closest of Languages to the system's list of languages, English when none
// is close.
func fromSystem() Language {
	locs, _ := locale.GetLocales()
	tags := make([]language.Tag, 0, len(locs))
	for _, l := range locs {
		if t, err := language.Parse(l); err == nil {
			tags = append(tags, t)
		}
	}
	offered := make([]language.Tag, len(Languages))
	for i, l := range Languages {
		offered[i] = language.Make(strings.ReplaceAll(l.Code, "_", "-"))
	}
	_, i, conf := language.NewMatcher(offered).Match(tags...)
	if conf == language.No {
		return Languages[0]
	}
	return Languages[i]
}

// pretend makes the environment name only code while Fyne's lang package reads it (it has no
// other way to be told a language), and gives back a function that puts it back as it was, so
// that the programs Parley starts (sox, pactl, espeak-ng) see the system's own.
func pretend(code string) (restore func()) {
	names := []string{"LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"}
	old := make(map[string]*string, len(names))
	for _, n := range names {
		if v, ok := os.LookupEnv(n); ok {
			old[n] = &v
		} else {
			old[n] = nil
		}
	}
	for _, n := range names[1:] {
		_ = os.Unsetenv(n)
	}
	_ = os.Setenv("LANGUAGE", code)
	_ = os.Setenv("LC_MESSAGES", code)
	return func() {
		for _, n := range names {
			if v := old[n]; v != nil {
				_ = os.Setenv(n, *v)
			} else {
				_ = os.Unsetenv(n)
			}
		}
	}
}
