//go:build unix && !darwin

package notify

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"parley/internal/testenv"
)

func TestNotifier_ShowAndClick(t *testing.T) {
	bus := testenv.StartSessionBus(t)
	server := testenv.StartNotifications(t, bus.Address)
	n, err := New("Parley", "io.github.parley")
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	clicked, restarted := make(chan struct{}), make(chan struct{})
	id, err := n.Show("You asked: what <b>is</b> 2 & 2?", "Four. "+strings.Repeat("More words here. ", 40), func() {
		close(clicked)
		<-restarted // the old service's "closed" signal waits behind this click
	})
	if err != nil {
		t.Fatal(err)
	}
	got := server.Wait(t, 1, 5*time.Second)
	if got.ID != id || got.App != "Parley" {
		t.Errorf("shown %+v", got)
	}
	if got.Summary != "You asked: what <b>is</b> 2 & 2?" {
		t.Errorf("summary %q (a summary is plain text)", got.Summary)
	}
	if !strings.HasPrefix(got.Body, "Four. More words") || !strings.HasSuffix(got.Body, "…") || len([]rune(got.Body)) > maxBody {
		t.Errorf("body %q", got.Body)
	}
	if len(got.Actions) != 2 || got.Actions[0] != "default" {
		t.Errorf("actions %q", got.Actions)
	}
	if _, err := n.Show("Markup", "a <i>b</i> & c", nil); err != nil {
		t.Fatal(err)
	}
	if b := server.Wait(t, 2, 5*time.Second).Body; b != "a &lt;i&gt;b&lt;/i&gt; &amp; c" {
		t.Errorf("body with markup characters %q: a server with body-markup needs them escaped", b)
	}
	// A click forged by another program on the bus, sent to every connection, opens nothing.
	testenv.ForgeSignal(t, path, iface+".ActionInvoked", id, "default")
	select {
	case <-clicked:
		t.Fatal("a click sent by another program than the notification service opened the conversation")
	case <-time.After(300 * time.Millisecond):
	}

	server.Click(t, id)
	select {
	case <-clicked:
	case <-time.After(5 * time.Second):
		t.Fatal("the click did not reach the notifier")
	}

	// The daemon restarts (under a new connection): its clicks count. It numbers its
	// notifications from 1 again, and the old daemon's "closed" signal for its own
	// notification 1, read after the new one is shown, leaves the new one's click alone.
	server.Stop()
	server = testenv.StartNotifications(t, bus.Address)
	again := make(chan struct{})
	second, err := n.Show("Again", "after a restart", func() { close(again) })
	if err != nil {
		t.Fatal(err)
	}
	if second != id {
		t.Fatalf("the restarted service numbered the notification %d, want %d as the first was", second, id)
	}
	close(restarted)
	server.Click(t, id)
	select {
	case <-again:
	case <-time.After(5 * time.Second):
		t.Fatal("a click from the restarted notification service did not reach the notifier")
	}
}

// A flood of forged clicks costs neither memory nor bus calls: each is dropped as it arrives
// (the service's connection is known from the bus driver), on the connection's own reader,
// and the real click after them still works.
func TestNotifier_AFloodOfForgedClicksIsDropped(t *testing.T) {
	bus := testenv.StartSessionBus(t)
	server := testenv.StartNotifications(t, bus.Address)
	n, err := New("Parley", "")
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	clicked := make(chan struct{}, 1)
	id, err := n.Show("Title", "Body", func() { clicked <- struct{}{} })
	if err != nil {
		t.Fatal(err)
	}
	server.Wait(t, 1, 5*time.Second)
	before := runtime.NumGoroutine()
	const forged = 5000
	testenv.ForgeSignals(t, forged, path, iface+".ActionInvoked", id, "default") // returns once all arrived
	if after := runtime.NumGoroutine(); after > before+10 {
		t.Errorf("%d goroutines after %d forged clicks, %d before", after, forged, before)
	}
	select {
	case <-clicked:
		t.Fatal("a forged click opened the conversation")
	default:
	}
	server.Click(t, id)
	select {
	case <-clicked:
	case <-time.After(10 * time.Second):
		t.Fatal("after the flood, the service's click did not reach the notifier")
	}
}

func TestNew_NoServer(t *testing.T) {
	testenv.StartSessionBus(t)
	if _, err := New("Parley", ""); err != ErrUnavailable {
		t.Errorf("New = %v, want ErrUnavailable", err)
	}
}
