package voice_test

import (
	"testing"

	"parley/client"
	"parley/internal/langtag"
	"parley/voice"
)

// The language of replies as a model writes them, in the window's languages and others, and
// texts too short or mixed to tell.
func TestTextLanguage(t *testing.T) {
	for text, want := range map[string]string{
		"The weather tomorrow will be sunny, with a light breeze from the west.":         "en",
		"Morgen wird es sonnig, mit einer leichten Brise aus Westen und bis zu 20 Grad.": "de",
		"Demain, il fera beau, avec une légère brise d'ouest et jusqu'à 20 degrés.":      "fr",
		"Mañana hará sol, con una ligera brisa del oeste y hasta 20 grados.":             "es",
		"Amanhã vai fazer sol, com uma brisa leve do oeste e até 20 graus.":              "pt",
		"Domani ci sarà il sole, con una leggera brezza da ovest e fino a 20 gradi.":     "it",
		"Morgen wordt het zonnig, met een lichte bries uit het westen en tot 20 graden.": "nl",
		"Jutro będzie słonecznie, z lekkim wiatrem z zachodu i do 20 stopni.":            "pl",
		"Завтра буде сонячно, з легким західним вітром і до 20 градусів.":                "uk",
		"Завтра будет солнечно, с лёгким западным ветром и до 20 градусов.":              "ru",
		"明天天气晴朗，有来自西方的微风，最高气温二十度。":                                                       "zh",
		"OK.":       "",
		"Ja, gerne": "",
		"":          "",
	} {
		if got := voice.TextLanguage(text); got != want {
			t.Errorf("TextLanguage(%q) = %q, want %q", text, got, want)
		}
	}
}

// builtIn is the voices list of the built-in service, as GET /v1/chat/voices gives it (part).
var builtIn = []client.Voice{
	{Name: "flite-slt", Language: "en-US", Default: true},
	{Name: "flite-rms", Language: "en-US"},
	{Name: "en-us", Language: "en-US"},
	{Name: "en-gb", Language: "en-GB"},
	{Name: "de", Language: "de"},
	{Name: "fr-fr", Language: "fr-FR"},
	{Name: "pt-br", Language: "pt-BR"},
	{Name: "pt", Language: "pt"},
	{Name: "uk", Language: "uk"},
	{Name: "cmn", Language: "cmn"},
}

// A reply is spoken by a voice of its language unless the conversation chose one; a language
// the service has no voice for, or a service that lists none, keeps the person's voice.
func TestChooseVoice(t *testing.T) {
	for _, tt := range []struct {
		chosen, fallback, lang string
		voices                 []client.Voice
		want                   string
	}{
		{"", "", "de", builtIn, "de"},
		{"", "", "fr", builtIn, "fr-fr"},
		{"", "", "pt", builtIn, "pt"}, // espeak-ng's Portuguese of Portugal, the language asked
		{"", "", "pt-BR", builtIn, "pt-br"},
		{"", "", "uk", builtIn, "uk"},
		{"", "", "zh", builtIn, "cmn"},
		{"", "", "en", builtIn, ""},                      // the service's default speaks English
		{"", "flite-rms", "en-GB", builtIn, "flite-rms"}, // the person's English voice stays
		{"", "flite-rms", "de", builtIn, "de"},
		{"flite-rms", "", "de", builtIn, "flite-rms"}, // the conversation's voice wins
		{"de", "flite-rms", "en", builtIn, "de"},
		{"", "flite-rms", "", builtIn, "flite-rms"},   // language unknown
		{"", "flite-rms", "sw", builtIn, "flite-rms"}, // no voice of it
		{"", "alloy", "de", nil, "alloy"},             // no list of voices
		{"", "", "not a tag!", builtIn, ""},
	} {
		if got := voice.ChooseVoice(tt.chosen, tt.fallback, tt.lang, tt.voices); got != tt.want {
			t.Errorf("ChooseVoice(%q, %q, %q) = %q, want %q", tt.chosen, tt.fallback, tt.lang, got, tt.want)
		}
	}
}

// The reply's text decides its language; the transcript's language, in whatever notation the
// service gives, when the text cannot tell.
func TestReplyLanguage(t *testing.T) {
	for _, tt := range []struct{ reply, heard, want string }{
		{"Morgen wird es sonnig, mit einer leichten Brise aus Westen.", "en", "de"},
		{"Ja.", "german", "de"},
		{"Ja.", "de-DE", "de-DE"},
		{"Ja.", "", ""},
	} {
		if got := voice.ReplyLanguage(tt.reply, tt.heard); got != tt.want {
			t.Errorf("ReplyLanguage(%q, %q) = %q, want %q", tt.reply, tt.heard, got, tt.want)
		}
	}
}

// Short English replies are never taken for another language (whatlanggo alone reads "Tell me a
// joke about computers." as French, 0.87 sure), and short ones of other languages are told by
// their common words, or not at all.
func TestTextLanguage_ShortSentences(t *testing.T) {
	for _, text := range []string{"Tell me a joke about computers.", "Set a timer for ten minutes.", "How do I make a cup of tea?",
		"Boil the egg for seven minutes.", "The next train to London leaves at six.", "Re: Where to. The tide turns at six. Hold course west."} {
		if got := voice.TextLanguage(text); got != "" && got != "en" {
			t.Errorf("TextLanguage(%q) = %q: English taken for another language", text, got)
		}
	}
	for text, want := range map[string]string{"Das ist eine gute Frage.": "de", "Il fera beau demain à Paris.": "fr",
		"La capital de Australia es Canberra.": "es", "La capitale de l'Australie est Canberra.": "fr"} {
		if got := voice.TextLanguage(text); got != want {
			t.Errorf("TextLanguage(%q) = %q, want %q", text, got, want)
		}
	}
}

// Short sentences whose trigrams another language shares are not guessed.
func TestTextLanguage_NoGuess(t *testing.T) {
	for _, text := range []string{"È una buona domanda.", "Morgen wird es sonnig.", "Buena pregunta.", "12345 67890 !!!"} {
		if got := voice.TextLanguage(text); got != "" && got != map[string]string{"È una buona domanda.": "it", "Morgen wird es sonnig.": "de", "Buena pregunta.": "es"}[text] {
			t.Errorf("TextLanguage(%q) = %q: a wrong guess", text, got)
		}
	}
}

func FuzzTextLanguage(f *testing.F) {
	f.Add("Morgen wird es sonnig, mit einer leichten Brise aus Westen.")
	f.Add("明天天气晴朗")
	f.Add("\xff\xfe")
	f.Fuzz(func(t *testing.T, s string) {
		l := voice.TextLanguage(s)
		if l != "" && !langtag.IsTag(l) {
			t.Fatalf("TextLanguage(%q) = %q, not a language tag", s, l)
		}
		if v := voice.ChooseVoice("", "flite-rms", l, builtIn); v == "" {
			t.Fatalf("no voice for %q", l)
		}
	})
}
