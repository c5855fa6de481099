package speech

import (
	"context"
	"os/exec"
	"time"
)

// BuiltInOptions configures the built-in service's speech synthesiser.
type BuiltInOptions struct {
	// Espeak is espeak-ng's program; "" means "espeak-ng" on PATH.
	Espeak string
	// Flite is flite's program; "" means "flite" on PATH.
	Flite string
	// Lame is the MP3 encoder program; "" means "lame" on PATH.
	Lame string
	// DefaultVoice is the voice used when a request names none; "" (or a voice not offered)
	// means the most natural one installed: flite-slt where flite is, else espeak-ng's en-us.
	DefaultVoice string
	// Timeout bounds one synthesis; 0 means 60 seconds.
	Timeout time.Duration
	// Program runs flite's program and lame for every synthesis even where libflite and
	// libmp3lame can be loaded into this process, as they are when Flite and Lame are "".
	Program bool
}

// inProcess reports whether flite's voices speak in this process (when the libraries load).
func (o BuiltInOptions) inProcess() bool { return o.Flite == "" && o.Lame == "" && !o.Program }

func (o BuiltInOptions) espeak() EspeakOptions {
	return EspeakOptions{Binary: o.Espeak, Lame: o.Lame, Timeout: o.Timeout}.withDefaults()
}

func (o BuiltInOptions) withDefaults() BuiltInOptions {
	e := o.espeak()
	o.Espeak, o.Lame, o.Timeout = e.Binary, e.Lame, e.Timeout
	if o.Flite == "" {
		o.Flite = "flite"
	}
	return o
}

// NewBuiltIn returns the built-in service's Synthesizer: flite's voices where flite is installed,
// the most natural first, then espeak-ng's, each piped into lame for MP3. It asks flite once,
// here, which voices it has (`flite -lv`, about 30 ms); a flite installed later is offered after
// a restart.
func NewBuiltIn(ctx context.Context, o BuiltInOptions) Synthesizer {
	inProcess := o.inProcess()
	o = o.withDefaults()
	voices := append(installedFlite(ctx, o.Flite, inProcess), espeakLocalVoices(o.espeak())...)
	def := o.DefaultVoice
	if !hasLocalVoice(voices, def) {
		def = voices[0].Name // flite's most natural, or espeak-ng's en-us
	}
	return newLocalSynth(voices, def, o.Lame, o.Timeout)
}

// CheckBuiltIn reports, as an *EngineMissingError, that the built-in synthesiser cannot speak
// with its default voice: lame is missing, or both flite and espeak-ng are. nil when it can.
func CheckBuiltIn(o BuiltInOptions) error {
	o = o.withDefaults()
	if _, err := exec.LookPath(o.Lame); err != nil {
		return &EngineMissingError{Engine: o.Lame, Package: "lame", Purpose: "speech synthesis"}
	}
	if FliteInstalled(o) {
		return nil
	}
	return CheckEspeak(o.espeak())
}

// FliteInstalled reports whether flite's program is there, and with it flite's voices.
func FliteInstalled(o BuiltInOptions) bool {
	_, err := exec.LookPath(o.withDefaults().Flite)
	return err == nil
}

func hasLocalVoice(vs []localVoice, name string) bool {
	for _, v := range vs {
		if v.Name == name {
			return true
		}
	}
	return false
}
