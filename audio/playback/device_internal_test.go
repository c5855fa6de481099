package playback

import (
	"bytes"
	"testing"
	"time"
)

// TestDevice_ClosesWhenIdle checks that the output is opened for a queue of clips, held while
// they play and between them, closed IdleClose after the queue drained, and opened again for
// the next clip, which plays whole.
func TestDevice_ClosesWhenIdle(t *testing.T) {
	out := &fakeOutput{gate: make(chan struct{})}
	dev, clock := newTestDevice(out, nil)
	p, rec := newTestPlayerOn(t, dev)
	tone := fixture(t, "tone440-24k-mono.mp3")
	for range 2 {
		if _, err := p.Enqueue(bytes.NewReader(tone)); err != nil {
			t.Fatal(err)
		}
	}
	out.gate <- struct{}{}
	checkEvents(t, []Event{rec.next(t)}, []step{{ClipStarted, 1, nil}})

	// While a clip plays, with another queued, no idle close is pending, and a timer of the
	// device's firing (were one left over) does not close it.
	if n := len(clock.pending()); n != 0 {
		t.Errorf("%d idle closes pending while a clip plays, want none", n)
	}
	clock.fire()
	if n := out.closeCount(); n != 0 {
		t.Fatalf("the output was closed %d times while a clip played", n)
	}

	close(out.gate)
	rec.until(t, QueueDrained)
	opens, armed := clock.counts()
	if opens != 1 || armed != 1 {
		t.Errorf("for two clips queued together the output was opened %d times and an idle close armed %d times, want 1 and 1 (never closed between the clips)", opens, armed)
	}
	pending := clock.pending()
	if len(pending) != 1 || pending[0].d != IdleClose {
		t.Fatalf("after the queue drained: idle closes pending %v, want one after %v", pending, IdleClose)
	}
	if n := out.closeCount(); n != 0 {
		t.Fatalf("the output was closed %d times before its idle time passed", n)
	}
	clock.fire()
	if n := out.closeCount(); n != 1 {
		t.Fatalf("the output was closed %d times after its idle time, want 1", n)
	}

	// The next clip opens it again and plays whole.
	out.mu.Lock()
	before := out.played.Len()
	out.mu.Unlock()
	if _, err := p.Enqueue(bytes.NewReader(tone)); err != nil {
		t.Fatal(err)
	}
	checkEvents(t, rec.until(t, QueueDrained), []step{{ClipStarted, 3, nil}, {ClipEnded, 3, nil}, {QueueDrained, 0, nil}})
	if opens, _ := clock.counts(); opens != 2 {
		t.Errorf("the output was opened %d times in all, want 2", opens)
	}
	out.mu.Lock()
	got := out.played.Bytes()[before:]
	bad := out.closedBad
	out.mu.Unlock()
	if !bytes.Equal(got, decoded(t, tone)) {
		t.Errorf("the clip after the reopening played %d bytes, want its %d", len(got), len(decoded(t, tone)))
	}
	if bad != 0 {
		t.Errorf("the output was closed %d times with a voice still open", bad)
	}

	// A clip that comes while the idle close is pending cancels it, even if its timer fires at
	// that moment.
	stale := clock.pending()
	if _, err := p.Enqueue(bytes.NewReader(tone)); err != nil {
		t.Fatal(err)
	}
	rec.until(t, QueueDrained)
	for _, tm := range stale {
		tm.f()
	}
	if n := out.closeCount(); n != 1 {
		t.Errorf("an idle close armed before a clip played closed the output after it (%d closes, want 1)", n)
	}
	clock.fire()
	if n := out.closeCount(); n != 2 {
		t.Errorf("%d closes after the last queue's idle time, want 2", n)
	}
}

// TestDevice_ClosesWhenIdleRealClock runs the idle close on real timers with a short idle time:
// a clip that plays far longer than the idle time keeps the output open; after it the output
// closes by itself.
func TestDevice_ClosesWhenIdleRealClock(t *testing.T) {
	out := &fakeOutput{gate: make(chan struct{}), closed: make(chan struct{}, 4)}
	dev, _ := newTestDevice(out, nil)
	dev.idle, dev.after = time.Millisecond, afterFunc
	p, rec := newTestPlayerOn(t, dev)
	if _, err := p.Enqueue(bytes.NewReader(fixture(t, "tone440-24k-mono.mp3"))); err != nil {
		t.Fatal(err)
	}
	// Play the clip one chunk at a time, each after the output had the idle time to close.
	for range 20 {
		select {
		case out.gate <- struct{}{}:
		case <-t.Context().Done():
			t.Fatal("the test ended while the clip played")
		}
		wait := time.NewTimer(10 * dev.idle)
		select {
		case <-out.closed:
			t.Fatal("the output closed while a clip played")
		case <-wait.C:
		}
	}
	close(out.gate)
	rec.until(t, QueueDrained)
	select {
	case <-out.closed:
	case <-t.Context().Done():
		t.Fatal("the output did not close after the queue drained")
	}
}

// TestDevice_CheckThenIdle checks that the check OpenOutput makes leaves the device to close
// idle, and that a failed open is tried again the next time.
func TestDevice_CheckThenIdle(t *testing.T) {
	out := &fakeOutput{}
	dev, clock := newTestDevice(out, nil)
	if _, err := dev.acquire(); err != nil {
		t.Fatal(err)
	}
	dev.release()
	clock.fire()
	if n := out.closeCount(); n != 1 {
		t.Errorf("the output was closed %d times after a check and its idle time, want 1", n)
	}

	fails := true
	dev.open = func() (output, error) {
		if fails {
			return nil, ErrNoDevice
		}
		return out, nil
	}
	if _, err := dev.acquire(); err != ErrNoDevice {
		t.Fatalf("acquire with no device: %v, want ErrNoDevice", err)
	}
	fails = false
	if _, err := dev.acquire(); err != nil {
		t.Fatalf("acquire once the device is back: %v", err)
	}
	dev.release()
}
