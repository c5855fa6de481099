package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
)

// foldWidth is the window's width below which the conversation list folds away, for the
// conversation to keep a readable width; the header's list button (and Ctrl+B) brings it back.
const foldWidth = 760

// folding shows or folds away the conversation list beside the conversation. In a wide window it
// shows unless the person folded it (kept); in a narrow one it is folded unless the person
// opened it, then in the conversation's place, and folds again once a conversation is chosen
// in it (or with Ctrl+B again).
type folding struct {
	m       *mainWindow
	split   *container.Split
	narrow  bool
	opened  bool // the person opened the list in a narrow window
	started bool // the window's width is known
}

// foldLayout gives its one object, the split, its whole size, and tells folding the width.
type foldLayout struct{ f *folding }

func (l foldLayout) MinSize(objs []fyne.CanvasObject) fyne.Size { return objs[0].MinSize() }

func (l foldLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	l.f.resized(size.Width)
	objs[0].Move(fyne.NewPos(0, 0))
	objs[0].Resize(size)
}

// newFolding puts the list and the conversation side by side, the list folding away.
func newFolding(m *mainWindow, list, conv fyne.CanvasObject) (*folding, fyne.CanvasObject) {
	f := &folding{m: m, split: container.NewHSplit(list, conv)}
	f.split.SetOffset(0.27)
	f.apply()
	return f, container.New(foldLayout{f}, f.split)
}

// resized is told the width of the window's content.
func (f *folding) resized(w float32) {
	if w <= 0 {
		return
	}
	narrow := w < foldWidth
	if f.started && narrow == f.narrow {
		return
	}
	f.started, f.narrow, f.opened = true, narrow, false
	f.apply()
}

// shown reports whether the list shows.
func (f *folding) shown() bool {
	if f.narrow {
		return f.opened
	}
	return !f.m.u.prefs.sidebarFolded()
}

// toggle shows the list, or folds it away (Ctrl+B, the header's list button); shown, it has
// the keyboard.
func (f *folding) toggle() {
	if f.narrow {
		f.opened = !f.opened
	} else {
		f.m.u.prefs.setSidebarFolded(!f.m.u.prefs.sidebarFolded())
	}
	f.apply()
	if f.shown() {
		f.m.sidebar.focusSearch()
	} else {
		f.m.focusComposer()
	}
}

// chosen folds the list of a narrow window away once a conversation was chosen in it.
func (f *folding) chosen() {
	if f.narrow && f.opened {
		f.opened = false
		f.apply()
	}
}

// apply shows or hides the list as it should be. A narrow window shows either the list (the
// whole width) or the conversation.
func (f *folding) apply() {
	show := f.shown()
	list, conv := f.split.Leading, f.split.Trailing
	convShown := !(f.narrow && show)
	if list.Visible() != show || conv.Visible() != convShown {
		setShown(list, show)
		setShown(conv, convShown)
		f.split.Refresh()
	}
	f.m.header.listFolded(!show)
}

// setShown shows o, or hides it.
func setShown(o fyne.CanvasObject, shown bool) {
	if shown {
		o.Show()
	} else {
		o.Hide()
	}
}
