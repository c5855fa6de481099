# Parley: two commands for a fresh Debian/Ubuntu machine.
#   make run   - build Parley and open the desktop app (its first-run screen starts the built-in service)
#   make test  - install what the tests need, then run every check and test
# make package and make package-windows make the installable archives in dist/ (README: Install).
# Both install the apt packages they need (as root, or through sudo), skipping what is installed.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

# The Opus binding is built without libopusfile (we parse Ogg ourselves).
export GOFLAGS := -buildvcs=false -tags=nolibopusfile
export CGO_ENABLED := 1
export LANG := en_US.UTF-8

GO ?= $(shell command -v go 2>/dev/null || { [ -x /usr/local/go/bin/go ] && echo /usr/local/go/bin/go; } || echo go)
GO_MIN := 1.26
BIN := bin/parley

# What `parley --version`, the About dialog and the archives' names say. APP_VERSION is the release
# number (x.y.z) that fyne package and the platforms want: the newest vX.Y.Z tag, else FyneApp.toml's
# Version. VERSION is `git describe` of a vX.Y.Z tag (without the v), else APP_VERSION-dev.<commit>;
# "-dirty" marks a build from uncommitted changes. APP_BUILD, the build number that fyne package would
# otherwise bump in FyneApp.toml, is the number of commits.
APP_VERSION := $(shell t=$$(git describe --tags --abbrev=0 --match 'v[0-9]*.[0-9]*.[0-9]*' 2>/dev/null) && echo "$${t#v}" || \
	sed -n 's/^Version *= *"\([0-9.]*\)".*/\1/p' FyneApp.toml)
APP_BUILD := $(shell git rev-list --count HEAD 2>/dev/null || echo 1)
VERSION := $(shell v=$$(git describe --tags --match 'v[0-9]*.[0-9]*.[0-9]*' --dirty 2>/dev/null) && echo "$${v#v}" || \
	echo "$(APP_VERSION)-dev.$$(git describe --always --dirty 2>/dev/null || echo unknown)")
COMMIT := $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
BUILD_DATE := $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS := -X parley/internal/version.Version=$(VERSION) -X parley/internal/version.Commit=$(COMMIT) \
	-X parley/internal/version.Date=$(BUILD_DATE)

# Build: C toolchain, ALSA (oto, malgo), libopus, OpenGL/X11 (Fyne).
BUILD_PACKAGES := gcc pkg-config libasound2-dev libopus-dev libgl1-mesa-dev xorg-dev libwayland-dev libxkbcommon-dev xz-utils
# The reference service's speech engines (flite speaks most clearly; espeak-ng has more languages;
# the service loads libpocketsphinx itself to keep its model in memory; the app removes the echo of
# its replies from the microphone with SpeexDSP, and plays them faster or slower with libsonic, both
# loaded the same way).
SERVICE_PACKAGES := flite espeak-ng lame pocketsphinx pocketsphinx-en-us libpocketsphinx3 libsphinxbase3 libspeexdsp1 libsonic0
# Tests: real audio devices (PulseAudio null sink), speech corpus, keyring, display.
TEST_PACKAGES := pulseaudio pulseaudio-utils libasound2-plugins sox gnome-keyring dbus-x11 \
	pocketsphinx-testdata xvfb imagemagick xdotool locales mkvtoolnix opus-tools tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu tesseract-ocr-ukr openbox xclip fonts-wqy-microhei \
	x11-apps desktop-file-utils libglib2.0-bin
# Packaging: the Linux archive (xz), its .desktop check, the Windows cross-build and its test under Wine.
PACKAGE_PACKAGES := xz-utils desktop-file-utils x11-utils gcc-mingw-w64-x86-64 zip curl ca-certificates
PACKAGE_TEST_PACKAGES := wine64

.PHONY: help run build test deps-build deps-run deps-test check-go fmt-check fyne-check vet staticcheck cyclo unit unit-c-locale integration bench clean

help:
	@echo "make run    build Parley and open the desktop app (the first-run screen offers the built-in service)"
	@echo "make test   install test dependencies, then gofmt, vet, staticcheck, gocyclo, race tests, the tests again in C.UTF-8, integration tests and package-test"
	@echo "make bench  run the benchmarks behind the README's performance table"
	@echo "make package          dist/parley-VERSION-linux-amd64.tar.xz (then: tar -xJf it; cd parley; make user-install)"
	@echo "make package-windows  dist/parley-VERSION-windows-amd64.zip (parley.exe, cross-compiled with mingw-w64)"
	@echo "make package-test     build both archives, install and run them (Linux under Xvfb, Windows under Wine)"

