package app

import (
	"encoding/json"
	"fmt"
	"strings"

	"fyne.io/fyne/v2/lang"

	"parley/client"
)

// Preset is a named persona with its generation settings, to start a conversation from.
type Preset struct {
	Name        string   `json:"name"`
	Persona     string   `json:"persona"`
	Temperature *float64 `json:"temperature,omitempty"`
	TopP        *float64 `json:"top_p,omitempty"`
	MaxTokens   *int     `json:"max_tokens,omitempty"`
	// BuiltIn presets come with Parley and cannot be renamed or deleted.
	BuiltIn bool `json:"-"`
}

// Config is the preset as a conversation's settings.
func (p Preset) Config() client.Config {
	c := client.Config{Temperature: p.Temperature, TopP: p.TopP, MaxTokens: p.MaxTokens}
	if strings.TrimSpace(p.Persona) != "" {
		persona := p.Persona
		c.Persona = &persona
	}
	return c
}

// Title is the preset's name as the window shows it: a built-in one's in the window's language
// (its Name, in English, is what is stored and matched), the person's own as they wrote it.
func (p Preset) Title() string {
	if !p.BuiltIn {
		return p.Name
	}
	switch p.Name {
	case "Plain assistant":
		return lang.L("Plain assistant")
	case "Concise":
		return lang.L("Concise")
	case "Tutor":
		return lang.L("Tutor")
	case "Translator":
		return lang.L("Translator")
	case "Ship's navigator":
		return lang.L("Ship's navigator")
	}
	return p.Name
}

// presetTitles are the titles of presets, in order, each told from the others: a person's
// preset called what a built-in one is called in this language (saved in another) is marked
// as theirs.
func presetTitles(ps []Preset) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Title()
		for _, bi := range builtInPresets {
			if !p.BuiltIn && strings.EqualFold(bi.Title(), p.Name) {
				out[i] = fmt.Sprintf(lang.L("%s (yours)"), p.Name)
			}
		}
	}
	return out
}

func f64(v float64) *float64 { return &v }

// builtInPresets come with Parley.
var builtInPresets = []Preset{
	{Name: "Plain assistant", Persona: "", BuiltIn: true},
	{Name: "Concise", Persona: "You are a concise assistant. Answer in as few words as the question allows, without preamble. Use a short list only when it is clearer.", Temperature: f64(0.3), BuiltIn: true},
	{Name: "Tutor", Persona: "You are a patient tutor. Explain step by step, check understanding with a short question, and give a small example before the general rule.", Temperature: f64(0.5), BuiltIn: true},
	{Name: "Translator", Persona: "You are a translator. Translate what the user writes into English, or into the language they name; keep the tone, and give only the translation unless asked for notes.", Temperature: f64(0.2), BuiltIn: true},
	{Name: "Ship's navigator", Persona: "You are the navigator of a sailing ship: practical, calm and precise. Answer with bearings, distances and weather in mind, and a sailor's turn of phrase.", Temperature: f64(0.8), BuiltIn: true},
}

// presetBook is the built-in presets and the person's own, kept in the app's preferences.
type presetBook struct {
	prefs prefs
}

// all returns the built-in presets, then the person's own.
func (b presetBook) all() []Preset {
	return append(append([]Preset(nil), builtInPresets...), b.own()...)
}

// own returns the person's presets.
func (b presetBook) own() []Preset {
	var ps []Preset
	if s := b.prefs.presets(); s != "" {
		if json.Unmarshal([]byte(s), &ps) != nil {
			return nil
		}
	}
	return ps
}

// presetIndex is the place in ps of the preset called name (its Name), -1 when none is.
func presetIndex(ps []Preset, name string) int {
	for i, p := range ps {
		if p.Name == name {
			return i
		}
	}
	return -1
}

// find returns the preset called name (its Name: a built-in one's in English, whatever the
// window's language).
func (b presetBook) find(name string) (Preset, bool) {
	all := b.all()
	if i := presetIndex(all, name); i >= 0 {
		return all[i], true
	}
	return Preset{}, false
}

// Errors of the preset book, shown inline in the settings dialog (in the window's language).
const (
	errPresetName presetError = iota + 1
	errPresetBuiltIn
)

// presetError is an error of the preset book.
type presetError int

func (e presetError) Error() string {
	if e == errPresetName {
		return lang.L("give the preset a name")
	}
	return lang.L("the built-in presets cannot be changed; save a copy under another name")
}

// save adds p, or replaces the person's preset of the same name.
func (b presetBook) save(p Preset) error {
	p.Name = strings.TrimSpace(p.Name)
	if p.Name == "" {
		return errPresetName
	}
	for _, bi := range builtInPresets {
		if strings.EqualFold(bi.Name, p.Name) || strings.EqualFold(bi.Title(), p.Name) {
			return errPresetBuiltIn
		}
	}
	own := b.own()
	replaced := false
	for i := range own {
		if strings.EqualFold(own[i].Name, p.Name) {
			own[i], replaced = p, true
		}
	}
	if !replaced {
		own = append(own, p)
	}
	return b.store(own)
}

// rename renames the person's preset old to name.
func (b presetBook) rename(old, name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return errPresetName
	}
	for _, bi := range builtInPresets {
		if bi.Name == old || strings.EqualFold(bi.Name, name) || strings.EqualFold(bi.Title(), name) {
			return errPresetBuiltIn
		}
	}
	own := b.own()
	for i := range own {
		if own[i].Name == old {
			own[i].Name = name
		}
	}
	return b.store(own)
}

// remove deletes the person's preset called name.
func (b presetBook) remove(name string) error {
	for _, bi := range builtInPresets {
		if bi.Name == name {
			return errPresetBuiltIn
		}
	}
	own := b.own()
	kept := own[:0]
	for _, p := range own {
		if p.Name != name {
			kept = append(kept, p)
		}
	}
	return b.store(kept)
}

func (b presetBook) store(ps []Preset) error {
	data, err := json.Marshal(ps)
	if err != nil {
		return err
	}
	b.prefs.setPresets(string(data))
	return nil
}

// presetOf is the name of the preset, built in or the person's, whose persona is persona ("" when
// none is): the header's persona chip shows it.
func (m *mainWindow) presetOf(persona string) string {
	persona = strings.TrimSpace(persona)
	for _, p := range (presetBook{m.u.prefs}).all() {
		if persona != "" && strings.TrimSpace(p.Persona) == persona {
			return p.Title()
		}
	}
	return ""
}
