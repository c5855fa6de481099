package app

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"

	"parley/client"
	"parley/conversation"
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
	d := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		defer u.focusComposer()
		if err != nil || w == nil {
			if err != nil {
				u.status.flash("Not exported: " + phrase(err).text)
			}
			return
		}
		defer w.Close()
		var werr error
		if f == exportJSON {
			werr = writeConversationJSON(w, v, title)
		} else {
			werr = writeConversationMarkdown(w, v, title)
		}
		if werr != nil {
			u.status.flash("Not exported: " + phrase(werr).text)
			return
		}
		u.status.flash("Exported to " + w.URI().Name() + ".")
	}, u.win)
	d.SetFileName(fileNameFor(title) + ext)
	if f == exportJSON {
		d.SetFilter(storage.NewExtensionFileFilter([]string{".json"}))
	} else {
		d.SetFilter(storage.NewExtensionFileFilter([]string{".md"}))
	}
	d.Resize(fyne.NewSize(800, 560))
	d.Show()
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
	if s := describeConfig(v.Config); s != "the service's defaults" {
		fmt.Fprintf(&b, "_Settings: %s._\n\n", s)
	}
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
