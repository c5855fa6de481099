package app

import (
	"fmt"
	"image/color"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"parley/archive"
	"parley/client"
	"parley/conversation"
)

// loadAhead is how close to the end of the list a shown row must be for the next page to load.
const loadAhead = 30

// sidebar is the conversation list: a search box, a New button and a virtualized list.
type sidebar struct {
	host    sidebarHost
	index   conversationIndex
	canvas  fyne.Canvas
	now     func() time.Time
	do      func(func())
	times   *time.Timer // refreshes the rows' times when the soonest of them changes
	stopped bool        // the sidebar is no longer shown: its timer is not set again
	search  *searchField
	list    *conversationList
	items   []conversation.Entry // what the list shows: the search's result
	// hits are the messages the search found in the archive (the query they are for in
	// hitsFor), by conversation ID; hitsAsked counts the searches asked, to keep the last.
	hits      map[string]archive.Hit
	hitsOrder []archive.Hit
	hitsFor   string
	hitsAsked int
	errLine   *widget.Label
	errBox    *fyne.Container
	noMatch   *widget.Label
	selecting bool // a selection made by the code, not the person
	searching bool // a search of the messages is due (indexChanged)
	box       fyne.CanvasObject
}

// sidebarHost is what the conversation list needs from the window.
type sidebarHost interface {
	open(id client.ConversationID)
	newConversation()
	deleteConversation(e conversation.Entry)
	renameConversation(e conversation.Entry)
	togglePin(e conversation.Entry)
	// currentEntry is the entry of the conversation on screen (zero for a new one).
	currentEntry() conversation.Entry
	focusComposer()
	// searchMessages finds the messages of every conversation indexed with the words of query,
	// in the background, and gives them to done on the window's goroutine.
	searchMessages(query string, done func([]archive.Hit))
	// openAt shows conversation id at its message number message (0 the first).
	openAt(id client.ConversationID, message int)
	// undoLastDelete brings back the conversation deleted last, while Undo is offered.
	undoLastDelete()
}

// conversationIndex is the list of conversations as the sidebar reads it; *conversation.Session
// is one.
type conversationIndex interface {
	Search(query string) []conversation.Entry
	Entries() (entries []conversation.Entry, more bool)
	ListErr() error
	LoadMore()
}

func newSidebar(host sidebarHost, index conversationIndex, canvas fyne.Canvas, now func() time.Time, do func(func())) *sidebar {
	s := &sidebar{host: host, index: index, canvas: canvas, now: now, do: do}
	s.search = newSearchField(s)
	s.search.SetPlaceHolder(s.search.places[0])
	s.search.OnChanged = func(string) {
		s.refresh()
		s.searchMessages()
		s.list.ScrollToTop() // a new query's results start at their top
	}
	s.search.OnSubmitted = func(string) {
		// Enter in the search opens the first conversation found.
		if len(s.items) > 0 {
			s.openItem(0)
		}
	}
	s.search.ActionItem = newIconButton(nil, lang.L("Clear the search"), theme.CancelIcon(), func() {
		s.search.SetText("")
		host.focusComposer()
	})
	newBtn := widget.NewButtonWithIcon(lang.L("New conversation"), theme.ContentAddIcon(), host.newConversation)
	newBtn.Importance = widget.HighImportance

	s.list = newConversationList(s)
	s.errLine = widget.NewLabel("")
	s.errLine.Wrapping = fyne.TextWrapWord
	retry := widget.NewButtonWithIcon(lang.L("Retry"), theme.ViewRefreshIcon(), func() {
		s.errBox.Hide()
		index.LoadMore()
	})
	s.errBox = container.NewVBox(s.errLine, retry)
	s.errBox.Hide()

	s.noMatch = widget.NewLabelWithStyle(lang.L("No conversation matches."), fyne.TextAlignCenter, fyne.TextStyle{})
	s.noMatch.Importance = widget.LowImportance
	s.noMatch.Hide()
	top := container.NewVBox(newBtn, s.search, s.errBox, s.noMatch)
	s.box = border(container.NewPadded(top), nil, nil, nil, s.list)
	return s
}

