//go:build linux && cgo

package playback

/*
#cgo LDFLAGS: -lasound
#include <alsa/asoundlib.h>
#include <stdlib.h>

// parleyOpenPCM opens the ALSA device name for blocking playback of interleaved S16_LE frames at
// exactly rate and channels, with a buffer of two periods of about *period frames (the period the
// device chose is written back), started once the buffer is full. On failure it says which call
// failed in *where, and closes what it opened.
static int parleyOpenPCM(snd_pcm_t **pcm, const char *name, unsigned rate, unsigned channels,
		snd_pcm_uframes_t *period, const char **where) {
	int err = snd_pcm_open(pcm, name, SND_PCM_STREAM_PLAYBACK, 0);
	if (err < 0) {
		*where = "snd_pcm_open";
		return err;
	}
	snd_pcm_hw_params_t *hw;
	snd_pcm_sw_params_t *sw;
	snd_pcm_hw_params_alloca(&hw);
	snd_pcm_sw_params_alloca(&sw);
	unsigned got = rate;
	snd_pcm_uframes_t buffer = *period * 2;
#define STEP(call) do { if ((err = (call)) < 0) { *where = #call; goto fail; } } while (0)
	STEP(snd_pcm_hw_params_any(*pcm, hw));
	STEP(snd_pcm_hw_params_set_access(*pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED));
	STEP(snd_pcm_hw_params_set_format(*pcm, hw, SND_PCM_FORMAT_S16_LE));
	STEP(snd_pcm_hw_params_set_channels(*pcm, hw, channels));
	STEP(snd_pcm_hw_params_set_rate_resample(*pcm, hw, 1));
	STEP(snd_pcm_hw_params_set_rate_near(*pcm, hw, &got, NULL));
	if (got != rate) {
		*where = "snd_pcm_hw_params_set_rate_near (another rate)";
		err = -EINVAL;
		goto fail;
	}
	STEP(snd_pcm_hw_params_set_buffer_size_near(*pcm, hw, &buffer));
	STEP(snd_pcm_hw_params_set_period_size_near(*pcm, hw, period, NULL));
	STEP(snd_pcm_hw_params(*pcm, hw));
	STEP(snd_pcm_hw_params_get_period_size(hw, period, NULL));
	STEP(snd_pcm_hw_params_get_buffer_size(hw, &buffer));
	STEP(snd_pcm_sw_params_current(*pcm, sw));
	STEP(snd_pcm_sw_params_set_start_threshold(*pcm, sw, buffer));
	STEP(snd_pcm_sw_params_set_avail_min(*pcm, sw, *period));
	STEP(snd_pcm_sw_params(*pcm, sw));
#undef STEP
	return 0;
fail:
	snd_pcm_close(*pcm);
	*pcm = NULL;
	return err;
}

// parleyWrite writes frames to pcm, recovering from an underrun (which, under PulseAudio's ALSA
// plugin, makes a new stream), and returns 0 or the error that could not be recovered from.
static int parleyWrite(snd_pcm_t *pcm, const void *buf, snd_pcm_uframes_t frames, unsigned frameBytes) {
	const char *p = buf;
	while (frames > 0) {
		snd_pcm_sframes_t n = snd_pcm_writei(pcm, p, frames);
		if (n < 0) {
			int err = snd_pcm_recover(pcm, (int)n, 1);
			if (err < 0) {
				return err;
			}
			continue;
		}
		p += n * frameBytes;
		frames -= n;
	}
	return 0;
}

// parleyHintName returns the name of the i-th hint, or NULL at the end; *output is 0 for a
// capture-only device.
// parleyDelay is how many frames the device will play before a frame written now is heard, or
// -1 when it cannot say.
static long parleyDelay(snd_pcm_t *pcm) {
	snd_pcm_sframes_t d;
	if (snd_pcm_delay(pcm, &d) < 0) return -1;
	return (long)d;
}

static char *parleyHintName(void **hints, int i, int *output) {
	if (hints[i] == NULL) {
		return NULL;
	}
	char *io = snd_device_name_get_hint(hints[i], "IOID");
	*output = io == NULL || strcmp(io, "Input") != 0;
	free(io);
	char *name = snd_device_name_get_hint(hints[i], "NAME");
	return name == NULL ? strdup("") : name;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// outputTaps: this output gives the tap what it plays, silence included, with when it is heard.
const outputTaps = true

// alsaPeriod is the device period asked for, in frames: 1024 (21 ms at 48 kHz), two of them in
// the device's buffer (43 ms), as oto had it; Stop's latency and DrainTime count on it.
const alsaPeriod = 1024

// alsaOutput is the process's output on an ALSA device: a goroutine of its own writes the mixed
// voices to the device, one period at a time, silence when none plays, from open until close.
// The device is never shared with oto: oto's context cannot be closed (Suspend leaves the PCM
// open and its stream at the sound server), so this output replaced it on Linux.
type alsaOutput struct {
	mixer
	pcm    *C.snd_pcm_t
	period int // frames
	stop   atomic.Bool
	done   chan struct{} // closed when the writer has closed the device

	mu      sync.Mutex
	failure error
}

var quietOnce sync.Once

// openSystemOutput opens the default ALSA device, or failing it the first device ALSA lists that
// can play OutputFormat, and starts writing to it.
func openSystemOutput() (output, error) {
	quietOnce.Do(silenceALSA)
	var failed []string
	for _, name := range alsaCandidates() {
		o, err := openALSA(name)
		if err == nil {
			return o, nil
		}
		failed = append(failed, fmt.Sprintf("%q: %v", name, err))
	}
	return nil, noDevice(fmt.Errorf("ALSA error at snd_pcm_open: %s", strings.Join(failed, ", ")))
}

// alsaCandidates lists the devices to try: ALSA's default, then every device ALSA knows that can
// play, as oto tried them.
func alsaCandidates() []string {
	names := []string{"default", "plug:default"}
	pcm := C.CString("pcm")
	defer C.free(unsafe.Pointer(pcm))
	var hints *unsafe.Pointer
	if C.snd_device_name_hint(-1, pcm, &hints) != 0 {
		return names
	}
	defer C.snd_device_name_free_hint(hints)
	for i := 0; ; i++ {
		var isOutput C.int
		cname := C.parleyHintName(hints, C.int(i), &isOutput)
		if cname == nil {
			break
		}
		name := C.GoString(cname)
		C.free(unsafe.Pointer(cname))
		if isOutput != 0 && name != "" && name != "null" && name != "default" {
			names = append(names, name)
		}
	}
	return names
}

func openALSA(name string) (*alsaOutput, error) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	o := &alsaOutput{done: make(chan struct{})}
	period := C.snd_pcm_uframes_t(alsaPeriod)
	var where *C.char
	if err := C.parleyOpenPCM(&o.pcm, cname, C.unsigned(OutputFormat.SampleRate), C.unsigned(OutputFormat.Channels), &period, &where); err < 0 {
		msg := C.GoString(C.snd_strerror(err))
		if w := C.GoString(where); w != "snd_pcm_open" {
			msg = w + ": " + msg
		}
		return nil, errors.New(msg)
	}
	o.period = int(period)
	go o.write()
	return o, nil
}

// write feeds the device until close, then closes it.
func (o *alsaOutput) write() {
	defer close(o.done)
	defer C.snd_pcm_close(o.pcm)
	frame := 2 * OutputFormat.Channels
	buf := make([]byte, o.period*frame)
	acc := make([]int32, o.period*OutputFormat.Channels)
	for !o.stop.Load() {
		o.mix(buf, acc)
		if tap := theTap.Load(); tap != nil {
			// When the period will be heard: after what the device holds.
			var at time.Time
			if d := C.parleyDelay(o.pcm); d >= 0 {
				at = time.Now().Add(OutputFormat.Duration(int64(d) * int64(frame)))
			}
			(*tap)(buf, OutputFormat, at)
		}
		if err := C.parleyWrite(o.pcm, unsafe.Pointer(&buf[0]), C.snd_pcm_uframes_t(o.period), C.unsigned(frame)); err < 0 {
			o.mu.Lock()
			o.failure = fmt.Errorf("ALSA error at snd_pcm_writei: %s", C.GoString(C.snd_strerror(err)))
			o.mu.Unlock()
			return
		}
	}
}

func (o *alsaOutput) err() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.failure
}

// close asks the writer to stop and close the device, which it does within a period, and returns
// without waiting for it: a device that hangs must not hang the next clip, which opens another.
func (o *alsaOutput) close() { o.stop.Store(true) }
