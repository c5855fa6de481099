package app

import "parley/app/chatview"

// newChatView makes the main window's chat view, whose rows act through the window and say
// errors in the window's words.
func newChatView(u *UI) *chatview.View {
	return chatview.New(chatview.Config{
		Host:   chatHost{u},
		Phrase: func(err error) string { return phrase(err).text },
		Do:     u.do,
		Now:    u.deps.Now,
	})
}

// chatHost is the window as the chat view's rows see it.
type chatHost struct{ u *UI }

func (h chatHost) CopyText(text string)        { h.u.copyText(text) }
func (h chatHost) OpenLink(url string)         { h.u.openLink(url) }
func (h chatHost) HoverLink(url, title string) { h.u.hoverLink(url, title) }
func (h chatHost) Selecting()                  { h.u.selecting() }
func (h chatHost) Speak(text string)           { h.u.speak(text) }
func (h chatHost) StopWaiting()                { h.u.stopWaiting() }
func (h chatHost) Retry(key int64)             { h.u.retry(key) }
func (h chatHost) EditTurn(key int64)          { h.u.editTurn(key) }
