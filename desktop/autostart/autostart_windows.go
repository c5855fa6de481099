package autostart

import (
	"errors"
	"fmt"
	"path/filepath"

	"golang.org/x/sys/windows/registry"
)

// runKey is the current user's Run key.
const runKey = `Software\Microsoft\Windows\CurrentVersion\Run`

// Path is where the entry lives: the Run key's value.
func (e Entry) Path() (string, error) { return `HKEY_CURRENT_USER\` + runKey + `\` + Name, nil }

// Enabled reports whether the Run key holds the entry.
func (e Entry) Enabled() (bool, error) {
	k, err := registry.OpenKey(registry.CURRENT_USER, runKey, registry.QUERY_VALUE)
	if errors.Is(err, registry.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer k.Close()
	_, _, err = k.GetStringValue(Name)
	if errors.Is(err, registry.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// Enable writes the entry, replacing one written before (the program may have moved).
func (e Entry) Enable() error {
	if !filepath.IsAbs(e.Exe) {
		return fmt.Errorf("autostart: %q is not an absolute path", e.Exe)
	}
	k, _, err := registry.CreateKey(registry.CURRENT_USER, runKey, registry.SET_VALUE)
	if err != nil {
		return err
	}
	defer k.Close()
	return k.SetStringValue(Name, e.command())
}

// command is the Run key's value: the program, quoted, and the flag.
func (e Entry) command() string { return `"` + e.Exe + `" ` + Flag }

// Disable removes the entry; removing one that is not there is not an error.
func (e Entry) Disable() error {
	k, err := registry.OpenKey(registry.CURRENT_USER, runKey, registry.SET_VALUE)
	if errors.Is(err, registry.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer k.Close()
	if err := k.DeleteValue(Name); err != nil && !errors.Is(err, registry.ErrNotExist) {
		return err
	}
	return nil
}