func (s *sidebar) object() fyne.CanvasObject { return s.box }

// refresh takes the list and the search result from the session again, with the messages the
// archive found for the search.
func (s *sidebar) refresh() {
	s.items = s.index.Search(s.search.Text)
	if strings.TrimSpace(s.search.Text) != "" && s.hitsFor == s.search.Text {
		have := make(map[string]bool, len(s.items))
		for _, e := range s.items {
			have[e.ID.String()] = true
		}
		for _, h := range s.hitsOrder {
			if have[h.Conversation] {
				continue
			}
			id, err := client.ParseConversationID(h.Conversation)
			if err != nil {
				continue
			}
			have[h.Conversation] = true
			s.items = append(s.items, conversation.Entry{ID: id, Title: h.Title, UpdatedAt: h.At})
		}
	}
	s.noMatch.Hidden = len(s.items) > 0 || strings.TrimSpace(s.search.Text) == ""
	s.noMatch.Refresh()
	if s.index.ListErr() == nil {
		s.errBox.Hide()
	}
	s.list.Refresh()
	s.selectCurrent()
	s.scheduleTimes()
}

// maxMessageHits bounds the conversations a search of the messages shows.
const maxMessageHits = 50

// searchMessages asks the archive for the messages with the search's words; the list shows
// them when they come, if the search is still the same.
func (s *sidebar) searchMessages() {
	q := s.search.Text
	s.hitsAsked++
	asked := s.hitsAsked
	if strings.TrimSpace(q) == "" {
		s.hits, s.hitsOrder, s.hitsFor = nil, nil, ""
		return
	}
	s.host.searchMessages(q, func(hits []archive.Hit) {
		if asked != s.hitsAsked || s.stopped {
			return // a later search was asked meanwhile
		}
		s.hitsFor, s.hitsOrder = q, hits
		s.hits = make(map[string]archive.Hit, len(hits))
		for _, h := range hits {
			s.hits[h.Conversation] = h
		}
		s.refresh()
	})
}

// indexChanged searches the messages again after the archive indexed more of them, while a
// search shows.
func (s *sidebar) indexChanged() {
	if strings.TrimSpace(s.search.Text) != "" && !s.searching {
		s.searching = true
		time.AfterFunc(time.Second, func() { // at most once a second while the index fills
			s.do(func() {
				s.searching = false
				s.searchMessages()
			})
		})
	}
}

// openItem opens the conversation of row i: at the message the search found, when it found one.
func (s *sidebar) openItem(i int) {
	if i < 0 || i >= len(s.items) {
		return
	}
	e := s.items[i]
	if h, ok := s.hit(e); ok {
		s.host.openAt(e.ID, h.Seq)
		return
	}
	s.host.open(e.ID)
}

// hit is the message the search found in e's conversation, while a search shows.
func (s *sidebar) hit(e conversation.Entry) (archive.Hit, bool) {
	if strings.TrimSpace(s.search.Text) == "" || s.hitsFor != s.search.Text {
		return archive.Hit{}, false
	}
	h, ok := s.hits[e.ID.String()]
	return h, ok
}

// scheduleTimes sets a timer for when the soonest of the rows' times ("just now", "5 min ago")
// reads differently, which shows them again; nothing wakes the window before that.
func (s *sidebar) scheduleTimes() {
	if s.times != nil {
		s.times.Stop()
		s.times = nil
	}
	now := s.now()
	var next time.Time
	for _, it := range s.items {
		if c := conversation.RelativeTimeChanges(it.UpdatedAt, now); !c.IsZero() && (next.IsZero() || c.Before(next)) {
			next = c
		}
	}
	if next.IsZero() || s.stopped {
		return
	}
	s.times = time.AfterFunc(next.Sub(now), func() {
		s.do(func() {
			if s.stopped {
				return
			}
			s.list.Refresh() // the rows set only the times that changed
			s.scheduleTimes()
		})
	})
}

