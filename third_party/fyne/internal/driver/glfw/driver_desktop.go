//go:build !wasm && !test_web_driver

package glfw

import (
	"bytes"
	"image/png"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/software"
	"fyne.io/fyne/v2/internal/painter"
	"fyne.io/fyne/v2/internal/svg"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/systray"

	"github.com/go-gl/glfw/v3.4/glfw"
)

const systrayIconSize = 64

var (
	systrayIcon    fyne.Resource
	systrayRunning bool
)

func (d *gLDriver) HasSecondaryDisplay() bool {
	monitors := glfw.GetMonitors()
	if len(monitors) == 1 {
		return false
	}

	primaryTop, primaryLeft := monitors[0].GetPos()
	for _, m := range monitors[1:] {
		top, left := m.GetPos()
		if top != primaryTop || left != primaryLeft {
			return true
		}
	}

	return false // all the monitors had same origin, thus mirroring
}

func (d *gLDriver) SetSystemTrayMenu(m *fyne.Menu) {
	if !systrayRunning {
		systrayRunning = true
		d.runSystray(m)
	}

	d.refreshSystray(m)
}

func (d *gLDriver) runSystray(m *fyne.Menu) {
	d.trayStart, d.trayStop = systray.RunWithExternalLoop(func() {
		if systrayIcon != nil {
			d.SetSystemTrayIcon(systrayIcon)
		} else if fyne.CurrentApp().Icon() != nil {
			d.SetSystemTrayIcon(fyne.CurrentApp().Icon())
		} else {
			d.SetSystemTrayIcon(theme.BrokenImageIcon())
		}

		// Some XDG systray crash without a title (See #3678)
		if runtime.GOOS == "linux" || runtime.GOOS == "openbsd" || runtime.GOOS == "freebsd" || runtime.GOOS == "netbsd" {
			app := fyne.CurrentApp()
			title := app.Metadata().Name
			if title == "" {
				title = app.UniqueID()
			}

			systray.SetTitle(title)
		}

		if m != nil {
			// it must be refreshed after init, so an earlier call would have been ineffective
			runOnMain(func() {
				// Parley: with the menu set last, not the first one: a menu changed before the
				// tray started (the app hides its window at start) was replaced by the first.
				// And not again where the menu set last is already built: the D-Bus tray keeps
				// its items in memory and shows those built before it was ready, and a rebuild
				// gives every item a new ID, so that a panel reading the menu as the tray
				// registers has a click on it lost ("no menu item with ID 7").
				if d.trayBuilt == d.systrayMenu && runtime.GOOS != "windows" && runtime.GOOS != "darwin" {
					return
				}
				d.refreshSystray(d.systrayMenu)
			})
		}
	}, func() {
		// anything required for tear-down
	})

	// the only way we know the app was asked to quit is if this window is asked to close...
	w := d.CreateWindow("SystrayMonitor")
	w.(*window).create()
	w.SetCloseIntercept(d.Quit)

	// Parley: runGL starts the tray as the loop begins; a tray first asked for once the loop ran
	// (by an app that waits for the desktop's tray host, which may start after it at login) was
	// never started, so its icon never showed, and Quit then ended a tray that had never
	// connected (a panic). It starts now.
	if running.Load() {
		d.startSystray()
	}
}

// systrayShortcutKeys maps the few key names that Fyne spells differently to the
// platform neutral names that the systray package understands.
var systrayShortcutKeys = map[fyne.KeyName]string{
	fyne.KeyEnter:    "Enter",
	fyne.KeyPageDown: "PageDown",
	fyne.KeyPageUp:   "PageUp",
}

func systrayShortcutKey(key fyne.KeyName) string {
	if name, ok := systrayShortcutKeys[key]; ok {
		return name
	}
	return string(key)
}

func systrayModifiers(mod fyne.KeyModifier) (mods systray.KeyModifier) {
	if mod&fyne.KeyModifierShift != 0 {
		mods |= systray.KeyModifierShift
	}
	if mod&fyne.KeyModifierControl != 0 {
		mods |= systray.KeyModifierControl
	}
	if mod&fyne.KeyModifierAlt != 0 {
		mods |= systray.KeyModifierAlt
	}
	if mod&fyne.KeyModifierSuper != 0 {
		mods |= systray.KeyModifierSuper
	}
	return mods
}

