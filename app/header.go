package app

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"parley/conversation"
)

// header is the top of the conversation: its title, the persona chip that opens the settings,
// and the conversation's menu.
type header struct {
	host    headerHost
	title   *widget.Label
	persona *button
	voice   *widget.Button
	list    *button // shows the conversation list folded away
	box     *fyne.Container
	menu    *widget.PopUpMenu // the ⋮ menu opened last
}

// headerHost is what the header's buttons and menu need from the window.
type headerHost interface {
	showSettings()
	export(f exportFormat)
	deleteConversation(e conversation.Entry)
	renameConversation(e conversation.Entry)
	togglePin(e conversation.Entry)
	// currentEntry is the entry of the conversation on screen (zero for a new one).
	currentEntry() conversation.Entry
	toggleVoiceMode()
	toggleSidebar()
	// presetOf is the name of the preset whose persona persona is ("" when none is).
	presetOf(persona string) string
}

func newHeader(u headerHost, canvas fyne.Canvas) *header {
	h := &header{host: u}
	h.title = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	h.title.Truncation = fyne.TextTruncateEllipsis
	h.persona = newIconButton(nil, lang.L("Conversation settings"), theme.AccountIcon(), u.showSettings)
	h.persona.Importance = widget.LowImportance
	var menuBtn *button
	menuBtn = newIconButton(nil, lang.L("Conversation menu"), theme.MoreVerticalIcon(), func() {
		e := u.currentEntry()
		rename := fyne.NewMenuItem(lang.L("Rename…"), func() { u.renameConversation(e) })
		pin := fyne.NewMenuItem(pinLabel(e), func() { u.togglePin(e) })
		del := fyne.NewMenuItem(lang.L("Delete"), func() { u.deleteConversation(e) })
		rename.Disabled, pin.Disabled, del.Disabled = e.ID.IsZero(), e.ID.IsZero(), e.ID.IsZero()
		menu := fyne.NewMenu("",
			fyne.NewMenuItem(lang.L("Settings…"), u.showSettings),
			rename,
			pin,
			fyne.NewMenuItem(lang.L("Export as Markdown…"), func() { u.export(exportMarkdown) }),
			fyne.NewMenuItem(lang.L("Export as JSON…"), func() { u.export(exportJSON) }),
			fyne.NewMenuItemSeparator(),
			del,
		)
		pop := widget.NewPopUpMenu(menu, canvas)
		h.menu = pop
		pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(menuBtn)
		pop.ShowAtPosition(menuPosition(pos, menuBtn.Size(), pop.MinSize(), canvas.Size()))
	})
	menuBtn.Importance = widget.LowImportance
	h.voice = widget.NewButtonWithIcon(lang.L("Voice mode"), micIcon, u.toggleVoiceMode)
	h.voice.Importance = widget.LowImportance
	h.list = newIconButton(nil, lang.L("Show the conversations (Ctrl+B)"), theme.MenuIcon(), u.toggleSidebar)
	h.list.Importance = widget.LowImportance
	h.list.Hide()
	h.box = container.NewVBox(
		border(nil, nil, h.list, container.NewHBox(h.voice, h.persona, menuBtn), h.title),
		widget.NewSeparator())
	return h
}

func (h *header) object() fyne.CanvasObject { return h.box }

// menuPosition is where a menu of size menu opens under a button at btn of size size, in a
// window of size win: its right edge under the button's (the button is at the window's right),
// a padding away from the window's edges so that its border and shadow show, and above the
// button when there is no room under it.
func menuPosition(btn fyne.Position, size, menu, win fyne.Size) fyne.Position {
	pad := theme.Padding()
	x := btn.X + size.Width - menu.Width
	x = max(pad, min(x, win.Width-menu.Width-pad))
	y := btn.Y + size.Height
	if y+menu.Height > win.Height-pad && btn.Y-menu.Height >= pad {
		y = btn.Y - menu.Height
	}
	return fyne.NewPos(x, y)
}

// listFolded shows the list button while the conversation list is folded away.
func (h *header) listFolded(folded bool) {
	if h.list.Visible() != folded {
		h.list.Hidden = !folded
		h.box.Refresh()
	}
}

// voiceOn shows whether voice mode runs: its button then ends it.
func (h *header) voiceOn(on bool) {
	if on {
		h.voice.SetText(lang.L("End voice mode"))
		h.voice.Importance = widget.HighImportance
	} else {
		h.voice.SetText(lang.L("Voice mode"))
		h.voice.Importance = widget.LowImportance
	}
	h.voice.Refresh()
}

// refreshFrom shows v's title and persona (v is the conversation on screen).
func (h *header) refreshFrom(v conversation.ThreadView) {
	title := lang.L("New conversation")
	if !v.ID.IsZero() {
		e := h.host.currentEntry()
		title = e.DisplayTitle()
		// The service may call it by the English default too.
		if (e.Untitled() || title == conversation.DefaultTitle) && len(v.Messages) > 0 {
			title = conversation.TitleFrom(v.Messages[0].Text)
		}
	}
	h.title.SetText(title)
	chip := personaChip(v.Config.Persona)
	name := fmt.Sprintf(lang.L("Conversation settings, persona: %s"), chip)
	if p := v.Config.Persona; p != nil && strings.TrimSpace(*p) != "" {
		if preset := h.host.presetOf(*p); preset != "" {
			chip = preset
			name = fmt.Sprintf(lang.L("Conversation settings, persona: preset %s"), preset)
		}
	}
	h.persona.name = name
	h.persona.SetText(chip)
}

// pinLabel is the menu item that pins e, or unpins it.
func pinLabel(e conversation.Entry) string {
	if e.Pinned {
		return lang.L("Unpin")
	}
	return lang.L("Pin to the top")
}

// personaChip is the persona's first words, or "No persona".
func personaChip(p *string) string {
	if p == nil || strings.TrimSpace(*p) == "" {
		return lang.L("No persona")
	}
	t := conversation.TitleFrom(*p)
	if len([]rune(t)) > 28 {
		t = string([]rune(t)[:27]) + "…"
	}
	return t
}