# apt-install the given packages that are not installed yet.
define apt_install
	missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  sudo=""; [ "$$(id -u)" = 0 ] || sudo="sudo"; \
	  echo "Installing:$$missing"; \
	  $$sudo apt-get update -qq; \
	  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi
endef

# Go: the one on PATH, else /usr/local/go, else Debian's golang-go; a Go 1.21+ that is older than
# go.mod's version fetches the right toolchain through the module proxy by itself (GOTOOLCHAIN=auto).
check-go:
	@if ! "$(GO)" version >/dev/null 2>&1; then \
	  echo "Go is not installed; installing Debian's golang-go (it fetches Go $(GO_MIN) through the module proxy)."; \
	  $(call apt_install,golang-go); \
	fi
	@"$(GO)" version >/dev/null 2>&1 || { echo "Go $(GO_MIN) is needed and could not be installed: get it from https://go.dev/dl and put it on PATH."; exit 1; }

deps-build: check-go
	@$(call apt_install,$(BUILD_PACKAGES))

deps-run: deps-build
	@$(call apt_install,$(SERVICE_PACKAGES))

deps-package: deps-build
	@$(call apt_install,$(PACKAGE_PACKAGES))

deps-package-test: deps-package deps-test
	@$(call apt_install,$(PACKAGE_TEST_PACKAGES))

deps-test: deps-run
	@$(call apt_install,$(TEST_PACKAGES))
	@if ! locale -a 2>/dev/null | grep -qi '^en_US\.utf-\?8$$'; then \
	  sudo=""; [ "$$(id -u)" = 0 ] || sudo="sudo"; \
	  $$sudo sed -i 's/^# *en_US.UTF-8 UTF-8/en_US.UTF-8 UTF-8/' /etc/locale.gen && $$sudo locale-gen >/dev/null || true; \
	fi

build: deps-build
	"$(GO)" build -ldflags "$(LDFLAGS)" -o $(BIN) .

# The app needs a display; without one, parley says so and shows how to use the service and CLI.
run: deps-run build
	./$(BIN)

fmt-check: check-go
	@bad=$$(git ls-files -co --exclude-standard '*.go' | xargs -r gofmt -l); \
	if [ -n "$$bad" ]; then echo "gofmt would change these files (run gofmt -w):"; echo "$$bad"; exit 1; fi

vet: deps-build
	"$(GO)" vet ./...

# staticcheck, pinned; staticcheck.conf names the checks it leaves out and why.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
staticcheck: deps-build
	@v=$$("$(CURDIR)/bin/staticcheck" -version 2>/dev/null || true); \
	if [[ "$$v" != *"$(lastword $(subst @, ,$(STATICCHECK)))"* ]]; then \
	  echo "Installing $(STATICCHECK) into bin/"; \
	  GOBIN="$(CURDIR)/bin" "$(GO)" install $(STATICCHECK); \
	fi
	"$(CURDIR)/bin/staticcheck" -tags nolibopusfile ./...

# gocyclo, pinned: no function, test code included, may have a cyclomatic complexity over
# CYCLO_OVER (README: Code checks). It reads the files fmt-check reads, less third_party/ (the
# upstream code we patch), which it never walks into.
GOCYCLO := github.com/fzipp/gocyclo/cmd/gocyclo@v0.6.0
CYCLO_OVER := 30
cyclo: check-go
	@v=$$("$(GO)" version -m "$(CURDIR)/bin/gocyclo" 2>/dev/null | awk '$$1 == "mod" { print $$3 }' || true); \
	if [[ "$$v" != "$(lastword $(subst @, ,$(GOCYCLO)))" ]]; then \
	  echo "Installing $(GOCYCLO) into bin/"; \
	  GOBIN="$(CURDIR)/bin" "$(GO)" install $(GOCYCLO); \
	fi
	@git ls-files -co --exclude-standard -- '*.go' ':!:third_party/' | xargs -r "$(CURDIR)/bin/gocyclo" -over $(CYCLO_OVER) || \
	  { echo "gocyclo: the functions above are over $(CYCLO_OVER): split them into named steps"; exit 1; }

# Unit and package tests, under the race detector. Tests that need PulseAudio, a keyring, espeak-ng
# or pocketsphinx start their own and fail (not skip) under CI=true when a tool is missing.
UNIT_PACKAGES = $$("$(GO)" list ./... | grep -v '^parley/e2e$$')
unit: deps-test
	"$(GO)" test -race -count=1 -timeout 25m $(UNIT_PACKAGES)

