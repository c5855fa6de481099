package speech

import (
	"os/exec"
	"time"
)

// EspeakOptions configures the local speech synthesiser.
type EspeakOptions struct {
	// Binary is the synthesiser program; "" means "espeak-ng" on PATH.
	Binary string
	// Lame is the MP3 encoder program; "" means "lame" on PATH.
	Lame string
	// DefaultVoice is the voice used when a request names none; "" means "en-us". It must be
	// one of the voices Voices lists.
	DefaultVoice string
	// Timeout bounds one synthesis, both programs together; 0 means 60 seconds.
	Timeout time.Duration
}

// maxMP3 bounds lame's output.
const maxMP3 = 32 << 20

func (o EspeakOptions) withDefaults() EspeakOptions {
	if o.Binary == "" {
		o.Binary = "espeak-ng"
	}
	if o.Lame == "" {
		o.Lame = "lame"
	}
	if o.DefaultVoice == "" {
		o.DefaultVoice = "en-us"
	}
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	return o
}

// espeakVoices are the voices offered, each checked against `espeak-ng --voices` on Debian 12.
var espeakVoices = []Voice{
	{Name: "en-us", Language: "en-US", Description: "English (American), male"},
	{Name: "en-gb", Language: "en-GB", Description: "English (British), male"},
	{Name: "de", Language: "de", Description: "German, male"},
	{Name: "fr-fr", Language: "fr-FR", Description: "French (France), male"},
	{Name: "es", Language: "es", Description: "Spanish (Spain), male"},
	{Name: "it", Language: "it", Description: "Italian, male"},
	{Name: "pt-br", Language: "pt-BR", Description: "Portuguese (Brazil), male"},
	{Name: "nl", Language: "nl", Description: "Dutch, male"},
	{Name: "pl", Language: "pl", Description: "Polish, male"},
	{Name: "sv", Language: "sv", Description: "Swedish, male"},
}

// CheckEspeak reports, as an *EngineMissingError, whether espeak-ng or lame is missing; nil
// when both are there.
func CheckEspeak(o EspeakOptions) error {
	o = o.withDefaults()
	if _, err := exec.LookPath(o.Binary); err != nil {
		return &EngineMissingError{Engine: o.Binary, Package: "espeak-ng", Purpose: "speech synthesis"}
	}
	if _, err := exec.LookPath(o.Lame); err != nil {
		return &EngineMissingError{Engine: o.Lame, Package: "lame", Purpose: "speech synthesis"}
	}
	return nil
}

// NewEspeak returns a Synthesizer that speaks with espeak-ng's voices only and encodes MP3 with
// lame (mono, 22050 Hz as espeak-ng makes it, VBR quality 6). An unknown DefaultVoice falls back
// to "en-us".
func NewEspeak(o EspeakOptions) Synthesizer {
	o = o.withDefaults()
	def := o.DefaultVoice
	if _, ok := findVoice(espeakVoices, def); !ok {
		def = "en-us"
	}
	return newLocalSynth(espeakLocalVoices(o), def, o.Lame, o.Timeout)
}

// espeakLocalVoices are espeakVoices as espeak-ng speaks them. They are offered whether or not
// espeak-ng is installed; a missing espeak-ng is reported when one is asked for.
func espeakLocalVoices(o EspeakOptions) []localVoice {
	check := func() error { return CheckEspeak(o) }
	out := make([]localVoice, len(espeakVoices))
	for i, v := range espeakVoices {
		// espeak-ng reads stdin line by line; newlines only make pauses.
		out[i] = localVoice{Voice: v, argv: []string{o.Binary, "--stdout", "-v", v.Name}, check: check}
	}
	return out
}

func findVoice(vs []Voice, name string) (Voice, bool) {
	for _, v := range vs {
		if v.Name == name {
			return v, true
		}
	}
	return Voice{}, false
}
