// Package conversationtest is a scripted Chat and Voice Service in memory, for the tests of the
// conversation package and of the app: it answers every call the app makes, records what it was
// asked, and lets a test hold chat calls, fail them, or give them replies of its own.
package conversationtest

import (
	"context"
	"fmt"
	"sync"

	"parley/client"
)

// Service is the scripted service. Set its fields before the code under test uses it; once
// calls may be under way, change them with Mu held.
type Service struct {
	// Mu guards the fields while calls are under way.
	Mu sync.Mutex

	// Histories are the stored conversations, by ID; a chat call that creates a conversation
	// adds it here, and replies are appended to it.
	Histories map[string]*client.History
	// List is the conversation list, newest first, served as one page; a created conversation
	// goes to its top.
	List []client.Conversation
	// Pages, when one is set for a cursor, is the page served for it instead of List.
	Pages map[string]*client.ConversationList
	// Reply makes a chat call's reply from the message (nil: "Re: <message>. The tide turns at
	// six. Hold course west.").
	Reply func(message string) string
	// Balance is the balance a chat call reports (it charges one point each time).
	Balance int64
	// AccountBalance is the balance the account endpoint reports.
	AccountBalance int64
	// ChatErrs are the errors of the next chat calls, in order (nil: that call succeeds).
	ChatErrs []error
	// Gate, when set, holds each chat call until a value arrives (or the gate is closed).
	Gate chan struct{}
	// SentWhenCancelled makes a chat call cancelled at the gate fail as the real client's does
	// once the message has left: with client.ErrReplyLost (else with the context's error alone).
	SentWhenCancelled bool
	// Entered receives each chat call's message as the call starts.
	Entered chan string
	// Heard is what a transcription hears.
	Heard string
	// VoiceList is what the voices endpoint lists.
	VoiceList []client.Voice

	// What the service was asked.
	Chats          []client.SendMessageRequest
	Patches        []client.Config
	Deletes        []string
	Cursors        []string // the list pages asked for
	Speech         []string // the texts spoken
	SpeechVoices   []string // the voice each was spoken with
	Transcriptions int      // the transcriptions made
	// TranscribedIn are the speech languages the transcriptions were asked with, in order.
	TranscribedIn []string
	// Expecting are the languages they were expected in (client.TranscribeRequest), in order.
	Expecting []string

	nextID int
}

// New returns a service with no conversations, which hears "what is the weather like" and
// reports a balance of 99 points after a chat call and 100 at the account endpoint.
func New() *Service {
	return &Service{Histories: map[string]*client.History{}, Pages: map[string]*client.ConversationList{},
		Entered: make(chan string, 100), Heard: "what is the weather like", Balance: 99, AccountBalance: 100}
}

// ID parses a conversation ID, panicking on a malformed one (test IDs are written by hand).
func ID(s string) client.ConversationID {
	id, err := client.ParseConversationID(s)
	if err != nil {
		panic(err)
	}
	return id
}

// BaseURL is the address of the reference service on this computer.
func (f *Service) BaseURL() string { return "http://127.0.0.1:8780" }

// SendMessage records the call, waits at the gate when there is one, and answers with the next
// scripted error or with a reply that it stores; a call without a conversation creates one,
// c1, c2 and so on, unless it fails.
func (f *Service) SendMessage(ctx context.Context, req client.SendMessageRequest) (*client.SendMessageResult, error) {
	f.Mu.Lock()
	f.Chats = append(f.Chats, req)
	gate := f.Gate
	var err error
	if len(f.ChatErrs) > 0 {
		err, f.ChatErrs = f.ChatErrs[0], f.ChatErrs[1:]
	}
	id := req.ConversationID
	if id.IsZero() && err == nil {
		f.nextID++
		id = ID(fmt.Sprintf("c%d", f.nextID))
		if f.Histories[id.String()] == nil {
			f.Histories[id.String()] = &client.History{ConversationID: id}
		}
		f.List = append([]client.Conversation{{ID: id, Title: req.Message}}, f.List...)
	}
	f.Mu.Unlock()
	f.Entered <- req.Message
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			f.Mu.Lock()
			sent := f.SentWhenCancelled
			f.Mu.Unlock()
			if sent {
				return nil, fmt.Errorf("POST /v1/chat/messages: %w: %w", client.ErrReplyLost, ctx.Err())
			}
			return nil, ctx.Err()
		}
	}
	if err != nil {
		return nil, err
	}
	f.Mu.Lock()
	defer f.Mu.Unlock()
	reply := "Re: " + req.Message + ". The tide turns at six. Hold course west."
	if f.Reply != nil {
		reply = f.Reply(req.Message)
	}
	if h := f.Histories[id.String()]; h != nil {
		h.Messages = append(h.Messages, client.Message{Role: "user", Content: req.Message}, client.Message{Role: "assistant", Content: reply})
		if req.Persona != nil {
			h.Config.Persona = req.Persona
		}
	}
	charged, balance := int64(1), f.Balance
	return &client.SendMessageResult{ConversationID: id, Reply: reply, PointsCharged: &charged, Balance: &balance}, nil
}

