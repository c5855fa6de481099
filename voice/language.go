package voice

import (
	"slices"
	"strings"
	"unicode"
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
// 0 to 1) for a text whose common words do not tell: nearly sure.
const minConfidence = 0.9

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

// stopwords are the most common short words of the languages replies are most often written
// in: a sentence holding several of one language's is in it. whatlanggo alone reads short
// sentences wrongly and confidently ("Tell me a joke about computers." is French to it at 0.87).
var stopwords = map[string][]string{
	"en": strings.Fields("the a an is are was were be of to and in on for me about what how who you it this that with my your i do does will can at from by not or"),
	"de": strings.Fields("der die das und ist nicht ein eine einer einen zu mit den dem von sie es ich wir auf für im wie was aus wird sind bei"),
	"fr": strings.Fields("le la les de des du un une est et en à pour que qui dans il elle ce c'est je vous nous pas sur au aux avec sont"),
	"es": strings.Fields("el la los las de que y en un una es por para con no se del al lo está son"),
	"it": strings.Fields("il lo la gli le di che e è un una per con non del della sono ci sarà"),
	"nl": strings.Fields("de het een en is van dat niet ik je op te met voor er zijn wordt"),
	"pl": strings.Fields("i w na z się nie to jest że do jak o co ale dla będzie"),
	"pt": strings.Fields("o a os as de que e do da em um uma é para com não vai"),
	"uk": strings.Fields("і в на з не що це до як та у за від буде"),
	"ru": strings.Fields("и в не на что с это как по будет он я"),
}

// TextLanguage is the language text is written in, as a BCP 47 base tag ("de"), or "" when it
// cannot be told: the language of whose common words the text holds at least two, and more than
// of any other's; else, for a text of 30 characters or more, whatlanggo's trigram models when
// they are nearly sure (a script of its own, such as Chinese or Japanese, or a long sentence).
func TextLanguage(text string) string {
	text = strings.TrimSpace(text)
	if utf8.RuneCountInString(text) < minDetectRunes {
		return ""
	}
	if l := byStopwords(text); l != "" {
		return l
	}
	info := whatlanggo.DetectWithOptions(text, whatlanggo.Options{Whitelist: detectable})
	ownScript := info.Script != nil && info.Script != unicode.Latin && info.Script != unicode.Cyrillic
	if info.Confidence < minConfidence || !ownScript && utf8.RuneCountInString(text) < 30 {
		return ""
	}
	return info.Lang.Iso6391()
}

// byStopwords is the language of stopwords that text holds at least two common words of, and
// more than of any other; "" when none does.
func byStopwords(text string) string {
	counts := map[string]int{}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '\''
	}) {
		for lang, list := range stopwords {
			if slices.Contains(list, w) {
				counts[lang]++
			}
		}
	}
	best, bestN, second := "", 0, 0
	for lang, n := range counts {
		switch {
		case n > bestN:
			best, bestN, second = lang, n, bestN
		case n > second:
			second = n
		}
	}
	if bestN < 2 || bestN == second {
		return ""
	}
	return best
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
