// Command parley is a desktop voice assistant and a command-line client for the Chat and Voice
// Service. With no arguments it opens the desktop app; with a subcommand it runs the CLI.
package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"

	fyneapp "fyne.io/fyne/v2/app"

	"parley/app"
	"parley/audio"
	"parley/audio/playback"
	"parley/cli"
	"parley/client"
	"parley/internal/version"
	"parley/keystore"
	"parley/server"
)

// appID identifies the app to the desktop (preferences folder, window grouping).
const appID = "io.github.parley"

func main() {
	if len(os.Args) > 1 {
		useParentConsole()
		os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(runApp())
}

// runApp opens the desktop app with the real client, keyring, microphone, speakers and the
// built-in reference service.
func runApp() int {
	if runtime.GOOS == "linux" && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		fmt.Fprint(os.Stderr, `parley: there is no display (DISPLAY and WAYLAND_DISPLAY are unset), so the desktop app cannot open.
Without one, run the reference service and talk to it with the command-line client:
  parley serve --demo          # prints a key and example commands
  parley chat "Hello"          # in another terminal, with PARLEY_API_KEY set
  parley --help                # every command
`)
		return 1
	}
	// A window holds little live data but allocates as it draws: collect more often, so the
	// app stays close to a bare Fyne window's footprint (see the README's performance table).
	debug.SetGCPercent(25)
	backend := audio.BackendFromEnv()
	ui := app.New(fyneapp.NewWithID(appID), app.Deps{
		Connect: func(base string, key client.APIKey) (app.Service, error) {
			return client.New(client.Options{BaseURL: base, APIKey: key, UserAgent: "parley-app/" + version.Version})
		},
		Secrets:     keystore.New(),
		Local:       &localService{},
		NewRecorder: func() app.Recorder { return audio.NewRecorder(backend) },
		OpenMic: func(device string) (app.Mic, error) {
			return audio.OpenCapture(backend, device)
		},
		InputDevices: backend.Inputs,
		NewPlayer:    func(onEvent func(playback.Event)) app.Player { return playback.New(onEvent) },
		Getenv:       os.Getenv,
		Version:      version.String(),
	})
	ui.ShowAndRun()
	return 0
}

// localService adapts server.Local to the app.
type localService struct{ server.Local }

func (l *localService) Start(ctx context.Context) (string, client.APIKey, error) {
	base, key, err := l.Local.Start(ctx)
	return base, client.APIKey(key), err
}