// stop ends the timer of the rows' times.
func (s *sidebar) stop() {
	s.stopped = true
	if s.times != nil {
		s.times.Stop()
	}
}

// showError says why the list could not be read, with Retry.
func (s *sidebar) showError(err error) {
	s.errLine.SetText(fmt.Sprintf(lang.L("The conversation list could not be read. %s"), phrase(err).text))
	s.errBox.Show()
}

// selectCurrent highlights the conversation on screen, or nothing for a new one.
func (s *sidebar) selectCurrent() {
	e := s.host.currentEntry()
	s.selecting = true
	defer func() { s.selecting = false }()
	if e.ID.IsZero() {
		s.list.UnselectAll()
		return
	}
	for i, it := range s.items {
		if it.ID == e.ID {
			s.list.Select(i)
			return
		}
	}
	s.list.UnselectAll()
}

// focusSearch puts the keyboard in the search box.
func (s *sidebar) focusSearch() { s.canvas.Focus(s.search) }

// searchField is the search box: Down goes to the conversations found, Escape empties it and
// goes back to the message box.
type searchField struct {
	textEntry
	s      *sidebar
	places placeholders // what the empty search says, as the width allows
}

func newSearchField(s *sidebar) *searchField {
	f := &searchField{s: s, places: placeholders{lang.L("Search conversations"), lang.L("Search")}}
	f.ExtendBaseWidget(f)
	return f
}

// Resize shows the longest placeholder that fits.
func (f *searchField) Resize(size fyne.Size) {
	f.Entry.Resize(size)
	f.places.apply(&f.Entry, size.Width)
}

func (f *searchField) TypedKey(ev *fyne.KeyEvent) {
	switch ev.Name {
	case fyne.KeyDown:
		if len(f.s.items) > 0 {
			f.s.canvas.Focus(f.s.list)
		}
	case fyne.KeyEscape:
		f.SetText("")
		f.s.host.focusComposer()
	default:
		f.Entry.TypedKey(ev)
	}
}

// conversationList is the virtualized list. From the keyboard: Up, Down, Home, End, Page Up
// and Page Down move the selection (which shows the keyboard's place while the list has it),
// Enter or Space opens the conversation selected, F2 renames it, Delete deletes it (with Undo in
// the status bar, and Ctrl+Z), Escape goes back to the message box, and typing searches.
type conversationList struct {
	widget.List
	s       *sidebar
	focused bool
	cursor  int     // the row the keyboard is on
	rowH    float32 // the height of a row with the space between rows, once measured
}

func newConversationList(s *sidebar) *conversationList {
	l := &conversationList{s: s}
	l.Length = func() int { return len(s.items) }
	l.CreateItem = func() fyne.CanvasObject { return newConversationRow(s) }
	l.UpdateItem = func(id widget.ListItemID, o fyne.CanvasObject) {
		if id >= len(s.items) {
			return
		}
		o.(*conversationRow).set(id, s.items[id])
		if _, more := s.index.Entries(); more && id >= len(s.items)-loadAhead && s.search.Text == "" {
			s.index.LoadMore()
		}
	}
	l.OnSelected = func(id widget.ListItemID) {
		if s.selecting || id >= len(s.items) {
			return
		}
		s.openItem(id)
	}
	l.ExtendBaseWidget(l)
	return l
}

// FocusGained puts the keyboard on the conversation on screen, or the first.
func (l *conversationList) FocusGained() {
	l.focused = true
	l.cursor = 0
	if id := l.s.host.currentEntry().ID; !id.IsZero() {
		for i, it := range l.s.items {
			if it.ID == id {
				l.cursor = i
			}
		}
	}
	l.moveTo(l.cursor)
}

// FocusLost shows the conversation on screen as selected again.
func (l *conversationList) FocusLost() {
	l.focused = false
	l.RefreshItem(l.cursor)
	l.s.selectCurrent()
}