func itemForMenuItem(i *fyne.MenuItem, parent *systray.MenuItem) *systray.MenuItem {
	if i.IsSeparator {
		if parent != nil {
			parent.AddSeparator()
		} else {
			systray.AddSeparator()
		}
		return nil
	}

	var item *systray.MenuItem
	if i.Checked {
		if parent != nil {
			item = parent.AddSubMenuItemCheckbox(i.Label, "", true)
		} else {
			item = systray.AddMenuItemCheckbox(i.Label, "", true)
		}
	} else {
		if parent != nil {
			item = parent.AddSubMenuItem(i.Label, "")
		} else {
			item = systray.AddMenuItem(i.Label, "")
		}
	}
	if i.Disabled {
		item.Disable()
	}
	if s, ok := i.Shortcut.(fyne.KeyboardShortcut); ok {
		item.SetShortcut(systrayModifiers(s.Mod()), systrayShortcutKey(s.Key()))
	}
	if i.Icon != nil {
		data := i.Icon.Content()
		if svg.IsResourceSVG(i.Icon) {
			b := &bytes.Buffer{}
			res := i.Icon
			if runtime.GOOS == "windows" && isDark() { // windows menus don't match dark mode so invert icons
				res = theme.NewInvertedThemedResource(i.Icon)
			}
			img := painter.PaintImage(canvas.NewImageFromResource(res), nil, systrayIconSize, systrayIconSize)
			err := png.Encode(b, img)
			if err != nil {
				fyne.LogError("Failed to encode SVG icon for menu", err)
			} else {
				data = b.Bytes()
			}
		}

		img, err := toOSIcon(data)
		if err != nil {
			fyne.LogError("Failed to convert systray icon", err)
		} else {
			if _, ok := i.Icon.(*theme.ThemedResource); ok {
				item.SetTemplateIcon(img, img)
			} else {
				item.SetIcon(img)
			}
		}
	}
	return item
}

func (d *gLDriver) refreshSystray(m *fyne.Menu) {
	d.systrayMenu = m
	d.trayBuilt = m // Parley: see runSystray

	systray.ResetMenu()
	d.refreshSystrayMenu(m, nil)

	addMissingQuitForMenu(m, d)
}

func (d *gLDriver) refreshSystrayMenu(m *fyne.Menu, parent *systray.MenuItem) {
	if m == nil {
		return
	}

	for _, i := range m.Items {
		item := itemForMenuItem(i, parent)
		if item == nil {
			continue // separator
		}
		if i.ChildMenu != nil {
			d.refreshSystrayMenu(i.ChildMenu, item)
		}

		fn := i.Action
		go func() {
			for range item.ClickedCh {
				if fn != nil {
					runOnMain(fn)
				}
			}
		}()
	}
}

func (d *gLDriver) SetSystemTrayIcon(resource fyne.Resource) {
	systrayIcon = resource // in case we need it later

	// only macOS supports SVG system tray
	if runtime.GOOS != "darwin" && svg.IsResourceSVG(resource) {
		img := canvas.NewImageFromResource(resource)
		c := software.NewTransparentCanvas()
		c.SetContent(img)
		c.SetPadded(false)
		c.Resize(fyne.NewSquareSize(systrayIconSize))

		buf := &bytes.Buffer{}
		err := png.Encode(buf, c.Capture())
		if err != nil {
			fyne.LogError("Failed to encode SVG icon for system tray icon", err)
			return
		}
		resource = fyne.NewStaticResource(resource.Name()+".png", buf.Bytes())
	}

	img, err := toOSIcon(resource.Content())
	if err != nil {
		fyne.LogError("Failed to convert systray icon", err)
		return
	}

	if _, ok := resource.(*theme.ThemedResource); ok {
		systray.SetTemplateIcon(img, img)
	} else {
		systray.SetIcon(img)
	}
}

func (d *gLDriver) SetSystemTrayWindow(w fyne.Window) {
	if !systrayRunning {
		systrayRunning = true
		d.runSystray(nil)
	}

	w.SetCloseIntercept(w.Hide)
	glw := w.(*window)
	if glw.decorate {
		systray.SetOnTapped(func() { fyne.Do(glw.Show) })
	} else {
		systray.SetOnTapped(func() { fyne.Do(glw.toggleVisible) })
	}
}

func (d *gLDriver) SystemTrayMenu() *fyne.Menu {
	return d.systrayMenu
}

func (d *gLDriver) CurrentKeyModifiers() fyne.KeyModifier {
	return d.currentKeyModifiers
}

// this function should be invoked from a goroutine
func (d *gLDriver) catchTerm() {
	terminateSignal := make(chan os.Signal, 1)
	signal.Notify(terminateSignal, syscall.SIGINT, syscall.SIGTERM)

	<-terminateSignal
	fyne.Do(d.Quit)
}

func addMissingQuitForMenu(menu *fyne.Menu, d *gLDriver) {
	localQuit := lang.L("Quit")
	var lastItem *fyne.MenuItem
	if len(menu.Items) > 0 {
		lastItem = menu.Items[len(menu.Items)-1]
		if lastItem.Label == localQuit {
			lastItem.IsQuit = true
		}
	}
	if lastItem == nil || !lastItem.IsQuit { // make sure the menu always has a quit option
		quitItem := fyne.NewMenuItem(localQuit, nil)
		quitItem.IsQuit = true
		menu.Items = append(menu.Items, fyne.NewMenuItemSeparator(), quitItem)
	}
	for _, item := range menu.Items {
		if item.IsQuit && item.Action == nil {
			item.Action = d.Quit
		}
	}
}
