package audio

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestDrain_DeviceFaults checks what a take reports when the device delivers nothing, stops
// by itself, or delivers only zeros, without a device: the ring is fed by hand.
func TestDrain_DeviceFaults(t *testing.T) {
	first, gap := firstDataWithin, dataGapLimit
	firstDataWithin, dataGapLimit = 100*time.Millisecond, 100*time.Millisecond
	t.Cleanup(func() { firstDataWithin, dataGapLimit = first, gap })

	run := func(feed func(q *ring, failed chan struct{}), opts ...TakeOptions) (StopReason, *Take, error) {
		o := TakeOptions{}
		if len(opts) > 0 {
			o = opts[0]
		}
		w, err := newTakeWriter(o)
		if err != nil {
			t.Fatal(err)
		}
		w.checkSilence = !o.ThroughSilence // as Record does
		q := newRing(ringSize)
		failed := make(chan struct{}, 1)
		feed(q, failed)
		frame := make([]int16, 0, frameSamples)
		r, cause := drain(context.Background(), w, q, nil, failed, &frame)
		take, _ := w.finish(r, cause)
		return r, take, cause
	}
	tone := make([]byte, 2*SampleRate/10) // 100 ms of a quiet square wave
	for i := 0; i < len(tone); i += 2 {
		tone[i] = byte(100 * (i / 40 % 2))
	}

	if r, _, err := run(func(*ring, chan struct{}) {}); r != StopDeviceFailed || !errors.Is(err, ErrDeviceFailed) {
		t.Errorf("no audio at all: %v, %v", r, err)
	}
	if r, take, err := run(func(q *ring, _ chan struct{}) { q.write(tone) }); r != StopDeviceFailed || !errors.Is(err, ErrDeviceFailed) || take.Duration != 100*time.Millisecond {
		t.Errorf("audio then nothing: %v, %v, a take of %v", r, err, take.Duration)
	}
	if r, _, err := run(func(q *ring, failed chan struct{}) { failed <- struct{}{} }); r != StopDeviceFailed || !errors.Is(err, ErrDeviceFailed) {
		t.Errorf("device stopped: %v, %v", r, err)
	}
	if r, take, err := run(func(q *ring, _ chan struct{}) {
		q.write(tone)
		q.write(make([]byte, 2*2*SampleRate+640))
	}); r != StopSilentDevice || !errors.Is(err, ErrSilentDevice) || (take.Duration-2100*time.Millisecond).Abs() > 25*time.Millisecond {
		t.Errorf("2 s of zeros: %v, %v, a take of %v", r, err, take.Duration)
	}
	// A microphone test listens through the zeros, and hears the sound after them.
	levels := make(chan Level, 100)
	if r, take, err := run(func(q *ring, _ chan struct{}) {
		q.write(make([]byte, 2*3*SampleRate))
		q.write(tone)
	}, TakeOptions{ThroughSilence: true, Levels: levels}); r != StopDeviceFailed || !errors.Is(err, ErrDeviceFailed) || (take.Duration-3100*time.Millisecond).Abs() > 25*time.Millisecond {
		t.Errorf("3 s of zeros, then sound, through silence: %v, %v, a take of %v", r, err, take.Duration)
	}
	var loudest float64 = -200
	for len(levels) > 0 {
		loudest = max(loudest, (<-levels).Peak)
	}
	if loudest <= -120 {
		t.Errorf("the sound after the zeros was not metered: loudest %v dBFS", loudest)
	}
}

func TestRing_OverwritesOldest(t *testing.T) {
	q := newRing(8)
	q.write([]byte{1, 2, 3, 4, 5, 6})
	q.write([]byte{7, 8, 9, 10})
	p := make([]byte, 16)
	if n := q.read(p, 2); n != 8 || string(p[:n]) != string([]byte{3, 4, 5, 6, 7, 8, 9, 10}) || q.lost() != 2 {
		t.Errorf("read %v, lost %d", p[:n], q.lost())
	}
	q.write([]byte{1, 2, 3})
	if n := q.read(p, 2); n != 2 {
		t.Errorf("aligned read of 3 bytes gave %d", n)
	}
	q.write(make([]byte, 20))
	if q.lost() != 2+13 {
		t.Errorf("lost %d after an oversized write", q.lost())
	}
}
