// Package app is Parley's desktop window: the conversation list, the chat view, the composer
// with push-to-talk, the settings, account and preferences dialogs, and spoken replies. It is a
// thin shell: the state lives in package conversation, the service behind the Service interface,
// audio behind Recorder and Player, the key behind SecretStore. app builds its UI on a fyne.App
// it is given and never creates one, so tests hand it a test app and fakes.
package app

import (
	"context"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"

	"parley/app/locale"
	"parley/app/talk"
	"parley/archive"
	"parley/audio"
	"parley/audio/playback"
	"parley/client"
	"parley/conversation"
	"parley/desktop/hotkey"
	"parley/engine"
)

// Service is what the window needs from the Chat and Voice Service; *client.Client has it.
type Service interface {
	conversation.Service
	Transcribe(ctx context.Context, req client.TranscribeRequest) (*client.Transcript, error)
	Speak(ctx context.Context, req client.SpeechRequest) (*client.Speech, error)
	Voices(ctx context.Context) ([]client.Voice, error)
	Account(ctx context.Context) (*client.Account, error)
	BaseURL() string
}

// SecretStore keeps API keys, one per service address; *keystore.Store is one.
type SecretStore interface {
	Get(baseURL string) (string, error)
	Set(baseURL, key string) error
	Delete(baseURL string) error
}

// Recorder records one take at a time from the microphone; *audio.Recorder is one.
type Recorder = talk.Recorder

// Player plays MP3 clips one after another; *playback.Player is one.
type Player = talk.Player

// Mic is a microphone that runs until closed; *audio.Capture is one.
type Mic = talk.Mic

// LocalService is the reference service run inside the app, for people with no account anywhere.
type LocalService interface {
	// Start runs the service on a free loopback port with its data in its own folder and
	// returns its address and a key of an account that persists across starts.
	Start(ctx context.Context) (baseURL string, key client.APIKey, err error)
	// Stop ends it, letting calls in flight finish.
	Stop()
	// WarmSpeech has its speech recogniser loaded in the background, for a question about to
	// be spoken (it is not loaded at Start: typed conversations never need it).
	WarmSpeech()

	// Detect looks for model runtimes on this computer, taking a few hundred milliseconds at most.
	Detect(ctx context.Context) []engine.Runtime
	// SetEngines makes s the engines of the service's next calls, before or while it runs; the
	// status says which chat engine answers.
	SetEngines(ctx context.Context, s engine.Set) engine.Status
	// OnEngineStatus has f told, on any goroutine, when the chat engine changes by itself (a
	// chosen runtime that went away or came back).
	OnEngineStatus(f func(engine.Status))
	// TryChat asks a chat engine a short question and says in one line how it went.
	TryChat(ctx context.Context, c engine.Chat) (string, error)
	// TrySpeechRecognition has a recogniser transcribe a test phrase and says what it heard.
	TrySpeechRecognition(ctx context.Context, s engine.Speech) (string, error)
	// TryVoices has voices speak a test sentence, returned as MP3, and says how soon.
	TryVoices(ctx context.Context, s engine.Speech) (string, []byte, error)
}

// Deps are the real parts the window works with; main wires them, tests give fakes.
type Deps struct {
	// Connect builds a Service for an address and a key.
	Connect func(baseURL string, key client.APIKey) (Service, error)
	// Secrets keeps the key of a remote service.
	Secrets SecretStore
	// Local runs the reference service in the app (nil: the welcome screen offers only Connect).
	Local LocalService
	// NewRecorder opens the microphone for push-to-talk (nil: no microphone); the take's
	// options name the device.
	NewRecorder func() Recorder
	// OpenMic opens a microphone that runs until closed, for hands-free voice mode ("" is the
	// default input; nil: no microphone).
	OpenMic func(device string) (Mic, error)
	// WakeWord reports why a wake phrase cannot be listened for here (wake.Available), or nil;
	// nil means it never can.
	WakeWord func() error
	// EchoCancel reports whether the microphone's frames have the echo of what Parley plays
	// removed: nil, or why not (nil function: never).
	EchoCancel func() error
	// InputDevices lists the microphones for the preferences (nil: none).
	InputDevices func(ctx context.Context) ([]audio.Device, error)
	// NewPlayer opens the audio output for spoken replies, reporting playback events to onEvent
	// (nil: no speech output).
	NewPlayer func(onEvent func(playback.Event)) Player
	// Getenv reads PARLEY_BASE_URL and PARLEY_API_KEY; nil means no environment.
	Getenv func(string) string
	// ArchivePath is the file that keeps the conversations' names, pins and search index on
	// this computer ("": one in memory, for this run only).
	ArchivePath string
	// Version is shown in the About dialog.
	Version string
	// Now is the clock (nil: time.Now).
	Now func() time.Time

	// Hotkey listens for the hold-to-talk key anywhere on the desktop (nil: not on this
	// system); hotkey.Register is one.
	Hotkey func(hotkey.Combo) (HotkeyListener, error)
	// HotkeyAsks reports that registering a key may ask the person (the desktop portal):
	// Preferences then does not try keys before they are saved.
	HotkeyAsks bool
	// Notify shows a desktop notification that calls onClick (on any goroutine) when clicked;
	// nil: notifications are not shown.
	Notify func(title, body string, onClick func()) error
	// TrayHost reports whether the desktop shows tray icons now (nil: it does when the app has
	// a tray).
	TrayHost func() bool
	// WatchTrayHost calls appeared (on any goroutine) when a tray host starts, until stop
	// (nil: never).
	WatchTrayHost func(appeared func()) (stop func())
	// TrayTooltip sets the text shown over the tray icon (nil: none).
	TrayTooltip func(text string)
	// Autostart writes and removes the entry that starts Parley at login (nil: not offered).
	Autostart Autostart
	// StartHidden starts with the window hidden, in the tray (Parley started at login).
	StartHidden bool
	// OnClosing is called first when the window closes for good, before anything that can
	// block: the app stops answering later starts of Parley with it (nil: nothing to do).
	OnClosing func()

	// run, in tests, replaces fyne.Do: the test runs the queued updates on its own goroutine.
	run func(func())
	// openURL, in tests, replaces the app's OpenURL (the system's browser).
	openURL func(*url.URL) error
	// fillAfter, in tests, replaces how long after a window shows the search index starts
	// filling in the background (negative: never).
	fillAfter time.Duration
}

