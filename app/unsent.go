package app

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2/lang"

	"parley/client"
	"parley/conversation"
	"parley/internal/i18n"
)

// What a person wrote and had no answer to survives the two moments that end a session: Parley
// quitting (a local model still writing when the built-in service's grace ran out, a reply that
// never came) and a switch to another service. Each conversation's message box and its
// unanswered messages are kept in the preferences, by service, and put back in that
// conversation's message box the next time the same service is used; nothing is sent again.
// A message that was sent may have been answered after all (a remote service finishes a call its
// client left): once its conversation's history shows it, it is not put back.

// unsentEntry is one conversation's kept text.
type unsentEntry struct {
	// Conversation is its ID; "" for a conversation not created yet.
	Conversation string `json:"conversation,omitempty"`
	// Title is its title in the list when it was kept ("" unknown), to say where the text went.
	Title string `json:"title,omitempty"`
	// Text is what goes back in its message box.
	Text string `json:"text"`
	// Sent are the messages that reached the service and may have been answered.
	Sent []string `json:"sent,omitempty"`
}

// maxUnsentServices bounds how many services' kept texts the preferences hold.
const maxUnsentServices = 8

// unsentService is what was kept for one service ("local", or the service's address).
type unsentService struct {
	Service string        `json:"service"`
	Entries []unsentEntry `json:"entries"`
}

// unsentStore is the preferences' record: the kept texts by service, most recent first.
type unsentStore []unsentService

func (p prefs) unsent() unsentStore {
	var s unsentStore
	if js := p.p.String(prefUnsent); js != "" {
		json.Unmarshal([]byte(js), &s) // an unreadable record is as good as none
	}
	return s
}

func (p prefs) setUnsent(s unsentStore) {
	if len(s) == 0 {
		p.p.RemoveValue(prefUnsent)
		return
	}
	js, _ := json.Marshal(s)
	p.p.SetString(prefUnsent, string(js))
}

// serviceKey names c's service in the record.
func (c *connection) serviceKey() string {
	if c.local {
		return serviceLocal
	}
	return c.baseURL
}

// keepUnsentText records, for the service in use, each conversation's message box and the
// messages without an answer, replacing what was kept for that service before.
func (m *mainWindow) keepUnsentText() {
	u := m.u
	if m.current != nil {
		m.drafts[m.current] = m.composer.text()
	}
	threads := m.sess.Opened()
	for th := range m.drafts {
		if !slices.Contains(threads, th) {
			threads = append(threads, th)
		}
	}
	titles := map[client.ConversationID]string{}
	list, _ := m.sess.Entries()
	for _, e := range list {
		titles[e.ID] = e.Title
	}
	var entries []unsentEntry
	newText := strings.TrimSpace(m.newDraft)
	for _, th := range threads {
		v := m.sess.Snapshot(th)
		if v.Deleted {
			continue
		}
		var texts, sent []string
		for _, t := range v.Turns {
			if t.State == conversation.Sending || t.State == conversation.Lost {
				sent = append(sent, t.Text)
			}
			texts = append(texts, t.Text)
		}
		if d := strings.TrimSpace(m.drafts[th]); d != "" {
			texts = append(texts, d)
		}
		if len(texts) == 0 {
			continue
		}
		if v.ID.IsZero() {
			newText = strings.TrimSpace(strings.Join(append(texts, newText), "\n"))
			continue
		}
		entries = append(entries, unsentEntry{Conversation: v.ID.String(), Title: titles[v.ID], Text: strings.Join(texts, "\n"), Sent: sent})
	}
	if newText != "" {
		entries = append(entries, unsentEntry{Text: newText})
	}
	key := m.conn.serviceKey()
	store := slices.DeleteFunc(u.prefs.unsent(), func(e unsentService) bool {
		return e.Service == key
	})
	if len(entries) > 0 {
		store = append(unsentStore{{Service: key, Entries: entries}}, store...)
	}
	if len(store) > maxUnsentServices {
		store = store[:maxUnsentServices]
	}
	u.prefs.setUnsent(store)
	m.newDraft = "" // kept with this service, not carried to the next
}

