// Package conversation holds what the desktop app shows, as plain Go state with no UI: the list
// of conversations, the messages of each open conversation, the turns waiting for a reply, and
// the settings a new conversation will start with. A Session owns that state and talks to the
// Chat and Voice Service; the window renders snapshots of it and is told when something changed.
//
// The rules a person relies on live here, where they can be tested without a window: what was
// typed is never lost (a failed turn keeps its text), a charged chat call is never sent twice
// without the person asking, a reply lands in its own conversation whichever one is on screen,
// and the turns of one conversation are sent one after another, so a second message typed
// before the first reply continues the same new conversation instead of starting another.
package conversation

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"parley/client"
	"parley/internal/i18n"
)

// Service is what a Session needs from the Chat and Voice Service; *client.Client has it.
type Service interface {
	SendMessage(ctx context.Context, req client.SendMessageRequest) (*client.SendMessageResult, error)
	ListConversations(ctx context.Context, req client.ListConversationsRequest) (*client.ConversationList, error)
	History(ctx context.Context, id client.ConversationID) (*client.History, error)
	SaveConfig(ctx context.Context, id client.ConversationID, cfg client.Config) (*client.Config, error)
	DeleteConversation(ctx context.Context, id client.ConversationID) error
}

// StreamingService is a Service that can hand a reply over as it is written (*client.Client
// has it): Streams reports whether the service said it streams; SendMessageStream is
// SendMessage with the reply's pieces as they come and a person's Stop.
type StreamingService interface {
	Streams() bool
	SendMessageStream(ctx context.Context, req client.SendMessageRequest, opts client.StreamOptions) (*client.SendMessageResult, error)
}

// Role says who wrote a message.
type Role int

// The roles a message may have.
const (
	Assistant Role = iota // the service's reply (and any role the spec does not name)
	User                  // the person
)

// roleOf maps the service's role names: "user" is the person, anything else the assistant.
func roleOf(s string) Role {
	if strings.EqualFold(strings.TrimSpace(s), "user") {
		return User
	}
	return Assistant
}

// String is the role's name in the service's words: "user" or "assistant".
func (r Role) String() string {
	if r == User {
		return "user"
	}
	return "assistant"
}

// Message is one message shown in a conversation.
type Message struct {
	// ID is the service's identifier; zero for a message not confirmed by the service.
	ID client.MessageID
	// Role says who wrote it.
	Role Role
	// Text is the message's content (Markdown for the assistant).
	Text string
	// At is when it was written; zero when unknown.
	At time.Time
}

// MessageFrom is the service's message m as a conversation shows it.
func MessageFrom(m client.Message) Message {
	return Message{ID: m.ID, Role: roleOf(m.Role), Text: m.Content, At: m.CreatedAt}
}

// TurnState is where a turn stands.
type TurnState int

// The states of a turn.
const (
	// Queued: waiting for an earlier turn of the same conversation.
	Queued TurnState = iota
	// Sending: the chat call is under way (the window shows "thinking").
	Sending
	// Failed: the call failed before the service could charge it; Retry sends it again.
	Failed
	// Lost: the message reached the service but the reply was lost, so it may have been
	// charged. It is never sent again unless the person asks.
	Lost
)

// Turn is a message the person sent that has no reply yet, or whose send failed. Its text is
// kept until the service confirms it, so nothing typed is lost.
type Turn struct {
	// Key identifies the turn within its session (stable across snapshots).
	Key int64
	// Text is what the person wrote.
	Text string
	// At is when they sent it.
	At time.Time
	// State says where the turn stands.
	State TurnState
	// Err is why it failed (Failed or Lost).
	Err error
	// Answering: the person stopped waiting (Lost, with ErrStopped), but the chat call still
	// runs, and its reply is added when it comes. It cannot be sent again meanwhile.
	Answering bool
	// Partial is the reply as written so far, while a service that streams writes it (Sending).
	Partial string
	// Stopping: the person stopped a streamed reply, and the service is asked to end it where
	// it is (Sending until it has).
	Stopping bool

	// after is the last message of the conversation known when it was sent, and known how many
	// messages were (for a service that gives messages no IDs).
	after    client.MessageID
	known    int
	anchored bool // the conversation's history was read when it was sent
	// stop, while a streamed reply is written, is closed by the person's Stop; partial holds
	// the reply so far (Partial is its text).
	stop    chan struct{}
	partial *strings.Builder
}

