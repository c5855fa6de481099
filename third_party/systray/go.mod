module fyne.io/systray

go 1.19

require (
	github.com/godbus/dbus/v5 v5.1.0
	golang.org/x/sys v0.15.0
)