# The same tests again in C.UTF-8, the default locale on Debian and in containers (without the race
# detector: the locale is what changes). The end-to-end tests run in C.UTF-8 only.
unit-c-locale: deps-test
	LANG=C.UTF-8 "$(GO)" test -count=1 -timeout 25m $(UNIT_PACKAGES)

# End-to-end tests: the built binary against the real reference service, keyring and audio server.
# They take 15–16 minutes on CI's machine and about 20 beside two CPU burners: 35 leaves room
# for a busy machine, well inside CI's 90 minutes.
integration: deps-test
	LANG=C.UTF-8 "$(GO)" test -count=1 -timeout 35m -skip '^TestPackage' ./e2e/

test: deps-test fmt-check fyne-check vet staticcheck cyclo unit unit-c-locale integration package-test

# third_party/fyne must be the published Fyne plus third_party/fyne.patch, nothing else; and
# Fyne's own tests of the packages the patch changes pass with it; and each change prepared for
# Fyne (third_party/upstream) applies alone to it, builds, and passes go vet and its own tests.
# The same for third_party/systray (whose patch desktop/tray's tests and the tray's e2e tests
# exercise).
fyne-check: check-go
	GO="$(GO)" third_party/fyne.sh check
	GO="$(GO)" third_party/fyne.sh test
	GO="$(GO)" third_party/fyne.sh upstream
	GO="$(GO)" third_party/systray.sh check

bench: deps-test
	"$(GO)" test -run '^$$' -bench . -benchmem -count=1 -timeout 30m ./...

# ---- Packaging ---------------------------------------------------------------------------------------
# make package          dist/parley-VERSION-linux-amd64.tar.xz (fyne package -os linux --release)
# make package-windows  dist/parley-VERSION-windows-amd64.zip  (mingw-w64 cross-build, static libopus)
# make package-test     both archives installed and run: Linux under Xvfb, Windows under Wine
FYNE_CLI := fyne.io/tools/cmd/fyne@v1.7.4
FYNE := $(CURDIR)/bin/fyne
DIST := dist
LINUX_ARCHIVE := $(DIST)/parley-$(VERSION)-linux-amd64.tar.xz
WINDOWS_ARCHIVE := $(DIST)/parley-$(VERSION)-windows-amd64.zip
# fyne package builds in the folder it packages, writes files there while it builds (a metadata
# init .go file, on Windows a .syso) and bumps Build in its FyneApp.toml on every run. It packages
# a copy of the working tree's files instead, so the tree is never dirtied and a `go build` or
# `go vet` running beside it never sees those files.
STAGE := build/stage
# fyne package takes -ldflags from GOFLAGS, one -ldflags=VALUE word per flag (it splits on spaces).
PACKAGE_GOFLAGS := $(GOFLAGS) -ldflags=-X=parley/internal/version.Version=$(VERSION) \
	-ldflags=-X=parley/internal/version.Commit=$(COMMIT) -ldflags=-X=parley/internal/version.Date=$(BUILD_DATE)
# fyne package passes its own -tags (release, migrated_fynedo), which replace GOFLAGS' -tags.
PACKAGE_FLAGS := --release --tags nolibopusfile --app-version $(APP_VERSION) --app-build $(APP_BUILD)

