// Command parley is a desktop voice assistant and a command-line client for the Chat and Voice
// Service. With no arguments it opens the desktop app; with a subcommand it runs the CLI.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"parley/archive"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"

	"parley/app"
	"parley/audio"
	"parley/audio/echo"
	"parley/audio/playback"
	"parley/audio/wake"
	"parley/cli"
	"parley/client"
	"parley/desktop/autostart"
	"parley/desktop/display"
	"parley/desktop/hotkey"
	"parley/desktop/instance"
	"parley/desktop/notify"
	"parley/desktop/tray"
	"parley/internal/version"
	"parley/keystore"
	"parley/server"
)

// appID identifies the app to the desktop (preferences folder, window grouping).
const appID = "io.github.parley"

func main() {
	startedAtLogin := len(os.Args) == 2 && os.Args[1] == autostart.Flag
	if len(os.Args) > 1 && !startedAtLogin {
		useParentConsole()
		os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(runApp(startedAtLogin))
}

// runApp opens the desktop app with the real client, keyring, microphone, speakers and the
// built-in reference service; started at login, it starts in the tray. When Parley runs
// already, it hands over to it (which shows its window) and returns.
func runApp(startedAtLogin bool) int {
	if why := display.Check(os.Getenv, display.ProbeTimeout); why != nil {
		fmt.Fprintf(os.Stderr, `parley: %s, so the desktop app cannot open.
Without one, run the reference service and talk to it with the command-line client:
  parley serve --demo          # prints a key and example commands
  parley chat "Hello"          # in another terminal, with PARLEY_API_KEY set
  parley --help                # every command
`, why)
		return 1
	}
	inst, code, done := claimInstance(startedAtLogin)
	if done {
		return code
	}
	if inst != nil {
		defer inst.Close()
	}
	// A window holds little live data but allocates as it draws: collect more often, so the
	// app stays close to a bare Fyne window's footprint (see the README's performance table).
	debug.SetGCPercent(25)
	backend := audio.BackendFromEnv()
	// Fyne 2.8 makes its cache folder (fyne/<app ID>) in the user's cache folder as the app
	// starts, and logs two errors when that folder does not exist yet (a new account): it is
	// made first, as the XDG base directory specification asks of an app that writes there.
	if dir, err := os.UserCacheDir(); err == nil {
		_ = os.MkdirAll(dir, 0o700)
	}
	fa := fyneapp.NewWithID(appID)
	if m := fa.Metadata(); m.Name == "" {
		// A plain go build has no FyneApp.toml metadata; the tray icon's title is the app's
		// name, else its ID.
		m.Name = "Parley"
		if m.ID == "" {
			m.ID = appID
		}
		fyneapp.SetMetadata(m)
	}
	var onClosing func()
	if inst != nil {
		// From the moment the window starts closing, a later start must not be handed over to
		// this Parley, which would say "shown" and then end: it runs instead.
		onClosing = func() { go inst.Close() }
	}
	var login app.Autostart
	if e, err := autostart.ForThisProgram(); err == nil {
		login = e
	}
	ui := app.New(fa, app.Deps{
		Connect: func(base string, key client.APIKey) (app.Service, error) {
			return client.New(client.Options{BaseURL: base, APIKey: key, UserAgent: "parley-app/" + version.Version})
		},
		Secrets:     keystore.New(),
		Local:       &localService{Local: server.Local{LockWait: server.LocalStopGrace + 3*time.Second}},
		NewRecorder: func() app.Recorder { return echoRecorder{audio.NewRecorder(backend)} },
		OpenMic: func(device string) (app.Mic, error) {
			mic, err := audio.OpenCapture(backend, device)
			if err != nil {
				return nil, err
			}
			if c, err := echo.Shared(); err == nil {
				return echo.NewSource(mic, c), nil
			}
			return mic, nil
		},
		EchoCancel:   echo.Available,
		WakeWord:     wake.Available,
		InputDevices: backend.Inputs,
		NewPlayer:    func(onEvent func(playback.Event)) app.Player { return playback.New(onEvent) },
		Getenv:       os.Getenv,
		ArchivePath:  filepath.Join(server.DefaultDataDir(), archive.FileName),
		Version:      version.String(),
		HotkeyAsks:   hotkey.RegisteringAsks(),
		Hotkey: func(c hotkey.Combo) (app.HotkeyListener, error) {
			l, err := hotkey.Register(c)
			if err != nil {
				return nil, err
			}
			return l, nil
		},
		Notify:        newNotifier(fa).show,
		TrayHost:      tray.HostPresent,
		WatchTrayHost: tray.WatchHost,
		TrayTooltip:   tray.SetTooltip,
		Autostart:     login,
		StartHidden:   startedAtLogin,
		OnClosing:     onClosing,
	})
	if inst != nil {
		inst.Serve(func(r instance.Request) {
			if r == instance.Show {
				fyne.Do(ui.Present)
			}
		})
	}
	ui.ShowAndRun()
	// The window is gone. A Parley started from now on is the new one: it must not hand over
	// to this one, which only finishes what it left running (the built-in service letting a
	// call in flight store its reply, for a few seconds at most).
	if inst != nil {
		inst.Close()
	}
	ui.Wait(server.LocalStopGrace + 2*time.Second)
	return 0
}

// oneLine is s on one line, cut to n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// claimInstance makes this process the running Parley, or hands over to the one running
// (done: this process has nothing more to do, and exits with code). A lock it cannot take or
// check leaves it running alone, with a warning.
func claimInstance(startedAtLogin bool) (inst *instance.Instance, code int, done bool) {
	req := instance.Show
	if startedAtLogin {
		req = instance.Background
	}
	inst, err := instance.ClaimIn(instance.Dirs(), req)
	var na *instance.NotAnsweringError
	var nl *instance.NoLockError
	switch {
	case errors.Is(err, instance.ErrRunning):
		return nil, 0, true
	case errors.As(err, &na):
		// The cause (a socket refused, an address file not written yet) helps nobody here.
		fmt.Fprintf(os.Stderr, "parley: %s is running but did not answer within a second.\nIf that Parley is stuck, end it (its window, or its process), then start Parley again.\n", na.Who())
		return nil, 1, true
	case errors.As(err, &nl):
		// Parley starts anyway: refusing would leave the person without it over a folder's
		// permissions, while a second Parley beside the first is only a second window.
		fmt.Fprintf(os.Stderr, "parley: no folder could hold the lock that keeps one Parley running (%s: %s).\nStarting anyway; another start may open a second Parley. Make one of those folders writable to fix it.\n",
			strings.Join(nl.Dirs, ", "), oneLine(nl.Err.Error(), 120))
	case err != nil:
		fmt.Fprintf(os.Stderr, "parley: could not check whether Parley runs already (%s); starting anyway.\n", oneLine(err.Error(), 120))
	}
	return inst, 0, false
}

// notifier shows desktop notifications that open what they are about when clicked (through
// the session bus's notification service), else Fyne's, which cannot be clicked.
type notifier struct {
	app   fyne.App
	mu    sync.Mutex
	n     *notify.Notifier
	tried time.Time // when connecting to the notification service last failed
}

func newNotifier(a fyne.App) *notifier { return &notifier{app: a} }

// notifyRetry is how long after failing to reach the notification service it is tried again
// (started at login, Parley may come before it).
const notifyRetry = 30 * time.Second

func (n *notifier) show(title, body string, onClick func()) error {
	n.mu.Lock()
	if n.n == nil && (n.tried.IsZero() || time.Since(n.tried) > notifyRetry) {
		var err error
		if n.n, err = notify.New("Parley", "io.github.parley"); err != nil {
			n.tried = time.Now()
		}
	}
	nn := n.n
	n.mu.Unlock()
	if nn != nil {
		_, err := nn.Show(title, body, onClick)
		return err
	}
	n.app.SendNotification(fyne.NewNotification(title, body))
	return nil
}

// localService adapts server.Local to the app.
type localService struct{ server.Local }

func (l *localService) Start(ctx context.Context) (string, client.APIKey, error) {
	base, key, err := l.Local.Start(ctx)
	return base, client.APIKey(key), err
}

// echoRecorder records push-to-talk's takes with the echo of what Parley plays removed, when
// this computer has an echo canceller.
type echoRecorder struct{ *audio.Recorder }

func (r echoRecorder) Record(ctx context.Context, opts audio.TakeOptions) (*audio.Take, error) {
	if c, err := echo.Shared(); err == nil {
		opts.Filter = c.Cancel
	}
	return r.Recorder.Record(ctx, opts)
}
