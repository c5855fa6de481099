// Command notices writes THIRD_PARTY_NOTICES: the licence of every module linked into parley, on
// Linux and on Windows, of the Go standard library, and of libopus, SpeexDSP and Sonic (linked
// into the Windows parley.exe), read from the module cache and third_party/licenses.
//
//	go run ./internal/notices > THIRD_PARTY_NOTICES   # write it again after go.mod changes
//	go run ./internal/notices -check THIRD_PARTY_NOTICES
//
// -check fails when the file is not what would be written now, so a module added to the binary
// without its notice fails make test. Either way the command fails when a module has no licence
// file, or when a licence it would include is the GPL: nothing GPL is linked into parley (espeak-ng
// and lame stay separate programs that the reference service runs).
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// platforms are the builds whose modules the notices cover: the Linux archive and the Windows zip.
var platforms = []string{"linux", "windows"}

// licenceName matches the names of licence files.
var licenceName = regexp.MustCompile(`(?i)^(licen[cs]e|copying|unlicense|notice)([-_.].*)?$`)

// gpl matches the GNU General Public License's own title, a statement that something is under it,
// or its SPDX name; the Lesser GPL's names and a mere mention (the MPL names the GPL as a
// "Secondary License") do not match.
var gpl = regexp.MustCompile(`GNU GENERAL PUBLIC LICENSE|(?i)(licensed|released|distributed|available) under the (terms of the )?GNU General Public|\bGPL-[23]\.0`)

// module is one module linked into parley.
type module struct {
	Path, Version, Dir string
	// replacedBy is the folder of Parley's patched copy (go.mod's replace), or "".
	replacedBy string
	// packages are the import paths of its packages that are linked, on any platform.
	packages map[string]bool
}

// pkg is what go list says of one linked package.
type pkg struct {
	ImportPath string
	Standard   bool
	Module     *struct {
		Path, Version, Dir string
		Main               bool
		Replace            *struct{ Path string }
	}
}

func main() {
	check := flag.String("check", "", "compare with this file instead of printing")
	flag.Parse()
	out, err := notices()
	if err != nil {
		fmt.Fprintln(os.Stderr, "notices:", err)
		os.Exit(1)
	}
	if *check == "" {
		os.Stdout.Write(out)
		return
	}
	have, err := os.ReadFile(*check)
	if err != nil {
		fmt.Fprintln(os.Stderr, "notices:", err)
		os.Exit(1)
	}
	if !bytes.Equal(have, out) {
		fmt.Fprintf(os.Stderr, "notices: %s is not the notices of the modules linked into parley now: run `go run ./internal/notices > %s` and commit it.\n", *check, *check)
		os.Exit(1)
	}
	fmt.Printf("%s lists the licence of every module linked into parley on %s.\n", *check, strings.Join(platforms, " and "))
}

// notices builds the file's text.
func notices() ([]byte, error) {
	mods, err := linkedModules()
	if err != nil {
		return nil, err
	}
	root, err := goEnv("GOROOT")
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(`Third-party notices for Parley

Parley (LICENSE, BSD-3-Clause) is built from the Go modules below, the Go standard library and,
in the Windows parley.exe, libopus, SpeexDSP and Sonic. Each one's licence follows, as its authors
ship it.

On Linux, parley also uses the system's own shared libraries, which are not part of the archive:
libopus (BSD-3-Clause), ALSA's libasound (LGPL-2.1), OpenGL and X11 (MIT-style).
When they are installed, parley opens at run time with dlopen SpeexDSP's libspeexdsp
(BSD-3-Clause) for its echo canceller, Sonic's libsonic (Apache-2.0) for the speech rate, and
libpocketsphinx (BSD-2-Clause) for the wake phrase and
the reference service's recogniser; the service also opens libflite (BSD-style) and libmp3lame
(LGPL-2), and runs espeak-ng (GPL-3), and the programs of the others where their libraries do not
open, as separate programs; none of them is linked into the Linux parley.
`)
	section := func(title string) {
		fmt.Fprintf(&b, "\n%s\n%s\n", strings.Repeat("=", 100), title)
	}
	text := func(name string, data []byte) error {
		if gpl.Match(data) {
			return fmt.Errorf("%s is under the GPL, which parley must not link", name)
		}
		fmt.Fprintf(&b, "%s\n-- %s\n\n%s", strings.Repeat("-", 100), name, bytes.TrimLeft(data, "\n"))
		if !bytes.HasSuffix(data, []byte("\n")) {
			b.WriteByte('\n')
		}
		return nil
	}

	section("The Go standard library")
	data, err := os.ReadFile(filepath.Join(root, "LICENSE"))
	if err != nil {
		return nil, err
	}
	if err := text("LICENSE", data); err != nil {
		return nil, err
	}
	for _, m := range mods {
		title := m.Path + " " + m.Version
		if m.replacedBy != "" {
			title += " (with Parley's patch, " + strings.TrimPrefix(filepath.ToSlash(m.replacedBy), "./") + ".patch)"
		}
		section(title)
		files, err := licenceFiles(m)
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("module %s has no licence file in %s: add its licence to third_party/licenses and to this command", m.Path, m.Dir)
		}
		for _, f := range files {
			data, err := os.ReadFile(filepath.Join(m.Dir, f))
			if err != nil {
				return nil, err
			}
			if err := text(m.Path+"/"+filepath.ToSlash(f), data); err != nil {
				return nil, err
			}
		}
	}
	for _, lib := range []struct{ title, file string }{
		{"libopus 1.3.1", "opus-1.3.1-COPYING"},
		{"SpeexDSP 1.2.1", "speexdsp-1.2.1-COPYING"},
		{"Sonic 0.2.0", "sonic-0.2.0-COPYING"},
	} {
		section(lib.title + " (linked statically into the Windows parley.exe)")
		data, err = os.ReadFile(filepath.Join(moduleRoot(), "third_party", "licenses", lib.file))
		if err != nil {
			return nil, err
		}
		if err := text("COPYING", data); err != nil {
			return nil, err
		}
	}
	return b.Bytes(), nil
}