// TypedKey moves, opens and deletes (see conversationList).
func (l *conversationList) TypedKey(ev *fyne.KeyEvent) {
	page := l.page()
	switch ev.Name {
	case fyne.KeyUp:
		l.moveTo(l.cursor - 1)
	case fyne.KeyDown:
		l.moveTo(l.cursor + 1)
	case fyne.KeyHome:
		l.moveTo(0)
	case fyne.KeyEnd:
		l.moveTo(len(l.s.items) - 1)
	case fyne.KeyPageUp:
		l.moveTo(l.cursor - page)
	case fyne.KeyPageDown:
		l.moveTo(l.cursor + page)
	case fyne.KeyReturn, fyne.KeyEnter, fyne.KeySpace:
		if _, ok := l.entry(); ok {
			l.s.openItem(l.cursor)
		}
	case fyne.KeyDelete:
		if e, ok := l.entry(); ok {
			l.s.host.deleteConversation(e)
		}
	case fyne.KeyF2:
		if e, ok := l.entry(); ok {
			l.s.host.renameConversation(e)
		}
	case fyne.KeyEscape:
		l.s.host.focusComposer()
	}
}

// TypedShortcut: Ctrl+Z brings back the conversation just deleted (while Undo is offered).
func (l *conversationList) TypedShortcut(sc fyne.Shortcut) {
	c, custom := sc.(*desktop.CustomShortcut)
	if _, undo := sc.(*fyne.ShortcutUndo); undo || custom && c.KeyName == fyne.KeyZ && c.Modifier == fyne.KeyModifierShortcutDefault {
		l.s.host.undoLastDelete()
	}
}

// TypedRune starts a search with the character typed (Space opens, in TypedKey).
func (l *conversationList) TypedRune(r rune) {
	if r == ' ' {
		return
	}
	l.s.canvas.Focus(l.s.search)
	l.s.search.TypedRune(r)
}

// entry is the conversation the keyboard is on.
func (l *conversationList) entry() (conversation.Entry, bool) {
	if l.cursor < 0 || l.cursor >= len(l.s.items) {
		return conversation.Entry{}, false
	}
	return l.s.items[l.cursor], true
}

// moveTo puts the keyboard on row i (kept within the list), selecting it without opening it.
func (l *conversationList) moveTo(i int) {
	n := len(l.s.items)
	if n == 0 {
		return
	}
	i = min(max(i, 0), n-1)
	old := l.cursor
	l.cursor = i
	l.s.selecting = true
	l.Select(i) // also scrolls to it
	l.s.selecting = false
	l.RefreshItem(old)
	l.RefreshItem(i)
}

// page is how many rows Page Up and Page Down move: the rows the list shows, less one.
func (l *conversationList) page() int {
	if l.rowH == 0 {
		l.rowH = newConversationRow(l.s).MinSize().Height + theme.Padding()
	}
	return max(1, int(l.Size().Height/l.rowH)-1)
}

// conversationRow is one line of the list: the title and when it last changed. A right click
// offers Delete.
type conversationRow struct {
	widget.BaseWidget
	s     *sidebar
	index widget.ListItemID
	entry conversation.Entry
	title *widget.Label
	when  *widget.Label
	// snippet shows, in the place of the time, the words a search found in a message.
	snippet *widget.RichText
	shown   []archive.Piece   // the snippet's pieces shown
	ring    *canvas.Rectangle // shows the keyboard's place while the list has it
}

func newConversationRow(s *sidebar) *conversationRow {
	r := &conversationRow{s: s, title: widget.NewLabel(""), when: widget.NewLabel("")}
	r.ring = canvas.NewRectangle(color.Transparent)
	r.ring.StrokeColor = focusRingColor()
	r.ring.StrokeWidth = 2
	r.ring.CornerRadius = theme.InputRadiusSize()
	r.ring.Hide()
	r.title.Truncation = fyne.TextTruncateEllipsis
	r.title.TextStyle.Bold = true
	r.when.SizeName = theme.SizeNameCaptionText
	r.snippet = widget.NewRichText()
	r.snippet.Truncation = fyne.TextTruncateEllipsis
	r.snippet.Hide()
	r.ExtendBaseWidget(r)
	return r
}

