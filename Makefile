# Parley: two commands for a fresh Debian/Ubuntu machine.
#   make run   - build Parley and open the desktop app (its first-run screen starts the built-in service)
#   make test  - install what the tests need, then run every check and test
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

# What `parley --version` reports.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null)
BUILD_DATE ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS := -X parley/internal/version.Version=$(VERSION) -X parley/internal/version.Commit=$(COMMIT) \
	-X parley/internal/version.Date=$(BUILD_DATE)

# Build: C toolchain, ALSA (oto, malgo), libopus, OpenGL/X11 (Fyne).
BUILD_PACKAGES := gcc pkg-config libasound2-dev libopus-dev libgl1-mesa-dev xorg-dev xz-utils
# The reference service's speech engines.
SERVICE_PACKAGES := espeak-ng lame pocketsphinx pocketsphinx-en-us
# Tests: real audio devices (PulseAudio null sink), speech corpus, keyring, display.
TEST_PACKAGES := pulseaudio pulseaudio-utils libasound2-plugins sox gnome-keyring dbus-x11 \
	xvfb imagemagick xdotool locales mkvtoolnix opus-tools tesseract-ocr tesseract-ocr-eng

.PHONY: help run build test deps-build deps-run deps-test check-go fmt-check vet unit integration bench clean

help:
	@echo "make run    build Parley and open the desktop app (the first-run screen offers the built-in service)"
	@echo "make test   install test dependencies, then gofmt, vet, race tests and integration tests"
	@echo "make bench  run the benchmarks behind the README's performance table"

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

# Unit and package tests, under the race detector. Tests that need PulseAudio, a keyring, espeak-ng
# or pocketsphinx start their own and fail (not skip) under CI=true when a tool is missing.
unit: deps-test
	"$(GO)" test -race -count=1 -timeout 25m $$("$(GO)" list ./... | grep -v '^parley/e2e$$')

# End-to-end tests: the built binary against the real reference service, keyring and audio server.
integration: deps-test
	"$(GO)" test -count=1 -timeout 20m ./e2e/

test: deps-test fmt-check vet unit integration

bench: deps-test
	"$(GO)" test -run '^$$' -bench . -benchmem -count=1 -timeout 30m ./...

clean:
	rm -rf bin
