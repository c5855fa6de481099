package e2e

import (
	"bytes"
	"debug/buildinfo"
	"os"
	"testing"
)

// checkLicenceFiles checks what an archive ships beside the binary: Parley's BSD licence, and
// notices that name every module linked into that binary (read from the binary's own build
// information, so a module the build links but the notices miss is caught here), and libopus.
func checkLicenceFiles(t *testing.T, licence, notices, binary string) {
	t.Helper()
	lic, err := os.ReadFile(licence)
	if err != nil {
		t.Fatalf("the archive has no licence: %v", err)
	}
	if !bytes.HasPrefix(lic, []byte("BSD 3-Clause License")) {
		t.Errorf("the archive's licence is not Parley's BSD-3-Clause licence:\n%.200s", lic)
	}
	text, err := os.ReadFile(notices)
	if err != nil {
		t.Fatalf("the archive has no third-party notices: %v", err)
	}
	info, err := buildinfo.ReadFile(binary)
	if err != nil {
		t.Fatalf("reading the build information of %s: %v", binary, err)
	}
	if len(info.Deps) < 20 {
		t.Fatalf("%s links only %d modules, by its build information", binary, len(info.Deps))
	}
	for _, d := range info.Deps {
		if !bytes.Contains(text, []byte("\n"+d.Path+" "+d.Version+"\n")) && !bytes.Contains(text, []byte("\n"+d.Path+" "+d.Version+" (")) {
			t.Errorf("the third-party notices have no section for %s %s, which %s links", d.Path, d.Version, binary)
		}
	}
	for _, must := range []string{"The Go standard library", "libopus 1.3.1", "SpeexDSP 1.2.1"} {
		if !bytes.Contains(text, []byte(must)) {
			t.Errorf("the third-party notices do not cover %s", must)
		}
	}
}