// linkedModules lists the modules (other than parley) that go build links into parley on each
// platform, sorted by path.
func linkedModules() ([]*module, error) {
	byPath := map[string]*module{}
	for _, goos := range platforms {
		cmd := exec.Command("go", "list", "-deps", "-json=ImportPath,Standard,Module", ".")
		cmd.Dir = moduleRoot()
		cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH=amd64", "CGO_ENABLED=1")
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("go list for %s: %w", goos, err)
		}
		dec := json.NewDecoder(bytes.NewReader(out))
		for {
			var p pkg
			if err := dec.Decode(&p); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				return nil, err
			}
			if p.Standard || p.Module == nil || p.Module.Main {
				continue
			}
			m := byPath[p.Module.Path]
			if m == nil {
				m = &module{Path: p.Module.Path, Version: p.Module.Version, Dir: p.Module.Dir, packages: map[string]bool{}}
				if p.Module.Replace != nil {
					m.replacedBy = p.Module.Replace.Path
				}
				byPath[m.Path] = m
			}
			m.packages[p.ImportPath] = true
		}
	}
	mods := make([]*module, 0, len(byPath))
	for _, m := range byPath {
		mods = append(mods, m)
	}
	sort.Slice(mods, func(i, j int) bool { return mods[i].Path < mods[j].Path })
	return mods, nil
}

// licenceFiles lists a module's licence files that cover what parley links: those at its root,
// and those deeper whose nearest Go package (the folder itself or the closest one above it) is a
// linked package, so a licence of C sources or fonts beside a linked package is kept and one of a
// command or an example that is never linked is not.
func licenceFiles(m *module) ([]string, error) {
	var files []string
	err := filepath.WalkDir(m.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(m.Dir, path)
		if d.IsDir() {
			if d.Name() == "testdata" || (rel != "." && strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !licenceName.MatchString(d.Name()) {
			return nil
		}
		dir := filepath.Dir(rel)
		if dir == "." {
			files = append(files, rel)
			return nil
		}
		for p := dir; ; p = filepath.Dir(p) {
			if p == "." {
				files = append(files, rel)
				return nil
			}
			if hasGoFiles(filepath.Join(m.Dir, p)) {
				if m.packages[m.Path+"/"+filepath.ToSlash(p)] {
					files = append(files, rel)
				}
				return nil
			}
		}
	})
	sort.Strings(files)
	return files, err
}

// hasGoFiles tells whether a folder holds a Go package (a .go file that is not a test).
func hasGoFiles(dir string) bool {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".go") && !strings.HasSuffix(e.Name(), "_test.go") {
			return true
		}
	}
	return false
}

// moduleRoot is parley's module folder (the command runs from anywhere inside it).
func moduleRoot() string {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		return "."
	}
	return strings.TrimSpace(string(out))
}

func goEnv(name string) (string, error) {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		return "", fmt.Errorf("go env %s: %w", name, err)
	}
	return strings.TrimSpace(string(out)), nil
}
