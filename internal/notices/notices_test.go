package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The committed THIRD_PARTY_NOTICES is what the command writes now, so a module added to parley
// (or a new version of one) without its licence fails make test.
func TestNotices_FileIsUpToDate(t *testing.T) {
	want, err := notices()
	if err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile(filepath.Join(moduleRoot(), "THIRD_PARTY_NOTICES"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, want) {
		t.Fatal("THIRD_PARTY_NOTICES is not the notices of the modules linked into parley now: run `go run ./internal/notices > THIRD_PARTY_NOTICES` and commit it")
	}
}

// Every module linked on either platform has a section with at least one licence text.
func TestNotices_EveryLinkedModuleHasALicence(t *testing.T) {
	mods, err := linkedModules()
	if err != nil {
		t.Fatal(err)
	}
	if len(mods) < 20 {
		t.Fatalf("go list found only %d linked modules; parley links Fyne, malgo, oto and more", len(mods))
	}
	text, err := notices()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mods {
		head := "\n" + m.Path + " " + m.Version
		i := bytes.Index(text, []byte(head))
		if i < 0 {
			t.Errorf("no section for %s %s", m.Path, m.Version)
			continue
		}
		rest := text[i+len(head):]
		rest = rest[bytes.IndexByte(rest, '\n'):] // past the title line
		if !bytes.HasPrefix(rest, []byte("\n"+strings.Repeat("-", 100)+"\n-- ")) {
			t.Errorf("the section for %s holds no licence", m.Path)
		}
	}
	for _, must := range []string{"fyne.io/fyne/v2 v2.8.1 (with Parley's patch", "github.com/gen2brain/malgo", "github.com/ebitengine/oto/v3", "github.com/danieljoos/wincred", "libopus 1.3.1"} {
		if !bytes.Contains(text, []byte(must)) {
			t.Errorf("the notices do not name %q", must)
		}
	}
}

// A GPL licence text is refused, and a mere mention of the GPL (as in the MPL) or the LGPL is not.
func TestNotices_GPLIsRefused(t *testing.T) {
	for text, want := range map[string]bool{
		"                    GNU GENERAL PUBLIC LICENSE\n                       Version 3, 29 June 2007":  true,
		"This program is free software: it is released under the terms of the GNU General Public License": true,
		"SPDX-License-Identifier: GPL-3.0-or-later":                                                       true,
		`means either the GNU General Public License, Version 2.0, the GNU Lesser`:                        false,
		"SPDX-License-Identifier: LGPL-2.1-or-later":                                                      false,
		"GNU LESSER GENERAL PUBLIC LICENSE Version 2.1":                                                   false,
	} {
		if got := gpl.MatchString(text); got != want {
			t.Errorf("gpl.Match(%q) = %v, want %v", text, got, want)
		}
	}
}
