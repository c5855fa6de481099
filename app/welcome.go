package app

import (
	"fmt"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"parley/assets"
	"parley/engine"
)

// Icon is Parley's app icon.
var Icon = fyne.NewStaticResource("parley.png", assets.IconPNG)

// showWelcome is the first-run screen: use the local service, or connect to one.
func (u *UI) showWelcome() { u.showWelcomeAfter(nil) }

// showWelcomeAfter shows the first-run screen, with why the last attempt failed when err is set.
func (u *UI) showWelcomeAfter(err error) {
	u.leaveConnecting()
	logo := canvas.NewImageFromResource(Icon)
	logo.FillMode = canvas.ImageFillContain
	logo.SetMinSize(fyne.NewSize(96, 96))
	title := widget.NewLabelWithStyle(lang.L("Welcome to Parley"), fyne.TextAlignCenter, fyne.TextStyle{Bold: true})
	title.SizeName = theme.SizeNameHeadingText
	intro := widget.NewLabelWithStyle(lang.L("Talk to your assistant by voice or text, and keep your conversations and personas."),
		fyne.TextAlignCenter, fyne.TextStyle{})
	intro.Wrapping = fyne.TextWrapWord

	local := widget.NewButtonWithIcon(lang.L("Use the local service"), theme.ComputerIcon(), u.useLocal)
	local.Importance = widget.HighImportance
	localHint := widget.NewLabelWithStyle("", fyne.TextAlignCenter, fyne.TextStyle{})
	if u.deps.Local != nil {
		u.describeLocal(localHint)
	}
	localHint.Wrapping = fyne.TextWrapWord
	localHint.SizeName = theme.SizeNameCaptionText
	remote := widget.NewButtonWithIcon(lang.L("Connect to a service…"), theme.LoginIcon(), u.showAccount)
	remoteHint := widget.NewLabelWithStyle(lang.L("Use a Chat and Voice Service you have an address and an API key for."),
		fyne.TextAlignCenter, fyne.TextStyle{})
	remoteHint.Wrapping = fyne.TextWrapWord
	remoteHint.SizeName = theme.SizeNameCaptionText

	items := []fyne.CanvasObject{container.NewCenter(logo), title, intro, widget.NewSeparator()}
	if err != nil {
		msg := widget.NewLabelWithStyle(fmt.Sprintf(lang.L("That did not work. %s"), phrase(err).text), fyne.TextAlignCenter, fyne.TextStyle{})
		msg.Wrapping = fyne.TextWrapWord
		msg.Importance = widget.DangerImportance
		items = append(items, msg)
	}
	if u.deps.Local != nil {
		items = append(items, local, localHint)
	} else {
		remote.Importance = widget.HighImportance
	}
	items = append(items, remote, remoteHint)
	box := container.NewVBox(items...)
	u.win.SetMainMenu(u.welcomeMenu())
	// The screen is as tall as with the longest hint, so that the hint can change (when the
	// search for a model ends) without moving the buttons.
	// Wrapped texts are measured at the width they get.
	shown := localHint.Text
	longest := engine.Recogniser{Name: "faster-whisper", Model: strings.Repeat("w", 40)}
	localHint.Text = welcomeEngineHint(nil, false, &longest)
	box.Resize(fyne.NewSize(460, box.MinSize().Height))
	height := box.MinSize().Height
	localHint.Text = shown
	u.win.SetContent(container.NewCenter(container.NewGridWrap(fyne.NewSize(460, height), box)))
	u.win.Canvas().Unfocus()
	u.onEnter = remote.OnTapped
	if u.deps.Local != nil {
		u.onEnter = local.OnTapped
	}
}

// welcomeMenu is the menu of the screens shown before a service is in use (welcome,
// connecting): choosing a service, closing, quitting (Ctrl+W, Ctrl+Q) and Help.
func (u *UI) welcomeMenu() *fyne.MainMenu {
	item := func(label string, action func()) *fyne.MenuItem {
		return fyne.NewMenuItem(label, u.unlessDialog(action))
	}
	closeWin, quit := u.closeAndQuitItems()
	parley := []*fyne.MenuItem{item(lang.L("Connect to a service…"), u.showAccount)}
	if u.deps.Local != nil {
		parley = append(parley, item(lang.L("Use the local service"), u.useLocal))
	}
	parley = append(parley, fyne.NewMenuItemSeparator(), closeWin, quit)
	return fyne.NewMainMenu(
		fyne.NewMenu("Parley", parley...),
		fyne.NewMenu(helpTitle(),
			item(lang.L("Keyboard shortcuts"), u.showShortcuts),
			item(lang.L("About Parley"), u.showAbout),
		),
	)
}

// showConnecting shows that Parley is reaching the service at address.
func (u *UI) showConnecting(address string) {
	u.showConnectingText(fmt.Sprintf(lang.L("Connecting to %s…"), address))
}

// showConnectingLocal shows that Parley is starting the local service.
func (u *UI) showConnectingLocal() {
	u.showConnectingText(lang.L("Connecting to the local service…"))
}

// showConnectingText shows the connecting screen, saying text.
func (u *UI) showConnectingText(text string) {
	u.leaveConnecting()
	bar := widget.NewProgressBarInfinite()
	u.stopConnecting = bar.Stop
	u.win.SetMainMenu(u.welcomeMenu())
	label := widget.NewLabelWithStyle(text, fyne.TextAlignCenter, fyne.TextStyle{})
	u.win.SetContent(container.NewCenter(container.NewGridWrap(fyne.NewSize(360, 80), container.NewVBox(label, bar))))
}

// leaveConnecting stops the connecting screen's bar, before another screen replaces it: a bar
// no longer shown moves on until Fyne drops its renderer, a minute later, and each of its steps
// redraws the window (60 frames a second, a core's worth with a long draft in the message box).
func (u *UI) leaveConnecting() {
	if u.stopConnecting != nil {
		u.stopConnecting()
		u.stopConnecting = nil
	}
}

// describeLocal says in hint what the local service would answer with: the chat engine chosen
// before, else the first model found on this computer (looked for in the background: the screen
// never waits), else the offline responder and how to get a real model.
func (u *UI) describeLocal(hint *widget.Label) {
	set, chosen := u.prefs.engines()
	if chosen {
		hint.SetText(welcomeEngineHint(&set.Chat, false, nil))
		if set.STT.Remote {
			return // nothing to look for
		}
	} else {
		hint.SetText(welcomeEngineHint(nil, true, nil))
	}
	local := u.deps.Local
	go func() {
		var found []engine.Runtime
		var hears *engine.Recogniser
		var wg sync.WaitGroup
		if !chosen {
			wg.Go(func() { found = local.Detect(u.ctx) })
		}
		if !set.STT.Remote {
			wg.Go(func() {
				if r, ok := findRecogniser(u.ctx, local); ok {
					hears = &r
				}
			})
		}
		wg.Wait()
		u.do(func() {
			switch {
			case chosen:
				hint.SetText(welcomeEngineHint(&set.Chat, false, hears))
			case len(found) == 0:
				hint.SetText(welcomeEngineHint(nil, false, hears))
			default:
				c := found[0].Chat(found[0].Models[0])
				hint.SetText(welcomeEngineHint(&c, false, hears))
			}
		})
	}()
}
