package testenv_test

import (
	"os"
	"testing"

	dbus "github.com/godbus/dbus/v5"

	"parley/internal/testenv"
)

func TestStartKeyring_ServesUnlockedSecretService(t *testing.T) {
	k := testenv.StartKeyring(t)
	if got := os.Getenv("DBUS_SESSION_BUS_ADDRESS"); got != k.Bus.Address {
		t.Fatalf("DBUS_SESSION_BUS_ADDRESS = %q, want the private bus %q", got, k.Bus.Address)
	}
	conn, err := dbus.SessionBus()
	if err != nil {
		t.Fatalf("connecting to the session bus: %v", err)
	}
	v, err := conn.Object("org.freedesktop.secrets", "/org/freedesktop/secrets/aliases/default").
		GetProperty("org.freedesktop.Secret.Collection.Locked")
	if err != nil {
		t.Fatalf("reading the default collection's Locked property: %v", err)
	}
	if locked, ok := v.Value().(bool); !ok || locked {
		t.Fatalf("default collection Locked = %v, want false", v.Value())
	}
}

func TestStartSessionBus_HasNoSecretService(t *testing.T) {
	bus := testenv.StartSessionBus(t)
	conn, err := dbus.Connect(bus.Address)
	if err != nil {
		t.Fatalf("connecting to %s: %v", bus.Address, err)
	}
	defer conn.Close()
	var has bool
	if err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, "org.freedesktop.secrets").Store(&has); err != nil {
		t.Fatalf("NameHasOwner: %v", err)
	}
	if has {
		t.Fatal("org.freedesktop.secrets has an owner on a bus that should have no services")
	}
	// A call to the Secret Service must fail at once rather than activate one.
	err = conn.Object("org.freedesktop.secrets", "/org/freedesktop/secrets").
		Call("org.freedesktop.DBus.Peer.Ping", 0).Err
	if err == nil {
		t.Fatal("a Secret Service answered on a bus that should have none")
	}
}

func TestStartKeyringMain_StopsDaemonsAndRestoresEnv(t *testing.T) {
	testenv.RequireCommands(t, "dbus-daemon", "gnome-keyring-daemon")
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/parley-test-bus")
	k, cleanup, err := testenv.StartKeyringMain()
	if err != nil {
		cleanup()
		t.Fatal(err)
	}
	if got := os.Getenv("DBUS_SESSION_BUS_ADDRESS"); got != k.Bus.Address {
		t.Fatalf("DBUS_SESSION_BUS_ADDRESS = %q, want %q", got, k.Bus.Address)
	}
	cleanup()
	if got := os.Getenv("DBUS_SESSION_BUS_ADDRESS"); got != "unix:path=/nonexistent/parley-test-bus" {
		t.Fatalf("after cleanup DBUS_SESSION_BUS_ADDRESS = %q, want the old value back", got)
	}
	if conn, err := dbus.Connect(k.Bus.Address); err == nil {
		conn.Close()
		t.Fatal("the private bus still accepts connections after cleanup")
	}
}
