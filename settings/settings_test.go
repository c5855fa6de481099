package settings_test

import (
	"errors"
	"strings"
	"testing"

	"parley/settings"
)

func ptr[T any](v T) *T { return &v }

func TestChanged(t *testing.T) {
	saved := settings.Config{Persona: ptr("p"), Temperature: ptr(0.7)}
	got := settings.Changed(saved, settings.Config{Persona: ptr("p"), Temperature: ptr(0.7000001), TopP: ptr(0.9)})
	if got.Persona != nil || got.Temperature != nil || got.TopP == nil || got.MaxTokens != nil {
		t.Errorf("Changed = %+v, want only top_p", got)
	}
	if got := settings.Changed(saved, settings.Config{}); !got.IsZero() {
		t.Errorf("unsetting is not a change: %+v", got)
	}
}

func TestApply(t *testing.T) {
	saved := settings.Config{Persona: ptr("poet"), Temperature: ptr(0.7), TopP: ptr(0.9)}
	got := saved.Apply(settings.Patch{Set: settings.Config{Temperature: ptr(0.0), MaxTokens: ptr(5)}})
	want := settings.Config{Persona: ptr("poet"), Temperature: ptr(0.0), TopP: ptr(0.9), MaxTokens: ptr(5)}
	if !got.Equal(want) {
		t.Errorf("a call's settings over the saved ones = %+v, want %+v", got, want)
	}
	got = saved.Apply(settings.Patch{Set: settings.Config{Persona: ptr("x")},
		Clear: []settings.Field{settings.FieldPersona, settings.FieldTopP}})
	if !got.Equal(settings.Config{Temperature: ptr(0.7)}) {
		t.Errorf("clearing wins over setting: %+v", got)
	}
	if !saved.Equal(settings.Config{Persona: ptr("poet"), Temperature: ptr(0.7), TopP: ptr(0.9)}) {
		t.Errorf("Apply changed its receiver: %+v", saved)
	}
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   settings.Config
		field settings.Field
	}{
		{"nothing set", settings.Config{}, ""},
		{"the limits themselves", settings.Config{Persona: ptr(strings.Repeat("é", settings.MaxPersonaRunes)),
			Temperature: ptr(2.0), TopP: ptr(0.0), MaxTokens: ptr(1)}, ""},
		{"long persona", settings.Config{Persona: ptr(strings.Repeat("é", settings.MaxPersonaRunes+1))}, settings.FieldPersona},
		{"hot", settings.Config{Temperature: ptr(2.01)}, settings.FieldTemperature},
		{"negative top_p", settings.Config{TopP: ptr(-0.1)}, settings.FieldTopP},
		{"no tokens", settings.Config{MaxTokens: ptr(0)}, settings.FieldMaxTokens},
		{"the first wins", settings.Config{Temperature: ptr(3.0), MaxTokens: ptr(0)}, settings.FieldTemperature},
	} {
		err := tc.cfg.Check()
		var re *settings.RangeError
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.field != "" && (!errors.As(err, &re) || re.Field != tc.field):
			t.Errorf("%s: got %v, want a range error on %s", tc.name, err, tc.field)
		}
	}
	err := settings.Config{Persona: ptr(strings.Repeat("a", 8001))}.Check()
	if re := (*settings.RangeError)(nil); !errors.As(err, &re) || re.Value != 8001 || re.Max != 8000 {
		t.Errorf("the persona's error carries its length and the limit: %#v", err)
	}
}

func TestNumber(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{1.1500000000000001, "1.15"}, {0.3, "0.3"}, {1, "1"}, {0, "0"}, {0.05, "0.05"}, {2, "2"},
	} {
		if got := settings.Number(tc.v); got != tc.want {
			t.Errorf("Number(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}
