package app

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2/lang"

	"parley/conversation"
)

// Edit and resend, regenerate: the service has no operation for either, so both are new turns
// of the conversation, sent only when the person asks, and charged like any message.

// editMessage puts text, a message the person sent earlier, in the message box to be edited and
// sent as a new message (what was being written stays, above it).
func (m *mainWindow) editMessage(text string) {
	if m.current == nil || text == "" {
		return
	}
	if cur := m.composer.text(); cur != "" && cur != text {
		text = cur + "\n" + text
	}
	m.composer.setText(text)
	m.focusComposer()
	m.status.flash(lang.L("Edit the message and press Enter: it is sent as a new message, charged like any."))
}

// regenerate asks whether to send question, the one the last reply answers, again as a new
// message, and sends it if so.
func (m *mainWindow) regenerate(question string) {
	th := m.current
	if th == nil || question == "" {
		return
	}
	m.confirm(lang.L("Regenerate the reply?"), fmt.Sprintf(lang.L("“%s” is sent again as a new message, and its reply is charged like any message. The reply shown now stays above it."),
		shorten(strings.Join(strings.Fields(question), " "), 80)), lang.L("Regenerate"), false, func(ok bool) {
		// Sent only if it is still the question of the conversation's last reply: another
		// message may have been sent meanwhile (voice mode, a queued one).
		if q, last := m.lastQuestion(); ok && m.u.main == m && m.current == th && last && q == question {
			m.send(question)
		}
	})
}

// lastQuestion is the conversation's last message of the person's, and whether the last reply
// answers it with nothing waiting after it (Regenerate may send it again).
func (m *mainWindow) lastQuestion() (question string, answered bool) {
	if m.current == nil {
		return "", false
	}
	v := m.sess.Snapshot(m.current)
	for i := len(v.Messages) - 1; i >= 0; i-- {
		if v.Messages[i].Role == conversation.User {
			answered = i == len(v.Messages)-2 && len(v.Turns) == 0
			return v.Messages[i].Text, answered
		}
	}
	return "", false
}

// editLast puts the person's last message in the message box (the Conversation menu's "Edit the
// last message").
func (m *mainWindow) editLast() {
	if q, _ := m.lastQuestion(); q != "" {
		m.editMessage(q)
		return
	}
	m.status.flash(lang.L("There is no message of yours in this conversation to edit."))
}

// regenerateLast offers to send the last question again (the Conversation menu's "Regenerate
// the last reply").
func (m *mainWindow) regenerateLast() {
	if q, ok := m.lastQuestion(); ok {
		m.regenerate(q)
		return
	}
	m.status.flash(lang.L("There is no reply to regenerate: the conversation must end with a reply."))
}