// ListConversations serves the page set for the cursor, else List.
func (f *Service) ListConversations(_ context.Context, req client.ListConversationsRequest) (*client.ConversationList, error) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	f.Cursors = append(f.Cursors, req.Cursor)
	if p := f.Pages[req.Cursor]; p != nil {
		return p, nil
	}
	return &client.ConversationList{Conversations: append([]client.Conversation(nil), f.List...)}, nil
}

// History returns a copy of a stored conversation, or a 404.
func (f *Service) History(_ context.Context, id client.ConversationID) (*client.History, error) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	h := f.Histories[id.String()]
	if h == nil {
		return nil, &client.Error{StatusCode: 404, Message: "no such conversation"}
	}
	cp := *h
	cp.Messages = append([]client.Message(nil), h.Messages...)
	return &cp, nil
}

// SaveConfig records the patch and merges the fields it sets into the stored conversation.
func (f *Service) SaveConfig(_ context.Context, id client.ConversationID, cfg client.Config) (*client.Config, error) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	f.Patches = append(f.Patches, cfg)
	h := f.Histories[id.String()]
	if h == nil {
		return nil, &client.Error{StatusCode: 404, Message: "no such conversation"}
	}
	if cfg.Persona != nil {
		h.Config.Persona = cfg.Persona
	}
	if cfg.Temperature != nil {
		h.Config.Temperature = cfg.Temperature
	}
	if cfg.TopP != nil {
		h.Config.TopP = cfg.TopP
	}
	if cfg.MaxTokens != nil {
		h.Config.MaxTokens = cfg.MaxTokens
	}
	saved := h.Config
	return &saved, nil
}

// DeleteConversation records the deletion and forgets the conversation.
func (f *Service) DeleteConversation(_ context.Context, id client.ConversationID) error {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	f.Deletes = append(f.Deletes, id.String())
	delete(f.Histories, id.String())
	for i, c := range f.List {
		if c.ID == id {
			f.List = append(f.List[:i], f.List[i+1:]...)
			break
		}
	}
	return nil
}

// Transcribe hears Heard.
func (f *Service) Transcribe(_ context.Context, req client.TranscribeRequest) (*client.Transcript, error) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	f.Transcriptions++
	f.TranscribedIn = append(f.TranscribedIn, req.Language)
	f.Expecting = append(f.Expecting, req.ExpectedLanguage)
	return &client.Transcript{Text: f.Heard, Language: "en"}, nil
}

// Speak returns the text itself as the clip's audio, so a test can tell the clips apart.
func (f *Service) Speak(_ context.Context, req client.SpeechRequest) (*client.Speech, error) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	f.Speech = append(f.Speech, req.Text)
	f.SpeechVoices = append(f.SpeechVoices, req.Voice)
	return &client.Speech{MIMEType: "audio/mpeg", Audio: []byte(req.Text)}, nil
}

// Voices lists VoiceList.
func (f *Service) Voices(context.Context) ([]client.Voice, error) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	return f.VoiceList, nil
}

// Account reports AccountBalance.
func (f *Service) Account(context.Context) (*client.Account, error) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	b := f.AccountBalance
	return &client.Account{Balance: &b}, nil
}

// Recorded returns copies of the patches and deletions asked for, and the transcriptions made.
func (f *Service) Recorded() (patches []client.Config, deletes []string, transcriptions int) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	return append([]client.Config(nil), f.Patches...), append([]string(nil), f.Deletes...), f.Transcriptions
}

// ChatRequests returns a copy of the chat calls made.
func (f *Service) ChatRequests() []client.SendMessageRequest {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	return append([]client.SendMessageRequest(nil), f.Chats...)
}
