//go:build linux || freebsd || openbsd || netbsd || dragonfly

package keystore_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"parley/keystore"
)

// With no session bus at all, the keyring is unavailable, and godbus is not left to autolaunch
// one: its dbus-launch would start a bus daemon that outlives Parley.
func TestNew_NoSessionBus(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Cleanup(keystore.SetUserRuntimeDir(t.TempDir()))
	// A dbus-launch that leaves a mark if anything runs it.
	bin, mark := t.TempDir(), filepath.Join(t.TempDir(), "dbus-launch-ran")
	script := "#!/bin/sh\ntouch '" + mark + "'\nexit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "dbus-launch"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	s := keystore.New()
	_, getErr := s.Get(base)
	for name, err := range map[string]error{"Get": getErr, "Set": s.Set(base, "sk-x"), "Delete": s.Delete(base)} {
		if !errors.Is(err, keystore.ErrUnavailable) || errors.Is(err, keystore.ErrNotFound) {
			t.Errorf("%s with no session bus: err = %v, want ErrUnavailable, not ErrNotFound", name, err)
		} else if !strings.Contains(err.Error(), "no D-Bus session bus") {
			t.Errorf("%s: message %q does not say there is no session bus", name, err)
		}
	}
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("dbus-launch was run")
	}
}
