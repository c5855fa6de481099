package speech

import (
	"context"
	"os/exec"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/text/language"

	"parley/internal/langtag"
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

// espeakVoices are the voices offered first, in this order, each checked against
// `espeak-ng --voices` on Debian 12; the other languages espeak-ng has follow (installedEspeak).
// Without espeak-ng these alone are offered.
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
	{Name: "uk", Language: "uk", Description: "Ukrainian, male"},
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
	voices := espeakLocalVoices(o)
	def := o.DefaultVoice
	if !hasLocalVoice(voices, def) {
		def = "en-us"
	}
	return newLocalSynth(voices, def, o.Lame, o.Timeout)
}

// espeakLocalVoices are the voices of every language espeak-ng has (installedEspeak) as it
// speaks them. espeakVoices are offered whether or not espeak-ng is installed; a missing
// espeak-ng is reported when one is asked for.
func espeakLocalVoices(o EspeakOptions) []localVoice {
	check := func() error { return CheckEspeak(o) }
	voices := installedEspeak(o.Binary)
	out := make([]localVoice, len(voices))
	for i, v := range voices {
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

// espeakListTimeout bounds `espeak-ng --voices` (about 10 ms).
const espeakListTimeout = 5 * time.Second

// installedEspeak is espeakVoices, then the voices of the other languages binary lists, by name;
// espeakVoices alone when it cannot be run.
func installedEspeak(binary string) []Voice {
	ctx, cancel := context.WithTimeout(context.Background(), espeakListTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, binary, "--voices").Output()
	if err != nil {
		return espeakVoices
	}
	voices := append([]Voice{}, espeakVoices...)
	listed := parseEspeakVoices(out)
	sort.Slice(listed, func(i, j int) bool { return listed[i].Name < listed[j].Name })
	for _, v := range listed {
		if _, ok := findVoice(voices, v.Name); !ok {
			voices = append(voices, v)
		}
	}
	return voices
}

// parseEspeakVoices reads `espeak-ng --voices`: a header, then one voice a line (priority,
// language, age/gender, name with underscores for spaces, file, other languages). A voice is
// named by its language, which is what -v takes; the first of two with one language is kept, as
// -v picks it. Lines that do not read so are skipped.
func parseEspeakVoices(out []byte) []Voice {
	var voices []Voice
	seen := map[string]bool{}
	for i, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if i == 0 || len(f) < 5 || len(f[1]) > 35 || !langtag.IsTag(f[1]) {
			continue
		}
		name := strings.ToLower(f[1])
		tag, err := language.Parse(name)
		if err != nil || seen[name] {
			continue
		}
		seen[name] = true
		desc := strings.ReplaceAll(f[3], "_", " ")
		switch {
		case strings.HasSuffix(f[2], "/M"):
			desc += ", male"
		case strings.HasSuffix(f[2], "/F"):
			desc += ", female"
		}
		voices = append(voices, Voice{Name: name, Language: tag.String(), Description: clip(desc, 80)})
	}
	return voices
}

// clip cuts s to at most n bytes, at a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
