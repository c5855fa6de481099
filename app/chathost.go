package app

import "parley/app/chatview"

// newChatView makes the main window's chat view, whose rows act through the window and say
// errors in the window's words.
func newChatView(m *mainWindow) *chatview.View {
	return chatview.New(chatview.Config{
		Host:   chatHost{m},
		Phrase: func(err error) string { return phrase(err).text },
		Do:     m.u.do,
		Now:    m.u.deps.Now,
	})
}

// chatHost is the main window as the chat view's rows see it.
type chatHost struct{ m *mainWindow }

func (h chatHost) CopyText(text string)        { h.m.copyText(text) }
func (h chatHost) OpenLink(url string)         { h.m.openLink(url) }
func (h chatHost) HoverLink(url, title string) { h.m.hoverLink(url, title) }
func (h chatHost) Selecting()                  { h.m.selecting() }
func (h chatHost) Speak(text string)           { h.m.speak(text) }
func (h chatHost) StopWaiting()                { h.m.stopWaiting() }
func (h chatHost) Retry(key int64)             { h.m.retry(key) }
func (h chatHost) EditTurn(key int64)          { h.m.editTurn(key) }
func (h chatHost) EditMessage(text string)     { h.m.editMessage(text) }
func (h chatHost) Regenerate(question string)  { h.m.regenerate(question) }
