package app

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"parley/conversation/export"
	"parley/internal/atomicfile"
)

// exportFormat is the file format of an export.
type exportFormat int

const (
	exportMarkdown exportFormat = iota
	exportJSON
)

// export saves the conversation on screen through a file dialog; package export writes it.
func (m *mainWindow) export(f exportFormat) {
	u := m.u
	if m.current == nil {
		return
	}
	v := m.sess.Snapshot(m.current)
	if len(v.Messages) == 0 {
		m.status.flash(lang.L("There is nothing to export yet."))
		return
	}
	c := export.Conversation{ID: v.ID, Config: v.Config, Messages: v.Messages}
	if !v.ID.IsZero() {
		c.Title = m.currentEntry().Title
	}
	ext, write := ".md", export.Markdown
	if f == exportJSON {
		ext, write = ".json", export.JSON
	}
	u.askExportPath(filepath.Join(exportFolder(), fileNameFor(c.DisplayTitle())+ext), ext,
		func(w io.Writer) error { return write(w, c) })
}

// exportFolder is where an export goes first: the person's Documents folder, else home.
func exportFolder() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return "."
	}
	if docs := filepath.Join(home, "Documents"); isDir(docs) {
		return docs
	}
	return home
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// askExportPath asks where to save an export, starting from path: a field that has the
// keyboard (Enter saves, Escape cancels) and a button that opens a folder chooser. A file
// that exists is replaced only when the person says so.
func (u *UI) askExportPath(path, ext string, write func(io.Writer) error) {
	keys := &dialogKeys{}
	name, problem := textAndProblem(keys, path)
	var d *dialog.CustomDialog
	fail := func(msg string) {
		problem.SetText(msg)
		problem.Show()
	}
	save := func(target string) {
		if err := atomicfile.Write(target, 0o666, write); err != nil {
			fail(exportFailure(err, target))
			return
		}
		d.Hide()
		u.offerFolder(target)
	}
	keys.submit = func() {
		target := exportTarget(name.Text, filepath.Dir(path))
		switch {
		case target == "":
			fail(lang.L("Enter a file name."))
			return
		case isDir(target):
			fail(fmt.Sprintf(lang.L("%s is a folder: add a file name, such as conversation%s."), target, ext))
			return
		case !isDir(filepath.Dir(target)):
			fail(fmt.Sprintf(lang.L("The folder %s does not exist: choose another."), filepath.Dir(target)))
			return
		}
		if _, err := os.Stat(target); err == nil {
			u.confirm(lang.L("Replace the file?"), fmt.Sprintf(lang.L("%s already exists in %s. Replace it?"), filepath.Base(target), filepath.Dir(target)),
				lang.L("Replace"), true, func(ok bool) {
					if ok {
						save(target)
					}
				})
			return
		}
		save(target)
	}
	keys.cancel = func() { d.Hide() }
	choose := newButton(keys, lang.L("Choose folder…"), theme.FolderOpenIcon(), func() {
		fd := dialog.NewFolderOpen(func(dir fyne.ListableURI, err error) {
			if err == nil && dir != nil && u.topDialog() != nil {
				name.SetText(filepath.Join(dir.Path(), filepath.Base(name.Text)))
			}
		}, u.win)
		if l, err := storage.ListerForURI(storage.NewFileURI(filepath.Dir(exportTarget(name.Text, filepath.Dir(path))))); err == nil {
			fd.SetLocation(l)
		}
		fd.Resize(fyne.NewSize(760, 520))
		// On the dialogs' stack, so that Escape closes the chooser (not the export under it)
		// and Enter does not export behind it.
		u.showDialog(fd, &dialogKeys{cancel: fd.Hide}, nil)
	})
	no := newButton(keys, lang.L("Cancel"), theme.CancelIcon(), keys.cancel)
	ok := newButton(keys, lang.L("Export"), theme.DocumentSaveIcon(), keys.submit)
	ok.Importance = widget.HighImportance
	d = dialog.NewCustomWithoutButtons(lang.L("Export conversation"), container.NewVBox(
		newForm(widget.NewFormItem(lang.L("Save as"), name)), problem,
		border(nil, nil, choose, container.NewHBox(no, ok))), u.win)
	d.Resize(fyne.NewSize(620, 0))
	u.showDialog(d, keys, name)
}

// exportTarget is the file a person typed: "~" is their home folder, and a name or path
// without a folder from the root is in folder (where the suggested file is).
func exportTarget(typed, folder string) string {
	target := strings.TrimSpace(typed)
	if target == "" {
		return ""
	}
	if home, err := os.UserHomeDir(); err == nil {
		switch {
		case target == "~":
			target = home
		case strings.HasPrefix(target, "~"+string(filepath.Separator)):
			target = filepath.Join(home, target[2:])
		}
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(folder, target)
	}
	return filepath.Clean(target)
}

// exportFailure says why an export could not be written, and what to do.
func exportFailure(err error, target string) string {
	dir := filepath.Dir(target)
	switch {
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EROFS):
		return fmt.Sprintf(lang.L("Not exported: Parley may not write in %s. Choose another folder."), dir)
	case errors.Is(err, syscall.ENOSPC):
		return fmt.Sprintf(lang.L("Not exported: the disk holding %s is full. Free some space, or choose another folder."), dir)
	}
	return fmt.Sprintf(lang.L("Not exported to %s: %s"), target, phrase(err).text)
}

// fileNameFor makes a file name from a title: letters, digits and dashes.
func fileNameFor(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r > 127 && r != '…':
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	name := strings.Trim(b.String(), "-")
	if name == "" {
		name = "conversation"
	}
	return name
}

// exportedFor is how long the status bar offers to open an export's folder.
const exportedFor = 10 * time.Second

// offerFolder says where an export was saved, with Open folder, which opens the folder in the
// system's file manager (a file:// address, opened as a link is).
func (u *UI) offerFolder(target string) {
	if u.main == nil {
		return
	}
	dir := filepath.Dir(target)
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	folder := &url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}
	if !strings.HasPrefix(folder.Path, "/") {
		folder.Path = "/" + folder.Path // C:/Users/… is file:///C:/Users/…, not a host "C:"
	}
	u.main.status.offer(fmt.Sprintf(lang.L("Exported to %s."), target), lang.L("Open folder"), func() {
		if err := u.deps.openURL(folder); err != nil {
			u.flash(fmt.Sprintf(lang.L("The folder could not be opened: %s. It is %s."), err.Error(), dir))
		}
	}, exportedFor)
}