// restoreUnsentText puts back what was kept for the service in use, once, and says so.
func (m *mainWindow) restoreUnsentText() {
	u := m.u
	key := m.conn.serviceKey()
	store := u.prefs.unsent()
	i := slices.IndexFunc(store, func(e unsentService) bool {
		return e.Service == key
	})
	if i < 0 {
		return
	}
	entries := store[i].Entries
	u.prefs.setUnsent(slices.Delete(store, i, i+1))
	m.unsentSent = map[*conversation.Thread][]string{}
	var where []string // the conversations the text went back to; "" for the new one
	for _, e := range entries {
		text := strings.TrimSpace(e.Text)
		if text == "" {
			continue
		}
		if e.Conversation == "" {
			m.newDraft = strings.TrimSpace(text + "\n" + m.newDraft)
			if m.current != nil && m.isBlank(m.current) && strings.TrimSpace(m.composer.text()) == "" {
				m.composer.setText(m.newDraft)
				m.newDraft = ""
			}
			where = append(where, "")
			continue
		}
		id, err := client.ParseConversationID(e.Conversation)
		if err != nil {
			continue
		}
		th := m.sess.Open(id)
		m.drafts[th] = text
		if len(e.Sent) > 0 {
			m.unsentSent[th] = e.Sent
			m.dropAnswered(th, m.sess.Snapshot(th))
		}
		where = append(where, e.Title)
	}
	if len(where) > 0 {
		m.flash(unsentBackNotice(where))
	}
}

// unsentBackNotice says where kept text went back: titles are the conversations' ("" the new
// conversation's, or one whose title was not known).
func unsentBackNotice(titles []string) string {
	switch {
	case len(titles) == 1 && titles[0] == "":
		return lang.L("Your unsent text is back in its message box; nothing was sent again.")
	case len(titles) == 1:
		return fmt.Sprintf(lang.L("Your unsent text in “%s” is back in its message box; nothing was sent again."), titles[0])
	}
	return fmt.Sprintf(i18n.N("Your unsent text in %s conversation is back in its message box; nothing was sent again.",
		"Your unsent text in %s conversations is back in their message boxes; nothing was sent again.", len(titles)), i18n.Number(len(titles)))
}

// dropAnswered takes out of th's kept text the messages sent before Parley closed that the end
// of its history, once read, shows (answered after all); lines the person has changed since
// stay. Only the end is looked at: an earlier message with the same words ("yes") is not it.
func (m *mainWindow) dropAnswered(th *conversation.Thread, v conversation.ThreadView) {
	sent, ok := m.unsentSent[th]
	if !ok || v.Loading || v.LoadErr != nil || len(v.Messages) == 0 {
		return
	}
	delete(m.unsentSent, th)
	draft := m.drafts[th]
	if th == m.current {
		draft = m.composer.text()
	}
	lines := strings.Split(draft, "\n")
	recent := v.Messages[max(0, len(v.Messages)-2*len(sent)):] // each with its reply
	for _, q := range sent {
		for _, msg := range recent {
			if msg.Role == conversation.User && msg.Text == q {
				lines = removeLines(lines, strings.Split(q, "\n"))
				break
			}
		}
	}
	text := strings.TrimSpace(strings.Join(lines, "\n"))
	m.drafts[th] = text
	if th == m.current {
		m.composer.setText(text)
	}
}

// removeLines removes the first run of lines equal to want from lines.
func removeLines(lines, want []string) []string {
	for i := 0; i+len(want) <= len(lines); i++ {
		if slices.Equal(lines[i:i+len(want)], want) {
			return slices.Delete(slices.Clone(lines), i, i+len(want))
		}
	}
	return lines
}