func (r *conversationRow) set(index widget.ListItemID, e conversation.Entry) {
	r.index, r.entry = index, e
	if ring := r.s.list.focused && r.s.list.cursor == index; ring == r.ring.Hidden {
		r.ring.Hidden = !ring
		r.ring.Refresh()
	}
	// SetText lays the text out again; skip it when nothing changed.
	if t := e.DisplayTitle(); t != r.title.Text {
		r.title.SetText(t)
	}
	w := conversation.RelativeTime(e.UpdatedAt, r.s.now())
	if e.Pinned && w == "" {
		w = lang.L("Pinned")
	} else if e.Pinned {
		w = fmt.Sprintf(lang.L("Pinned · %s"), w)
	}
	if w != r.when.Text {
		r.when.SetText(w)
	}
	h, found := r.s.hit(e)
	r.setSnippet(h.Snippet, found)
}

// setSnippet shows the words found (marked in bold) in the place of the time, or the time.
func (r *conversationRow) setSnippet(pieces []archive.Piece, show bool) {
	if show == r.snippet.Visible() && slices.Equal(pieces, r.shown) {
		return
	}
	r.shown = pieces
	r.when.Hidden = show
	r.snippet.Hidden = !show
	segs := make([]widget.RichTextSegment, 0, len(pieces))
	for _, p := range pieces {
		style := widget.RichTextStyleInline
		style.SizeName = theme.SizeNameCaptionText
		if p.Match {
			style.TextStyle.Bold = true
			style.ColorName = theme.ColorNamePrimary
		}
		segs = append(segs, &widget.TextSegment{Text: p.Text, Style: style})
	}
	r.snippet.Segments = segs
	r.snippet.Refresh()
	r.Refresh()
}

func (r *conversationRow) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewStack(r.ring, container.New(&rowStack{}, r.title, container.NewStack(r.when, r.snippet))))
}

// Tapped opens the conversation. (A row that takes right clicks must take left clicks too: the
// list under it no longer sees them.)
func (r *conversationRow) Tapped(*fyne.PointEvent) {
	r.s.list.UnselectAll()
	r.s.list.Select(r.index)
}

// TappedSecondary offers the row's actions.
func (r *conversationRow) TappedSecondary(ev *fyne.PointEvent) {
	r.s.showMenu(r.entry, ev.AbsolutePosition)
}

// showMenu offers e's actions at pos.
func (s *sidebar) showMenu(e conversation.Entry, pos fyne.Position) {
	menu := fyne.NewMenu("",
		fyne.NewMenuItem(lang.L("Open"), func() { s.host.open(e.ID) }),
		fyne.NewMenuItem(lang.L("Rename…"), func() { s.host.renameConversation(e) }),
		fyne.NewMenuItem(pinLabel(e), func() { s.host.togglePin(e) }),
		fyne.NewMenuItemSeparator(),
		fyne.NewMenuItem(lang.L("Delete"), func() { s.host.deleteConversation(e) }),
	)
	widget.ShowPopUpMenuAtPosition(menu, s.canvas, pos)
}

// rowStack lays out a title over a caption with little space between.
type rowStack struct{}

func (rowStack) MinSize(objs []fyne.CanvasObject) fyne.Size {
	a, b := objs[0].MinSize(), objs[1].MinSize()
	return fyne.NewSize(max(a.Width, b.Width), a.Height+b.Height-2*theme.Padding())
}

func (rowStack) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	a := objs[0].MinSize()
	objs[0].Move(fyne.NewPos(0, 0))
	objs[0].Resize(fyne.NewSize(size.Width, a.Height))
	y := a.Height - 2*theme.Padding()
	objs[1].Move(fyne.NewPos(0, y))
	objs[1].Resize(fyne.NewSize(size.Width, size.Height-y))
}
