package voice

import (
	"strings"
	"unicode/utf8"

	"github.com/abadojack/whatlanggo"
	"golang.org/x/text/language"

	"parley/client"
	"parley/internal/langtag"
)

// minDetectRunes is the shortest text whose language TextLanguage tells: under it, a few words
// ("OK.", "Ja, gerne.") share their letters with too many languages.
const minDetectRunes = 12

// minConfidence is how far ahead of the next language the first must be (whatlanggo's measure,
// 0 to 1): below it, a short sentence is as often taken for a neighbour ("Morgen wird es sonnig."
// reads as French at 0.18) as for its language.
const minConfidence = 0.3

// detectable are the languages TextLanguage tells apart: those most replies are written in. Among
// all 84 of whatlanggo's, Russian reads as Serbian and Italian as Spanish far more often.
var detectable = func() map[whatlanggo.Lang]bool {
	codes := map[string]bool{}
	for _, c := range strings.Fields("en de fr es pt it nl pl uk ru sv da nb fi cs sk hu ro tr el zh ja ko ar he hi vi id") {
		codes[c] = true
	}
	out := map[whatlanggo.Lang]bool{}
	for l := range whatlanggo.Langs {
		if codes[l.Iso6391()] {
			out[l] = true
		}
	}
	return out
}()

// TextLanguage is the language text is written in, as a BCP 47 base tag ("de"), or "" when it is
// too short, or its language cannot be told with confidence (whatlanggo's trigram models, among
// the languages most replies are written in).
func TextLanguage(text string) string {
	text = strings.TrimSpace(text)
	if utf8.RuneCountInString(text) < minDetectRunes {
		return ""
	}
	info := whatlanggo.DetectWithOptions(text, whatlanggo.Options{Whitelist: detectable})
	if info.Confidence < minConfidence {
		return ""
	}
	return info.Lang.Iso6391()
}

// ReplyLanguage is the language a reply is spoken in: the language its text is written in, when
// that can be told, else the one the service reported for the question's transcript (in its own
// notation: "german", "de", "de-DE"), else "". The text wins: a German reply to a question asked
// in English is German.
func ReplyLanguage(reply, transcriptLanguage string) string {
	if l := TextLanguage(reply); l != "" {
		return l
	}
	return langtag.Normalize(transcriptLanguage)
}

// ChooseVoice is the voice a reply is spoken with. A conversation's chosen voice always wins.
// Otherwise, when the reply's language (lang, a BCP 47 tag, "" unknown) is not the language of
// fallback (the voice the person set for all conversations, "" for the service's default), it is
// the service's first voice of that language, by its list (voices, as GET /v1/chat/voices
// gives it: a service without that list gets fallback); else fallback.
func ChooseVoice(chosen, fallback, lang string, voices []client.Voice) string {
	if chosen != "" || lang == "" || len(voices) == 0 {
		return firstNonEmpty(chosen, fallback)
	}
	want, err := language.Parse(lang)
	if err != nil {
		return fallback
	}
	if cur := voiceLanguage(fallback, voices); cur != "" && sameLanguage(cur, want) {
		return fallback
	}
	// The first voice of the language and region asked for, else the first of the language.
	sameBase := ""
	for _, v := range voices {
		tag, err := language.Parse(v.Language)
		if err != nil || !sameLanguage(v.Language, want) {
			continue
		}
		if tag == want {
			return v.Name
		}
		if sameBase == "" {
			sameBase = v.Name
		}
	}
	return firstNonEmpty(sameBase, fallback)
}

// voiceLanguage is the language of the voice name in voices: the default's when name is "".
func voiceLanguage(name string, voices []client.Voice) string {
	for _, v := range voices {
		if (name == "" && v.Default) || (name != "" && v.Name == name) {
			return v.Language
		}
	}
	if name == "" && len(voices) > 0 {
		return voices[0].Language
	}
	return ""
}

// sameLanguage reports whether the voice language tag speaks want (a region or script of the
// same language counts).
func sameLanguage(tag string, want language.Tag) bool {
	t, err := language.Parse(tag)
	if err != nil {
		return false
	}
	tb, _ := t.Base()
	wb, _ := want.Base()
	return macro(tb.String()) == macro(wb.String())
}

// macro is the macrolanguage of a language that detectors and voices name apart: espeak-ng
// has Mandarin as "cmn", a detector says "zh"; Norwegian Bokmål is "nb" or "no".
func macro(base string) string {
	switch base {
	case "cmn":
		return "zh"
	case "nb":
		return "no"
	}
	return base
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
