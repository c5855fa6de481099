package chatview

import (
	"slices"

	"fyne.io/fyne/v2/widget"
)

// What the view shows, read back as a person would read it: for the tests of a window that
// holds a View, which drive the window and look at the messages it shows.

// Rows are the rows the view shows now, the oldest first.
func (c *View) Rows() []Row { return slices.Clone(c.rows) }

// Draw draws row i apart from the list, as the list draws it (nil when there is no row i).
func (c *View) Draw(i int) *Bubble {
	if i < 0 || i >= len(c.rows) {
		return nil
	}
	b := newBubble(c)
	b.id = i
	b.set(c.rows[i])
	return b
}

// Row is the row the bubble shows.
func (b *Bubble) Row() Row { return b.r }

// Meta is the line under the bubble: the time, or what became of a message and what it cost.
func (b *Bubble) Meta() string { return b.meta.Text }

// Retry is the button that sends a failed message again ("Retry", or "Send again" for one whose
// reply was lost), hidden unless the row offers it.
func (b *Bubble) Retry() *widget.Button { return b.retryBtn }

// Edit is the button that takes a failed message back into the composer, hidden unless the row
// offers it.
func (b *Bubble) Edit() *widget.Button { return b.editBtn }

// Revise is the button that puts a message of the person's in the composer to edit and send
// again; Regenerate the one that sends the last reply's question again (hidden unless the row
// offers them).
func (b *Bubble) Revise() *widget.Button     { return &b.reviseBtn.Button }
func (b *Bubble) Regenerate() *widget.Button { return &b.regenBtn.Button }

// Stop is the Stop of the row that shows "Thinking…" (nil when the bubble shows another row).
func (b *Bubble) Stop() *widget.Button {
	if b.thinking.Hidden {
		return nil
	}
	return b.stopBtn
}

// InView reports whether row i is in view: whole, or from its top when it is taller than the
// view.
func (c *View) InView(i int) bool {
	if i < 0 || i >= len(c.heights) {
		return false
	}
	off, h := c.list.GetScrollOffset(), c.list.Size().Height
	top, bottom := c.rowTop(i), c.rowTop(i+1)
	return top >= off-1 && (bottom <= off+h+1 || top <= off+1)
}