// HotkeyListener delivers the hold-to-talk key's presses; *hotkey.Listener is one.
type HotkeyListener interface {
	Events() <-chan hotkey.Event
	Via() string
	Close() error
}

// Autostart is the entry that starts Parley when the person logs in; autostart.Entry is one.
type Autostart interface {
	Enabled() (bool, error)
	Enable() error
	Disable() error
}

// UI is the desktop app: one main window over one session at a time.
type UI struct {
	app   fyne.App
	prefs prefs
	// baseTheme is the app's theme as Fyne gave it: the system's variant at Fyne's sizes.
	baseTheme fyne.Theme
	win       fyne.Window
	deps      Deps

	// main is the window over the service in use (nil while the welcome screen shows): built
	// whole when a service is attached, replaced whole on the next.
	main *mainWindow
	// talk owns the microphone and the speakers for as long as the app runs.
	talk *talk.Controller

	// closeDialog cancels the dialog on top (Escape), when one is open; dialogs are the open
	// dialogs, the top one last.
	closeDialog func()
	dialogs     []*openDialog
	// dialogClosing: a dialog closed during the event being handled; a character it types is
	// not the person's.
	dialogClosing bool
	// shiftHeld: a Shift key is down (for Shift and an arrow extending the chat's selection).
	shiftHeld bool
	// onEnter is what Enter does when no widget has the keyboard (the welcome screen's default).
	onEnter func()
	// stopConnecting stops the connecting screen's moving bar while it shows (leaveConnecting).
	stopConnecting func()

	// engineKeys are keys of the built-in service's remote engines kept for this session only,
	// by normalized address, when the keyring could not take them.
	engineKeysMu sync.Mutex
	engineKeys   map[string]string

	// gkey is the hold-to-talk key that works from anywhere; tray is the icon in the system
	// tray (nil where the app has none); hidden: the window is hidden in the tray.
	gkey   *globalKey
	tray   *tray
	hidden bool
	// notes are the notifications on their way to the notification service (nil until one).
	notes chan awayNote

	// background is the work the window leaves running when it closes or switches service (the
	// built-in service stopping); Wait waits for it.
	background sync.WaitGroup

	ctx    context.Context
	cancel context.CancelFunc
	// probe measures the window for the performance table (ProbeEnv), nil when not asked.
	probe *probe
	// archive keeps the conversations' names, pins and search index (nil: it could not be
	// opened, and they are not kept).
	archive *archive.Archive
	// deletes are the deletes a person can no longer undo, on their way to the service: the
	// built-in service is stopped only after them.
	deletes sync.WaitGroup
}

