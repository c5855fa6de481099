package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"parley/client"
	"parley/conversation"
	"parley/internal/atomicfile"
)

// exportFormat is the file format of an export.
type exportFormat int

const (
	exportMarkdown exportFormat = iota
	exportJSON
)

// export saves the conversation on screen through a file dialog.
func (u *UI) export(f exportFormat) {
	if u.current == nil {
		return
	}
	v := u.sess.Snapshot(u.current)
	if len(v.Messages) == 0 {
		u.status.flash("There is nothing to export yet.")
		return
	}
	title := u.currentEntry().DisplayTitle()
	if v.ID.IsZero() || title == conversation.DefaultTitle {
		title = conversation.TitleFrom(v.Messages[0].Text)
	}
	ext := ".md"
	if f == exportJSON {
		ext = ".json"
	}
	write := func(w io.Writer) error {
		if f == exportJSON {
			return writeConversationJSON(w, v, title)
		}
		return writeConversationMarkdown(w, v, title)
	}
	u.askExportPath(filepath.Join(exportFolder(), fileNameFor(title)+ext), ext, write)
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
		u.status.flash("Exported to " + target + ".")
	}
	keys.submit = func() {
		target := exportTarget(name.Text, filepath.Dir(path))
		switch {
		case target == "":
			fail("Enter a file name.")
			return
		case isDir(target):
			fail(target + " is a folder: add a file name, such as conversation" + ext + ".")
			return
		case !isDir(filepath.Dir(target)):
			fail("The folder " + filepath.Dir(target) + " does not exist: choose another.")
			return
		}
		if _, err := os.Stat(target); err == nil {
			u.confirm("Replace the file?", filepath.Base(target)+" already exists in "+filepath.Dir(target)+". Replace it?",
				"Replace", true, func(ok bool) {
					if ok {
						save(target)
					}
				})
			return
		}
		save(target)
	}
	keys.cancel = func() { d.Hide() }
	choose := newButton(keys, "Choose folder…", theme.FolderOpenIcon(), func() {
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
	no := newButton(keys, "Cancel", theme.CancelIcon(), keys.cancel)
	ok := newButton(keys, "Export", theme.DocumentSaveIcon(), keys.submit)
	ok.Importance = widget.HighImportance
	d = dialog.NewCustomWithoutButtons("Export conversation", container.NewVBox(
		widget.NewForm(widget.NewFormItem("Save as", name)), problem,
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
		return "Not exported: Parley may not write in " + dir + ". Choose another folder."
	case errors.Is(err, syscall.ENOSPC):
		return "Not exported: the disk holding " + dir + " is full. Free some space, or choose another folder."
	}
	return "Not exported to " + target + ": " + phrase(err).text
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

// writeConversationMarkdown writes the conversation as Markdown: the title, the settings, then
// each message under its author and time.
func writeConversationMarkdown(w io.Writer, v conversation.ThreadView, title string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", title)
	writeSettingsMarkdown(&b, v.Config)
	for _, m := range v.Messages {
		who := "Assistant"
		if m.Role == conversation.User {
			who = "You"
		}
		when := ""
		if !m.At.IsZero() {
			when = " · " + m.At.Local().Format("2 Jan 2006 15:04")
		}
		fmt.Fprintf(&b, "**%s**%s\n\n%s\n\n", who, when, strings.TrimSpace(m.Text))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeSettingsMarkdown writes the conversation's settings, the persona whole (as a quote, each
// of its lines kept), the numbers as they were set.
func writeSettingsMarkdown(b *strings.Builder, c client.Config) {
	var nums []string
	if c.Temperature != nil {
		nums = append(nums, "temperature "+settingNumber(*c.Temperature))
	}
	if c.TopP != nil {
		nums = append(nums, "top p "+settingNumber(*c.TopP))
	}
	if c.MaxTokens != nil {
		nums = append(nums, "max tokens "+strconv.Itoa(*c.MaxTokens))
	}
	if c.Persona != nil && strings.TrimSpace(*c.Persona) != "" {
		b.WriteString("_Persona:_\n\n")
		for _, line := range strings.Split(strings.TrimSpace(*c.Persona), "\n") {
			b.WriteString(strings.TrimRight("> "+line, " ") + "\n")
		}
		b.WriteString("\n")
	}
	if len(nums) > 0 {
		fmt.Fprintf(b, "_Settings: %s._\n\n", strings.Join(nums, ", "))
	}
}

// conversationExport is the JSON form of an export: the fields of `parley history --json`, plus
// the title, and without the IDs and times the service did not give.
type conversationExport struct {
	ConversationID client.ConversationID `json:"conversation_id"`
	Title          string                `json:"title"`
	Config         client.Config         `json:"config"`
	Messages       []exportedMessage     `json:"messages"`
}

type exportedMessage struct {
	ID        client.MessageID `json:"id,omitzero"`
	Role      string           `json:"role"`
	Content   string           `json:"content"`
	CreatedAt string           `json:"created_at,omitempty"`
}

// writeConversationJSON writes the conversation as JSON.
func writeConversationJSON(w io.Writer, v conversation.ThreadView, title string) error {
	out := conversationExport{ConversationID: v.ID, Title: title, Config: v.Config, Messages: []exportedMessage{}}
	for _, m := range v.Messages {
		role := "assistant"
		if m.Role == conversation.User {
			role = "user"
		}
		e := exportedMessage{ID: m.ID, Role: role, Content: m.Text}
		if !m.At.IsZero() {
			e.CreatedAt = m.At.UTC().Format(time.RFC3339Nano)
		}
		out.Messages = append(out.Messages, e)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}
