package audio

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestChoosableALSA(t *testing.T) {
	plugins := []Device{
		{ID: "null", Name: "Discard all samples (playback) or generate zero samples (capture)"},
		{ID: "lavrate", Name: "Rate Converter Plugin Using Libav/FFmpeg Library"},
		{ID: "samplerate", Name: "Rate Converter Plugin Using Samplerate Library"},
		{ID: "jack", Name: "JACK Audio Connection Kit"},
		{ID: "pulse", Name: "PulseAudio Sound Server"},
		{ID: "upmix", Name: "Plugin for channel upmix (4,6,8)"},
	}
	card := []Device{{ID: ":0,0", Name: "HDA Intel PCH"}, {ID: ":0,3", Name: "HDA Intel PCH"}}
	def := Device{ID: "default", Name: "Default ALSA device", Default: true}
	tests := []struct {
		name string
		in   []Device
		want []Device
	}{
		{"no card, no server: nothing to choose", plugins, nil},
		{"cards: a default is put first", append(append([]Device{}, plugins...), card...),
			append([]Device{def}, card...)},
		{"ALSA's own default is kept and marked",
			append([]Device{{ID: "default", Name: "Playback/recording through the PulseAudio sound server"}}, plugins...),
			[]Device{{ID: "default", Name: "Playback/recording through the PulseAudio sound server", Default: true}}},
		{"verbose names of cards", []Device{{ID: "sysdefault:CARD=PCH", Name: "HDA Intel PCH", Default: true}, {ID: "hw:CARD=PCH,DEV=0"}, {ID: "jack"}},
			[]Device{{ID: "sysdefault:CARD=PCH", Name: "HDA Intel PCH", Default: true}, {ID: "hw:CARD=PCH,DEV=0"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := choosableALSA(tt.in)
			if diff := cmp.Diff(tt.want, got, cmp.Comparer(func(a, b Device) bool {
				return a.ID == b.ID && a.Name == b.Name && a.Default == b.Default
			})); diff != "" {
				t.Errorf("choosableALSA (-want +got):\n%s", diff)
			}
		})
	}
	// The added default opens ALSA's "default" PCM: its raw ID is that name.
	if got := choosableALSA(card)[0]; deviceID(got.raw) != "default" {
		t.Errorf("the added default's raw ID is %q, want \"default\"", deviceID(got.raw))
	}
}

func TestParseBackend_JACKOnlyWhenAsked(t *testing.T) {
	if b, ok := ParseBackend("jack"); !ok || b != BackendJACK {
		t.Errorf("ParseBackend(\"jack\") = %q, %v", b, ok)
	}
	for _, b := range autoOrder() {
		if b == BackendJACK {
			t.Errorf("the default order %v tries JACK", autoOrder())
		}
	}
}
