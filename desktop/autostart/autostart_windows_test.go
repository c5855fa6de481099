package autostart

import (
	"testing"

	"golang.org/x/sys/windows/registry"
)

// Run under Wine by the package test (its registry is the prefix's), or on Windows.
func TestEntry_RunKeyWrittenAndRemoved(t *testing.T) {
	e := Entry{Exe: `C:\Program Files\Parley\parley.exe`}
	if err := e.Disable(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Disable() })
	if on, err := e.Enabled(); on || err != nil {
		t.Fatalf("Enabled before = %v, %v", on, err)
	}
	if err := e.Enable(); err != nil {
		t.Fatal(err)
	}
	k, err := registry.OpenKey(registry.CURRENT_USER, runKey, registry.QUERY_VALUE)
	if err != nil {
		t.Fatal(err)
	}
	v, _, err := k.GetStringValue(Name)
	k.Close()
	if want := `"C:\Program Files\Parley\parley.exe" --tray`; err != nil || v != want {
		t.Errorf("Run value = %q, %v; want %q", v, err, want)
	}
	if on, err := e.Enabled(); !on || err != nil {
		t.Fatalf("Enabled after = %v, %v", on, err)
	}
	if err := e.Disable(); err != nil {
		t.Fatal(err)
	}
	if on, _ := e.Enabled(); on {
		t.Error("still enabled after Disable")
	}
}
