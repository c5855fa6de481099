// Package langtag reads the language a speech-to-text service reports ("english", "en",
// "en-US") as a BCP 47 tag, for the reference service's remote engines and for the client's
// choice of a voice.
package langtag

import (
	"regexp"
	"strings"
)

// languageCodes maps the language names OpenAI-compatible transcription services report
// (Whisper's list, and a few aliases) to BCP 47 tags.
var languageCodes = map[string]string{
	"afrikaans": "af", "albanian": "sq", "amharic": "am", "arabic": "ar", "armenian": "hy",
	"assamese": "as", "azerbaijani": "az", "bashkir": "ba", "basque": "eu", "belarusian": "be",
	"bengali": "bn", "bosnian": "bs", "breton": "br", "bulgarian": "bg", "burmese": "my",
	"cantonese": "yue", "castilian": "es", "catalan": "ca", "chinese": "zh", "croatian": "hr",
	"czech": "cs", "danish": "da", "dutch": "nl", "english": "en", "estonian": "et",
	"faroese": "fo", "finnish": "fi", "flemish": "nl", "french": "fr", "galician": "gl",
	"georgian": "ka", "german": "de", "greek": "el", "gujarati": "gu", "haitian": "ht",
	"haitian creole": "ht", "hausa": "ha", "hawaiian": "haw", "hebrew": "he", "hindi": "hi",
	"hungarian": "hu", "icelandic": "is", "indonesian": "id", "italian": "it", "japanese": "ja",
	"javanese": "jv", "kannada": "kn", "kazakh": "kk", "khmer": "km", "korean": "ko",
	"lao": "lo", "latin": "la", "latvian": "lv", "letzeburgesch": "lb", "lingala": "ln",
	"lithuanian": "lt", "luxembourgish": "lb", "macedonian": "mk", "malagasy": "mg",
	"malay": "ms", "malayalam": "ml", "maltese": "mt", "mandarin": "zh", "maori": "mi",
	"marathi": "mr", "moldavian": "ro", "moldovan": "ro", "mongolian": "mn", "myanmar": "my",
	"nepali": "ne", "norwegian": "no", "nynorsk": "nn", "occitan": "oc", "panjabi": "pa",
	"pashto": "ps", "persian": "fa", "polish": "pl", "portuguese": "pt", "punjabi": "pa",
	"pushto": "ps", "romanian": "ro", "russian": "ru", "sanskrit": "sa", "serbian": "sr",
	"shona": "sn", "sindhi": "sd", "sinhala": "si", "sinhalese": "si", "slovak": "sk",
	"slovenian": "sl", "somali": "so", "spanish": "es", "sundanese": "su", "swahili": "sw",
	"swedish": "sv", "tagalog": "tl", "tajik": "tg", "tamil": "ta", "tatar": "tt",
	"telugu": "te", "thai": "th", "tibetan": "bo", "turkish": "tr", "turkmen": "tk",
	"ukrainian": "uk", "urdu": "ur", "uzbek": "uz", "valencian": "ca", "vietnamese": "vi",
	"welsh": "cy", "yiddish": "yi", "yoruba": "yo",
	"jw": "jv", // Whisper's code for Javanese
}

// Base is the language part of a tag, lower case: "de" of "de-AT", "pt" of "pt_BR".
func Base(tag string) string {
	base, _, _ := strings.Cut(strings.ReplaceAll(tag, "_", "-"), "-")
	return strings.ToLower(base)
}

// IsTag reports whether s looks like a BCP 47 tag: a 2- or 3-letter language and subtags.
func IsTag(s string) bool { return languageTag.MatchString(s) }

// languageTag matches what looks like a BCP 47 tag: a 2- or 3-letter language and subtags.
var languageTag = regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$`)

// Normalize turns a reported language ("english", "en", "en-US") into a BCP 47 tag, or "" when
// it is neither a known name nor a tag.
func Normalize(s string) string {
	s = strings.TrimSpace(s)
	if code, ok := languageCodes[strings.ToLower(s)]; ok {
		return code
	}
	if len(s) > 35 || !languageTag.MatchString(s) {
		return ""
	}
	lang, rest, _ := strings.Cut(s, "-")
	if rest == "" {
		return strings.ToLower(lang)
	}
	return strings.ToLower(lang) + "-" + rest
}
