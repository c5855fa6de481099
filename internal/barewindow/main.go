// Command barewindow is the smallest Fyne window, a label in a 1000×700 window: the yardstick
// the app's start-up time and memory are measured against (see e2e's app benchmarks).
package main

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/widget"
)

func main() {
	a := app.NewWithID("io.github.parley.barewindow")
	w := a.NewWindow("Bare")
	w.SetContent(widget.NewLabel("A bare Fyne window."))
	w.Resize(fyne.NewSize(1000, 700))
	w.ShowAndRun()
}