# libopus and SpeexDSP for Windows: Debian's sources of the versions it ships, checked against their
# .dsc (whose own checksum is pinned here), built static for mingw-w64 once and kept under build/.
OPUS_VERSION := 1.3.1
OPUS_DSC := opus_$(OPUS_VERSION)-3.dsc
OPUS_DSC_SHA256 := c373ac82a1afb824819618c12e279ee47b6ac2fa18083b9ef2bb9e8e9e588419
OPUS_WIN := $(CURDIR)/build/opus-$(OPUS_VERSION)-mingw64
SPEEX_VERSION := 1.2.1
SPEEX_DSC := speexdsp_$(SPEEX_VERSION)-1.dsc
SPEEX_DSC_SHA256 := f3c258d56638cd30a7c1d158355df407a906f3069d70e10e9a6ad9b2c8806b06
SPEEX_WIN := $(CURDIR)/build/speexdsp-$(SPEEX_VERSION)-mingw64
SONIC_VERSION := 0.2.0
SONIC_DSC := sonic_$(SONIC_VERSION)-12.dsc
SONIC_DSC_SHA256 := 159af2d0de15eb027c627b9084ccfcdf1842ed93ad7e5914cead684f663598f3
SONIC_WIN := $(CURDIR)/build/sonic-$(SONIC_VERSION)-mingw64
# The Debian archive this machine's apt uses (the pool holds the sources of what it installs).
DEBIAN_MIRROR ?= $(shell { grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $$2}'; \
	grep -hs '^deb ' /etc/apt/sources.list | awk '{print $$2}'; } | grep -E '/debian/?$$' | sed 's,/$$,,' | head -n1)
MINGW := x86_64-w64-mingw32
# -D_FORTIFY_SOURCE (which fyne package sets) calls __memcpy_chk and friends: libssp, linked
# statically, or parley.exe would need libssp-0.dll beside it.
# Go's build cache keys a cgo package on CGO_LDFLAGS but not on what pkg-config printed, so the
# -L of this checkout's Opus is named here too: a build from another checkout (another OPUS_WIN)
# must not be reused, or the link looks for libopus.a in a directory that may no longer exist.
# SpeexDSP's headers and library are named the same way (audio/echo links it statically on Windows).
WINDOWS_ENV := GOOS=windows GOARCH=amd64 CC=$(MINGW)-gcc CXX=$(MINGW)-g++ \
	PKG_CONFIG_LIBDIR=$(OPUS_WIN)/lib/pkgconfig PKG_CONFIG_PATH= CGO_CFLAGS="-g -O2 -I$(SPEEX_WIN)/include -I$(SONIC_WIN)/include" \
	CGO_LDFLAGS="-l:libssp.a -L$(OPUS_WIN)/lib -L$(SPEEX_WIN)/lib -L$(SONIC_WIN)/lib"

.PHONY: package package-windows package-test deps-package deps-package-test fyne-cli stage opus-windows speexdsp-windows sonic-windows

fyne-cli: check-go
	@v=$$("$(FYNE)" version 2>/dev/null || true); \
	if [[ "$$v" != *"cli version: $(lastword $(subst @, ,$(FYNE_CLI)))"* ]]; then \
	  echo "Installing $(FYNE_CLI) into bin/"; \
	  GOBIN="$(CURDIR)/bin" "$(GO)" install $(FYNE_CLI); \
	fi

# A copy of the files `go build` would see: tracked and untracked, less what .gitignore ignores.
stage:
	@rm -rf $(STAGE) && mkdir -p $(STAGE)
	@git ls-files -z -co --exclude-standard | \
	  while IFS= read -r -d '' f; do [ -e "$$f" ] && printf '%s\0' "$$f"; done | \
	  tar --null -T - -cf - | tar -xf - -C $(STAGE)

# The archive gets Parley's licence and the third-party notices beside its Makefile.
package: deps-package fyne-cli stage
	cd $(STAGE) && GOFLAGS="$(PACKAGE_GOFLAGS)" "$(FYNE)" package -os linux $(PACKAGE_FLAGS)
	@rm -rf build/linux && mkdir -p build/linux $(DIST) && tar -xJf $(STAGE)/Parley.tar.xz -C build/linux
	@cp LICENSE THIRD_PARTY_NOTICES build/linux/parley/
	@tar -C build/linux --owner=0 --group=0 --numeric-owner -cJf $(LINUX_ARCHIVE) parley && rm -rf build/linux
	@echo "$(LINUX_ARCHIVE): $$(du -h $(LINUX_ARCHIVE) | cut -f1)"

# debian_source fetches Debian's source package $(1) (its .dsc $(2), whose SHA-256 is $(3)) and
# unpacks its upstream tarball, checked against the .dsc's SHA-256, into build/$(1)-src.
define debian_source
	@$(call apt_install,$(PACKAGE_PACKAGES))
	@[ -n "$(DEBIAN_MIRROR)" ] || { echo "No Debian archive in apt's sources: set DEBIAN_MIRROR"; exit 1; }
	mkdir -p build/download
	curl -fsSL -o build/download/$(2) "$(DEBIAN_MIRROR)/pool/main/$(shell printf %.1s $(1))/$(1)/$(2)"
	echo "$(3)  build/download/$(2)" | sha256sum --quiet -c
	read -r want orig < <(awk '/^Checksums-Sha256:/ {on=1; next} /^[^ ]/ {on=0} \
	  on && $$3 ~ /\.orig\.tar\.(gz|xz)$$/ {print $$1, $$3; exit}' build/download/$(2)); \
	[ -n "$$want" ] && [ -n "$$orig" ] || { echo "$(2) lists no SHA-256 for its .orig tarball"; exit 1; }; \
	curl -fsSL -o build/download/$$orig "$(DEBIAN_MIRROR)/pool/main/$(shell printf %.1s $(1))/$(1)/$$orig" && \
	echo "$$want  build/download/$$orig" | sha256sum --quiet -c && \
	rm -rf build/$(1)-src && mkdir -p build/$(1)-src && \
	tar -xaf build/download/$$orig -C build/$(1)-src --strip-components=1
endef

# mingw_static builds Debian's source package $(1) (its .dsc $(2), whose SHA-256 is $(3)) static for
# mingw-w64 into $(4), with configure's options $(5); its log is build/$(1)-build.log.
define mingw_static
	$(call debian_source,$(1),$(2),$(3))
	rm -rf $(4)
	+cd build/$(1)-src && { ./configure --host=$(MINGW) --prefix=$(4) --disable-shared --enable-static \
	  $(5) && $(MAKE) -j2 && $(MAKE) install; } >$(CURDIR)/build/$(1)-build.log 2>&1 || \
	  { tail -n 40 $(CURDIR)/build/$(1)-build.log; exit 1; }
	rm -rf build/$(1)-src
endef

opus-windows: $(OPUS_WIN)/lib/libopus.a
speexdsp-windows: $(SPEEX_WIN)/lib/libspeexdsp.a

$(OPUS_WIN)/lib/libopus.a:
	$(call mingw_static,opus,$(OPUS_DSC),$(OPUS_DSC_SHA256),$(OPUS_WIN),--disable-doc --disable-extra-programs)

$(SPEEX_WIN)/lib/libspeexdsp.a:
	$(call mingw_static,speexdsp,$(SPEEX_DSC),$(SPEEX_DSC_SHA256),$(SPEEX_WIN),--disable-examples)

# Sonic is one C file and a header, with a Makefile for Unix only: compiled here as Debian builds it
# (-O2), into a static library for parley.exe.
sonic-windows: $(SONIC_WIN)/lib/libsonic.a

$(SONIC_WIN)/lib/libsonic.a:
	$(call debian_source,sonic,$(SONIC_DSC),$(SONIC_DSC_SHA256))
	rm -rf $(SONIC_WIN) && mkdir -p $(SONIC_WIN)/lib $(SONIC_WIN)/include
	$(MINGW)-gcc -O2 -c build/sonic-src/sonic.c -o build/sonic-src/sonic.o
	$(MINGW)-ar rcs $@ build/sonic-src/sonic.o
	cp build/sonic-src/sonic.h $(SONIC_WIN)/include/
	rm -rf build/sonic-src

# fyne package -os windows builds twice, the second time with the icon and version resources, and that
# second build has lost the -ldflags it took from GOFLAGS (its parley.exe says "parley dev"). Handed an
# empty placeholder as --exe, it skips the first build, so the one build it makes carries the version.
# It names the result after Name (Parley.exe); the zip holds it as parley.exe.
package-windows: deps-package fyne-cli stage opus-windows speexdsp-windows sonic-windows
	cd $(STAGE) && : > parley.exe && $(WINDOWS_ENV) GOFLAGS="$(PACKAGE_GOFLAGS)" \
	  "$(FYNE)" package -os windows --exe parley.exe $(PACKAGE_FLAGS)
	@rm -rf build/windows && mkdir -p build/windows $(DIST) && mv $(STAGE)/Parley.exe build/windows/parley.exe
	@cp LICENSE build/windows/LICENSE.txt && cp THIRD_PARTY_NOTICES build/windows/THIRD_PARTY_NOTICES.txt
	@rm -f $(WINDOWS_ARCHIVE) && cd build/windows && \
	  zip -q -9 -X $(CURDIR)/$(WINDOWS_ARCHIVE) parley.exe LICENSE.txt THIRD_PARTY_NOTICES.txt
	@echo "$(WINDOWS_ARCHIVE): $$(du -h $(WINDOWS_ARCHIVE) | cut -f1)"

# The archives as a person gets them: unpacked, installed, started and used against the reference
# service (e2e/package_*_test.go).
package-test: deps-package-test package package-windows
	PARLEY_LINUX_ARCHIVE="$(CURDIR)/$(LINUX_ARCHIVE)" PARLEY_WINDOWS_ARCHIVE="$(CURDIR)/$(WINDOWS_ARCHIVE)" \
	PARLEY_PACKAGE_VERSION="$(VERSION)" PARLEY_FYNE="$(FYNE)" \
	  "$(GO)" test -count=1 -timeout 20m -run '^TestPackage' -v ./e2e/ 2>&1 | grep -v '^=== \(RUN\|PAUSE\|CONT\)'

clean:
	rm -rf bin build dist
