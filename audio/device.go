package audio

import (
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"

	"github.com/gen2brain/malgo"
)

// BackendEnv is the environment variable that picks the audio backend: "null", "pulse",
// "alsa", "jack", or empty for the default order.
const BackendEnv = "PARLEY_AUDIO_BACKEND"

// Backend names the audio system devices are opened through.
type Backend string

// Backends that can be chosen.
const (
	BackendAuto  Backend = ""      // the first that answers: PulseAudio, then ALSA on Linux
	BackendNull  Backend = "null"  // no hardware: capture delivers silence in real time
	BackendPulse Backend = "pulse" // PulseAudio (or PipeWire's PulseAudio server)
	BackendALSA  Backend = "alsa"
	BackendJACK  Backend = "jack" // only when asked for: libjack is noisy where no JACK server runs
)

// nullBackend is miniaudio's null backend; malgo.BackendNull names the custom one (off by one).
const nullBackend = malgo.Backend(14)

// BackendFromEnv returns the backend named by PARLEY_AUDIO_BACKEND (BackendAuto when unset or
// unknown).
func BackendFromEnv() Backend {
	b, _ := ParseBackend(os.Getenv(BackendEnv))
	return b
}

// ParseBackend returns the backend a name means ("null", "pulse", "pulseaudio", "alsa", "jack",
// or "" and "auto" for the default order); unknown names give BackendAuto and false.
func ParseBackend(name string) (Backend, bool) {
	switch n := strings.ToLower(strings.TrimSpace(name)); n {
	case "", "auto", "default":
		return BackendAuto, true
	case "pulseaudio":
		return BackendPulse, true
	case string(BackendNull), string(BackendPulse), string(BackendALSA), string(BackendJACK):
		return Backend(n), true
	}
	return BackendAuto, false
}

// autoOrder is what BackendAuto tries, in order. On Linux it is miniaudio's own order without
// JACK (and OSS): where no JACK server runs, libjack prints lines of its own on standard error.
// Elsewhere it is miniaudio's order.
func autoOrder() []Backend {
	if runtime.GOOS == "linux" {
		return []Backend{BackendPulse, BackendALSA}
	}
	return []Backend{BackendAuto}
}

func (b Backend) malgo() []malgo.Backend {
	switch b {
	case BackendNull:
		return []malgo.Backend{nullBackend}
	case BackendPulse:
		return []malgo.Backend{malgo.BackendPulseaudio}
	case BackendALSA:
		return []malgo.Backend{malgo.BackendAlsa}
	case BackendJACK:
		return []malgo.Backend{malgo.BackendJack}
	}
	return nil // miniaudio's own order
}

func (b Backend) String() string {
	if b == BackendAuto {
		return "default"
	}
	return string(b)
}

// openContexts maps each open miniaudio context to the backend it runs on, for listDevices.
var openContexts sync.Map // *malgo.AllocatedContext → Backend

// openContext initialises a miniaudio context on the backend; BackendAuto takes the first of
// autoOrder that answers.
func (b Backend) openContext() (*malgo.AllocatedContext, error) {
	silenceALSA()
	order := []Backend{b}
	if b == BackendAuto {
		order = autoOrder()
	}
	var err error
	for _, try := range order {
		var mctx *malgo.AllocatedContext
		if mctx, err = malgo.InitContext(try.malgo(), malgo.ContextConfig{}, nil); err == nil {
			openContexts.Store(mctx, try)
			return mctx, nil
		}
	}
	return nil, fmt.Errorf("%w: the %s audio system did not answer (%v)", ErrNoDevice, b, err)
}

func closeContext(mctx *malgo.AllocatedContext) {
	openContexts.Delete(mctx)
	_ = mctx.Uninit()
	mctx.Free()
}

// Device is an audio input or output.
type Device struct {
	// ID identifies the device to the backend: its name there ("vsink.monitor", "hw:0,0")
	// when that is text, else hex.
	ID string
	// Name is the description people see.
	Name string
	// Default marks the backend's default device.
	Default bool

	raw malgo.DeviceID
}

func (d Device) String() string { return fmt.Sprintf("%s (%s)", d.Name, d.ID) }

// deviceID renders a backend device ID: text when it is printable, else hex.
func deviceID(id malgo.DeviceID) string {
	b := id[:]
	for len(b) > 0 && b[len(b)-1] == 0 {
		b = b[:len(b)-1]
	}
	if len(b) == 0 {
		return "0"
	}
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			return hex.EncodeToString(b)
		}
	}
	return string(b)
}

