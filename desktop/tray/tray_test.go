//go:build unix && !darwin

package tray

import (
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"parley/internal/testenv"
)

func TestHostPresent(t *testing.T) {
	bus := testenv.StartSessionBus(t)
	mu.Lock()
	conn = nil
	mu.Unlock()
	if HostPresent() {
		t.Fatal("a tray host on a bus where none runs")
	}
	appeared := make(chan struct{}, 1)
	stop := WatchHost(func() { appeared <- struct{}{} })
	defer stop()
	c, err := dbus.Connect(bus.Address)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.RequestName(watcher, dbus.NameFlagDoNotQueue); err != nil {
		t.Fatal(err)
	}
	if !HostPresent() {
		t.Error("no tray host found while one owns " + watcher)
	}
	select {
	case <-appeared:
	case <-time.After(5 * time.Second):
		t.Error("WatchHost did not see the host start")
	}
	t.Cleanup(func() {
		mu.Lock()
		if conn != nil {
			conn.Close()
			conn = nil
		}
		mu.Unlock()
	})
}
