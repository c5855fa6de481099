package speech

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// fliteVoice is one of flite's voices that Parley offers.
type fliteVoice struct {
	// id is flite's name for the voice (flite -voice ID).
	id string
	// rate is the sample rate of its WAV (mono, 16-bit).
	rate int
	Voice
}

// fliteVoices are the flite voices offered, most natural first, each checked against Debian 12's
// flite 2.2. Their names start with "flite-" so that they never clash with espeak-ng's. awb_time
// is left out: it speaks nothing but times of day.
var fliteVoices = []fliteVoice{
	{"slt", 16000, Voice{Name: "flite-slt", Language: "en-US", Description: "English (American), female; the clearest"}},
	{"rms", 16000, Voice{Name: "flite-rms", Language: "en-US", Description: "English (American), male"}},
	{"awb", 16000, Voice{Name: "flite-awb", Language: "en-GB", Description: "English (Scottish), male"}},
	{"kal16", 16000, Voice{Name: "flite-kal16", Language: "en-US", Description: "English (American), male, robotic"}},
	{"kal", 8000, Voice{Name: "flite-kal", Language: "en-US", Description: "English (American), male, robotic, telephone quality"}},
}

// flitePackage is the Debian package that provides flite and its voices.
const flitePackage = "flite"

// maxFliteList bounds what `flite -lv` may print.
const maxFliteList = 4 << 10

// installedFlite returns flite's voices that are installed and offered, most natural first: none
// when flite is missing or cannot list them, and none on Windows, where flite cannot read stdin
// by name. Each voice runs its own program where Debian installs one beside
// flite (flite_cmu_us_slt for slt): having one voice to load, it starts about 14 ms sooner.
// When inProcess is true, each voice whose library loads speaks in this process instead (no
// program starts: a short sentence is ready about 60 ms sooner).
func installedFlite(ctx context.Context, binary string, inProcess bool) []localVoice {
	if runtime.GOOS == "windows" {
		return nil
	}
	path, err := exec.LookPath(binary)
	if err != nil {
		return nil
	}
	out, err := run(ctx, 5*time.Second, nil, maxFliteList, path, "-lv")
	if err != nil {
		return nil
	}
	have := map[string]bool{}
	for _, id := range parseFliteVoices(out) {
		have[id] = true
	}
	var vs []localVoice
	for _, fv := range fliteVoices {
		if !have[fv.id] {
			continue
		}
		argv := []string{path, "-voice", fv.id}
		if own := filepath.Join(filepath.Dir(path), "flite_cmu_us_"+fv.id); isExecutable(own) {
			argv = []string{own}
		}
		// The text is read from stdin, named as a file: flite has no "-" for it. The WAV goes to
		// a file (-o, given by localSynth), not to /dev/stdout: flite reopens what it wrote to
		// update its header, and on a pipe it then waits for data that never comes.
		argv = append(argv, "-f", "/dev/stdin", "-o")
		prog := argv[0]
		lv := localVoice{Voice: fv.Voice, argv: argv, fileRate: fv.rate, check: func() error {
			if _, err := exec.LookPath(prog); err != nil {
				return &EngineMissingError{Engine: prog, Package: flitePackage, Purpose: "speech synthesis"}
			}
			return nil
		}}
		if inProcess {
			lv.inProcess = newLibFliteSpeaker(fv.id) // nil where this build cannot
		}
		vs = append(vs, lv)
	}
	return vs
}

// parseFliteVoices reads the voice IDs from what `flite -lv` prints ("Voices available: kal
// awb_time kal16 awb rms slt"). Anything that is not a plain voice name is dropped.
func parseFliteVoices(out []byte) []string {
	var ids []string
	for _, line := range strings.Split(string(out), "\n") {
		_, rest, ok := strings.Cut(line, "Voices available:")
		if !ok {
			continue
		}
		for _, id := range strings.Fields(rest) {
			if isVoiceID(id) {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// isVoiceID reports whether s looks like a flite voice name: 1 to 32 lowercase letters, digits
// and underscores.
func isVoiceID(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// isExecutable reports whether path is a regular file someone may execute.
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
