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
	"bytes"
	"context"
	"embed"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

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
	// Font, when not "", is the fontconfig language a font must cover for its script to show:
	// Fyne's own fonts have Latin and Cyrillic letters, and take others from the system's fonts.
	Font string
}

// Tag is the language as a BCP 47 tag (pt_BR: pt-BR).
func (l Language) Tag() language.Tag { return language.Make(strings.ReplaceAll(l.Code, "_", "-")) }

// Languages are those the window is translated into, English first.
var Languages = []Language{
	{"en", "English", ""},
	{"de", "Deutsch", ""},
	{"es", "Español", ""},
	{"fr", "Français", ""},
	{"it", "Italiano", ""},
	{"nl", "Nederlands", ""},
	{"pl", "Polski", ""},
	{"pt_BR", "Português (Brasil)", ""},
	{"uk", "Українська", ""},
	{"zh_Hans", "简体中文", "zh-cn"},
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
	if !ok || want.Font != "" && !hasFont(want.Font) { // chosen where a font was, and gone since
		want = fromSystem()
	}
	restore := pretend(want.Code)
	err := lang.AddTranslationsFS(bundles, "translations")
	restore()
	if err != nil {
		fyne.LogError("Parley's translations could not be read", err)
	}
	chosen = want
	tag := want.Tag()
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

// Available are the Languages whose script the system has a font for, English first: those
// Preferences offers, and the system's language is matched against. Chinese shows as empty
// boxes without a Chinese font (on Debian, fonts-noto-cjk or fonts-wqy-microhei), so it is
// offered only with one.
func Available() []Language {
	out := make([]Language, 0, len(Languages))
	for _, l := range Languages {
		if l.Font == "" || hasFont(l.Font) {
			out = append(out, l)
		}
	}
	return out
}

// hasFont says whether the system has a font for fontconfig language lang. Only Linux and the
// BSDs may lack one (Windows and macOS come with Chinese fonts); there fontconfig says, and
// without fontconfig, no font is assumed.
var hasFont = func(lang string) bool {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		return true
	}
	fontsMu.Lock()
	defer fontsMu.Unlock()
	if ok, seen := fonts[lang]; seen {
		return ok
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "fc-list", ":lang="+lang, "family").Output()
	fonts[lang] = err == nil && len(bytes.TrimSpace(out)) > 0
	return fonts[lang]
}

var (
	fontsMu sync.Mutex
	fonts   = map[string]bool{}
)

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
	// Matched among all Languages first: a font is looked for (fc-list, at start-up) only when
	// the system asks for a language that needs one, and without it the match is made again
	// among those that can be shown.
	l := closest(Languages, tags)
	if l.Font != "" && !hasFont(l.Font) {
		l = closest(Available(), tags)
	}
	return l
}

// closest is the one of langs closest to the languages tags asks for, the first of langs when
// none is close.
func closest(langs []Language, tags []language.Tag) Language {
	offered := make([]language.Tag, len(langs))
	for i, l := range langs {
		offered[i] = l.Tag()
	}
	_, i, conf := language.NewMatcher(offered).Match(tags...)
	if conf == language.No {
		return langs[0]
	}
	return langs[i]
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
