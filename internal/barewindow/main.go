// Command barewindow is the smallest Fyne window, 1000×700: the yardstick the app's start-up
// time, memory and idle CPU are measured against (see e2e's app benchmarks). With no argument
// it shows a label; with "entry", a label over a one-line entry at the bottom that has the
// keyboard (its cursor blinks), as the app's message box does.
package main

import (
	"os"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

func main() {
	a := app.NewWithID("io.github.parley.barewindow")
	w := a.NewWindow("Bare")
	label := widget.NewLabel("A bare Fyne window.")
	if len(os.Args) > 1 && os.Args[1] == "entry" {
		e := widget.NewEntry()
		e.SetPlaceHolder("Type here")
		w.SetContent(container.NewBorder(nil, e, nil, nil, label))
		w.Canvas().Focus(e)
	} else {
		w.SetContent(label)
	}
	w.Resize(fyne.NewSize(1000, 700))
	w.ShowAndRun()
}
