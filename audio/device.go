package audio

import (
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"strings"

	"github.com/gen2brain/malgo"
)

// BackendEnv is the environment variable that picks the audio backend: "null", "pulse",
// "alsa", or empty for miniaudio's own order.
const BackendEnv = "PARLEY_AUDIO_BACKEND"

// Backend names the audio system devices are opened through.
type Backend string

// Backends that can be chosen.
const (
	BackendAuto  Backend = ""      // miniaudio's default order (PulseAudio, ALSA, ... on Linux)
	BackendNull  Backend = "null"  // no hardware: capture delivers silence in real time
	BackendPulse Backend = "pulse" // PulseAudio (or PipeWire's PulseAudio server)
	BackendALSA  Backend = "alsa"
)

// nullBackend is miniaudio's null backend; malgo.BackendNull names the custom one (off by one).
const nullBackend = malgo.Backend(14)

// BackendFromEnv returns the backend named by PARLEY_AUDIO_BACKEND (BackendAuto when unset or
// unknown).
func BackendFromEnv() Backend {
	b, _ := ParseBackend(os.Getenv(BackendEnv))
	return b
}

// ParseBackend returns the backend a name means ("null", "pulse", "pulseaudio", "alsa", or ""
// and "auto" for the default order); unknown names give BackendAuto and false.
func ParseBackend(name string) (Backend, bool) {
	switch n := strings.ToLower(strings.TrimSpace(name)); n {
	case "", "auto", "default":
		return BackendAuto, true
	case "pulseaudio":
		return BackendPulse, true
	case string(BackendNull), string(BackendPulse), string(BackendALSA):
		return Backend(n), true
	}
	return BackendAuto, false
}

func (b Backend) malgo() []malgo.Backend {
	switch b {
	case BackendNull:
		return []malgo.Backend{nullBackend}
	case BackendPulse:
		return []malgo.Backend{malgo.BackendPulseaudio}
	case BackendALSA:
		return []malgo.Backend{malgo.BackendAlsa}
	}
	return nil
}

func (b Backend) String() string {
	if b == BackendAuto {
		return "default"
	}
	return string(b)
}

// openContext initialises a miniaudio context on the backend.
func (b Backend) openContext() (*malgo.AllocatedContext, error) {
	silenceALSA()
	mctx, err := malgo.InitContext(b.malgo(), malgo.ContextConfig{}, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: the %s audio system did not answer (%v)", ErrNoDevice, b, err)
	}
	return mctx, nil
}

func closeContext(mctx *malgo.AllocatedContext) {
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

func listDevices(mctx *malgo.AllocatedContext, kind malgo.DeviceType) ([]Device, error) {
	infos, err := mctx.Devices(kind)
	if err != nil {
		return nil, fmt.Errorf("%w: listing devices: %v", ErrNoDevice, err)
	}
	out := make([]Device, 0, len(infos))
	for _, in := range infos {
		out = append(out, Device{ID: deviceID(in.ID), Name: in.Name(), Default: in.IsDefault != 0, raw: in.ID})
	}
	return out, nil
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