// New builds the app's main window on a; Show or ShowAndRun displays it.
func New(a fyne.App, d Deps) *UI {
	if d.Getenv == nil {
		d.Getenv = func(string) string { return "" }
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.openURL == nil {
		d.openURL = a.OpenURL
	}
	ctx, cancel := context.WithCancel(context.Background())
	u := &UI{app: a, prefs: prefs{a.Preferences()}, deps: d, ctx: ctx, cancel: cancel}
	if l := u.prefs.language(); l != "" {
		locale.Use(l) // before any widget is made: each takes its words once
	}
	if arc, err := archive.Open(d.ArchivePath); err == nil {
		u.archive = arc
	} else {
		slog.Warn("the conversations' names, pins and search index cannot be kept", "err", err)
	}
	u.probe = newProbe(d.Getenv, u.do)
	u.baseTheme = a.Settings().Theme()
	u.applyChosenTheme()
	u.followTheme()
	u.talk = u.newTalk()
	u.win = a.NewWindow("Parley")
	u.win.SetIcon(Icon)
	u.win.SetMaster()
	u.win.Resize(u.prefs.windowSize())
	u.win.SetOnClosed(u.shutdown)
	u.watchPlacement()
	u.win.Canvas().SetOnTypedKey(u.typedKey)
	u.watchSelectionKeys()
	u.gkey = newGlobalKey(u)
	u.tray = newTray(u)
	u.win.SetCloseIntercept(u.closeRequested)
	u.start()
	u.gkey.start()
	return u
}

// Window is the main window.
func (u *UI) Window() fyne.Window { return u.win }

// ShowAndRun shows the window where it was last (or, started at login, only the tray icon),
// and runs the app until it quits.
func (u *UI) ShowAndRun() {
	u.showAtStart()
	u.app.Run()
}

// loginTrayWait is how long Parley started at login waits for the desktop's tray (the panel
// may start after it) before it shows its window instead.
var loginTrayWait = 20 * time.Second

// showAtStart shows the window, or, started at login, only the tray icon. Where the desktop
// shows no tray yet, the icon waits for it a while; a desktop with no tray gets the window.
func (u *UI) showAtStart() {
	switch {
	case !u.deps.StartHidden || u.tray == nil:
	case u.tray.hostPresent():
		u.hidden = true
		u.tray.refresh()
		return
	case u.tray.waiting:
		u.hidden = true
		time.AfterFunc(loginTrayWait, func() {
			u.do(func() {
				if u.hidden && u.tray.waiting {
					// No tray came: without the window Parley could not be reached. It is
					// shown without taking the keyboard from what the person is doing.
					u.hidden = false
					u.win.Show()
					u.restorePosition()
					u.tray.refresh()
				}
			})
		})
		return
	}
	u.win.Show()
	u.restorePosition()
}

// start decides between the welcome screen and the main window: an address and key in the
// environment, or a service chosen before, go straight to the main window.
func (u *UI) start() {
	env := u.deps.Getenv
	switch {
	case strings.TrimSpace(env("PARLEY_BASE_URL")) != "" || strings.TrimSpace(env("PARLEY_API_KEY")) != "":
		u.connectFromEnvironment()
	case u.prefs.service() == serviceLocal && u.deps.Local != nil:
		u.useLocal()
	case u.prefs.service() == serviceRemote:
		u.connectStored()
	default:
		u.showWelcome()
	}
}

// shutdown saves the window's size and position and ends background work.
func (u *UI) shutdown() {
	if u.deps.OnClosing != nil {
		u.deps.OnClosing()
	}
	if u.main != nil {
		u.main.close() // what was written and not answered is kept first
	}
	u.closeArchive()
	u.probe.close()
	u.savePlacement()
	u.gkey.stop()
	u.tray.stop()
	if u.notes != nil {
		close(u.notes)
		u.notes = nil
	}
	u.talk.StopAll()
	u.cancel()
	u.stopLocal()
}

// closeArchive closes the archive once the work that writes it ended: the keeper's, and the
// deletes on their way (which drop what it kept of their conversations).
func (u *UI) closeArchive() {
	if u.archive == nil {
		return
	}
	var k *keeper
	if u.main != nil {
		k = u.main.keeper
	}
	u.background.Add(1)
	go func() {
		defer u.background.Done()
		u.deletes.Wait()
		if k != nil {
			k.wait()
		}
		u.archive.Close()
	}()
}

// stopLocal stops the built-in service in the background: it lets a call in flight finish for a
// few seconds (server.LocalStopGrace), which neither the window nor a switch to another
// service waits for. Wait waits for it before the process ends.
func (u *UI) stopLocal() {
	local := u.deps.Local
	if local == nil {
		return
	}
	u.background.Add(1)
	go func() {
		defer u.background.Done()
		u.deletes.Wait() // a delete on its way reaches the service before it stops
		local.Stop()
	}()
}

// Wait waits, at most d, for the work the window left running when it closed (the built-in
// service finishing a call in flight), and reports whether it ended. Call it after the app's
// loop returned, and after giving up anything a new Parley would need (the single-instance lock).
func (u *UI) Wait(d time.Duration) bool {
	done := make(chan struct{})
	go func() {
		u.background.Wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// do runs fn on the UI goroutine, for work that finished in the background.
func (u *UI) do(fn func()) {
	if u.deps.run != nil {
		u.deps.run(fn)
		return
	}
	fyne.Do(fn)
}