// DefaultTitle is what a conversation with no title and no known first message is called, in
// English: in exported files, and to compare with. The window shows Entry.DisplayTitle.
const DefaultTitle = "New conversation"

// titleWords and titleRunes bound a title made from the first message.
const (
	titleWords = 8
	titleRunes = 48
)

// TitleFrom makes a title from a message: its first words, cut at a word boundary, with an
// ellipsis when cut, and its first letter a capital; "" for a blank message.
func TitleFrom(text string) string {
	text = markdownMarks.Replace(text)
	words := strings.FieldsFunc(text, unicode.IsSpace)
	var b strings.Builder
	cut := false
	for i, w := range words {
		if i == titleWords || utf8.RuneCountInString(b.String())+1+utf8.RuneCountInString(w) > titleRunes {
			cut = true
			break
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	t := b.String()
	if t == "" && len(words) > 0 {
		// One very long word: cut it.
		r := []rune(words[0])
		t, cut = string(r[:min(len(r), titleRunes)]), len(r) > titleRunes
	}
	if cut {
		t = strings.TrimRight(t, ",;:.-") + "…"
	}
	// A transcript starts in lower case ("what is the weather like"); a title does not.
	if r, n := utf8.DecodeRuneInString(t); unicode.IsLower(r) {
		t = string(unicode.ToUpper(r)) + t[n:]
	}
	return t
}

// markdownMarks are dropped from titles: emphasis, code and heading marks.
var markdownMarks = strings.NewReplacer("**", "", "__", "", "`", "", "# ", "", "#", "")

// RelativeTime says when t was, as a person would from now: "just now", "5 min ago",
// "3 h ago", "Yesterday", the weekday within a week, else the date ("2 Mar", or "2 Mar 2024" in
// another year), in the window's language (i18n). The zero time gives "".
func RelativeTime(t, now time.Time) string {
	if t.IsZero() {
		return ""
	}
	t = t.In(now.Location())
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return i18n.T("just now")
	case d < time.Hour:
		n := int(d / time.Minute)
		return fmt.Sprintf(i18n.N("%d min ago", "%d min ago", n), n)
	}
	y1, m1, d1 := t.Date()
	y2, m2, d2 := now.Date()
	today := time.Date(y2, m2, d2, 0, 0, 0, 0, now.Location())
	day := time.Date(y1, m1, d1, 0, 0, 0, 0, now.Location())
	days := int(today.Sub(day).Hours()/24 + 0.5)
	switch {
	case days <= 0:
		n := int(d / time.Hour)
		return fmt.Sprintf(i18n.N("%d h ago", "%d h ago", n), n)
	case days == 1:
		return i18n.T("Yesterday")
	case days < 7:
		return weekday(t.Weekday())
	case y1 == y2:
		// A Go layout: Go writes month names in English only.
		return t.Format(i18n.T("2 Jan"))
	}
	return t.Format(i18n.T("2 Jan 2006"))
}

// weekday names d in the window's language.
func weekday(d time.Weekday) string {
	switch d {
	case time.Monday:
		return i18n.T("Monday")
	case time.Tuesday:
		return i18n.T("Tuesday")
	case time.Wednesday:
		return i18n.T("Wednesday")
	case time.Thursday:
		return i18n.T("Thursday")
	case time.Friday:
		return i18n.T("Friday")
	case time.Saturday:
		return i18n.T("Saturday")
	}
	return i18n.T("Sunday")
}

// RelativeTimeChanges is when RelativeTime(t, ·) next reads differently after now: the next
// minute within the hour, the next hour within the day, else the next midnight (the zero time
// for a zero t).
func RelativeTimeChanges(t, now time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	t = t.In(now.Location())
	d := now.Sub(t)
	switch {
	case d < 0:
		return t
	case d < time.Hour:
		return t.Add((d/time.Minute + 1) * time.Minute)
	}
	y, m, day := now.Date()
	midnight := time.Date(y, m, day+1, 0, 0, 0, 0, now.Location())
	if ty, tm, td := t.Date(); ty == y && tm == m && td == day {
		if next := t.Add((d/time.Hour + 1) * time.Hour); next.Before(midnight) {
			return next // "N h ago"
		}
	}
	return midnight
}
