package app

import (
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"parley/audio/vad"
)

// Preferences saved by earlier versions, under their keys, read the same through prefs; and
// what prefs writes lands under those keys.
func TestPrefs_KeepTheKeysPeopleHaveSaved(t *testing.T) {
	a := test.NewTempApp(t)
	raw := a.Preferences()
	p := prefs{raw}
	if p.volume() != 1 || p.hold() != vad.DefaultHold || p.windowSize() != fyne.NewSize(1000, 700) ||
		p.baseURL() != defaultBaseURL || p.savedBaseURL() != "" || p.defaultPreset() != "Plain assistant" {
		t.Errorf("defaults: volume %v, hold %v, size %v, address %q (%q), preset %q",
			p.volume(), p.hold(), p.windowSize(), p.baseURL(), p.savedBaseURL(), p.defaultPreset())
	}
	if _, _, ok := p.windowPosition(); ok {
		t.Error("a position never saved reads as saved")
	}

	raw.SetString("service", "remote")
	raw.SetString("base_url", "https://api.example.com")
	raw.SetString("input_device", "mic-2")
	raw.SetFloat("output_volume", 0.4)
	raw.SetBool("auto_speak", true)
	raw.SetInt("vad_hold_ms", 1200)
	raw.SetBool("send_transcripts", true)
	raw.SetBool("barge_in", true)
	raw.SetBool("adaptive_hold", !defaultAdaptiveHold)
	raw.SetBool("speak_errors", true)
	raw.SetString("default_preset", "Tutor")
	raw.SetString("default_voice", "en-gb")
	raw.SetString("presets", `[{"name":"Mine","persona":"p"}]`)
	raw.SetFloat("window.width", 900)
	raw.SetFloat("window.height", 640)
	raw.SetInt("window.x", 10)
	raw.SetInt("window.y", 20)
	x, y, placed := p.windowPosition()
	if p.service() != serviceRemote || p.baseURL() != "https://api.example.com" || p.inputDevice() != "mic-2" ||
		p.volume() != 0.4 || !p.autoSpeak() || p.hold() != 1200*time.Millisecond || !p.sendSpoken() || !p.bargeIn() ||
		p.adaptiveHold() == defaultAdaptiveHold || !p.speakErrors() || p.defaultPreset() != "Tutor" || p.defaultVoice() != "en-gb" ||
		len((presetBook{p}).own()) != 1 || p.windowSize() != fyne.NewSize(900, 640) || !placed || x != 10 || y != 20 {
		t.Errorf("saved preferences read back wrong: %+v", raw)
	}

	p.setHold(1500 * time.Millisecond)
	p.useLocal()
	p.savePlacement(fyne.NewSize(800, 600), true, 30, 40, true)
	if raw.Int("vad_hold_ms") != 1500 || raw.String("service") != "local" || raw.Float("window.width") != 800 || raw.Int("window.y") != 40 {
		t.Errorf("written under other keys: hold %d, service %q, width %v, y %d",
			raw.Int("vad_hold_ms"), raw.String("service"), raw.Float("window.width"), raw.Int("window.y"))
	}
}