// InputDevices lists the capture devices of the backend chosen by PARLEY_AUDIO_BACKEND.
func InputDevices(ctx context.Context) ([]Device, error) {
	return BackendFromEnv().Inputs(ctx)
}

// OutputDevices lists the playback devices of the backend chosen by PARLEY_AUDIO_BACKEND.
func OutputDevices(ctx context.Context) ([]Device, error) {
	return BackendFromEnv().Outputs(ctx)
}

// Inputs lists the backend's capture devices.
func (b Backend) Inputs(ctx context.Context) ([]Device, error) { return b.devices(ctx, malgo.Capture) }

// Outputs lists the backend's playback devices.
func (b Backend) Outputs(ctx context.Context) ([]Device, error) {
	return b.devices(ctx, malgo.Playback)
}

func (b Backend) devices(ctx context.Context, kind malgo.DeviceType) ([]Device, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	mctx, err := b.openContext()
	if err != nil {
		return nil, err
	}
	defer closeContext(mctx)
	return listDevices(mctx, kind)
}

// listDevices lists the devices of kind that a person can choose on the context's backend.
func listDevices(mctx *malgo.AllocatedContext, kind malgo.DeviceType) ([]Device, error) {
	infos, err := mctx.Devices(kind)
	if err != nil {
		return nil, fmt.Errorf("%w: listing devices: %v", ErrNoDevice, err)
	}
	out := make([]Device, 0, len(infos))
	for _, in := range infos {
		out = append(out, Device{ID: deviceID(in.ID), Name: in.Name(), Default: in.IsDefault != 0, raw: in.ID})
	}
	if b, _ := openContexts.Load(mctx); b == BackendALSA {
		out = choosableALSA(out)
	}
	return out, nil
}

// choosableALSA keeps the ALSA devices a person would choose: the sound cards' devices (which
// miniaudio lists as ":card,device") and "default". It drops the plugins ALSA lists beside them,
// which are not devices: rate converters (lavrate, samplerate, speexrate), channel mixers
// (upmix, vdownmix), speex, oss, jack, pulse (PulseAudio, when it runs, is listed by its own
// backend) and null. When the cards are there but ALSA names no default, a "default" entry, the
// device recording and playing use when none is given, is put first.
func choosableALSA(devs []Device) []Device {
	var out []Device
	hasDefault := false
	for _, d := range devs {
		if !isALSADevice(d.ID) {
			continue
		}
		if d.ID == "default" {
			d.Default = true
		}
		hasDefault = hasDefault || d.Default
		out = append(out, d)
	}
	if len(out) > 0 && !hasDefault {
		def := Device{ID: "default", Name: "Default ALSA device", Default: true}
		copy(def.raw[:], def.ID)
		out = append([]Device{def}, out...)
	}
	return out
}

// isALSADevice reports whether an ALSA PCM name (as miniaudio lists it) names a sound card's
// device, or the default device, rather than a plugin.
func isALSADevice(id string) bool {
	switch {
	case id == "default", id == "sysdefault", strings.HasPrefix(id, ":"), strings.Contains(id, "CARD="):
		return true
	}
	for _, p := range []string{"hw:", "plughw:", "sysdefault:", "default:"} {
		if strings.HasPrefix(id, p) {
			return true
		}
	}
	return false
}

// matchDevice finds the device a TakeOptions.Device string means: an exact ID, then an exact
// name, then the only device whose name or ID contains it (all case-insensitive).
func matchDevice(devs []Device, want string) (Device, error) {
	w := strings.ToLower(strings.TrimSpace(want))
	for _, d := range devs {
		if strings.ToLower(d.ID) == w {
			return d, nil
		}
	}
	for _, d := range devs {
		if strings.ToLower(d.Name) == w {
			return d, nil
		}
	}
	var found []Device
	for _, d := range devs {
		if strings.Contains(strings.ToLower(d.Name), w) || strings.Contains(strings.ToLower(d.ID), w) {
			found = append(found, d)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		names := make([]string, len(devs))
		for i, d := range devs {
			names[i] = fmt.Sprintf("%q", d.Name)
		}
		if len(names) == 0 {
			return Device{}, fmt.Errorf("%w: no input device matches %q, and there are none", ErrNoDevice, want)
		}
		return Device{}, fmt.Errorf("%w: no input device matches %q; the inputs are %s", ErrNoDevice, want, strings.Join(names, ", "))
	}
	names := make([]string, len(found))
	for i, d := range found {
		names[i] = fmt.Sprintf("%q", d.Name)
	}
	return Device{}, fmt.Errorf("%q matches several input devices (%s); give more of the name, or the ID", want, strings.Join(names, ", "))
}
