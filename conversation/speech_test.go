package conversation_test

import (
	"sync"
	"testing"
	"testing/synctest"

	"parley/client"
	"parley/conversation"
	"parley/conversation/conversationtest"
)

// A conversation's voice and speech language stay with it: a new conversation's from its first
// reply on, an existing one's as soon as they are saved, each told to the app to keep; those
// the app kept come back in the next session, and do not undo one set meanwhile.
func TestSession_SpeechKeptPerConversation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		f.Histories["c5"] = &client.History{ConversationID: conversationtest.ID("c5")}
		s, _ := newSession(t, f)
		var mu sync.Mutex
		kept := map[string]conversation.Speech{}
		s.KeepSpeech(func(id client.ConversationID) {
			mu.Lock()
			kept[id.String()] = s.SpeechOf(id)
			mu.Unlock()
		})
		keptOf := func(id string) (conversation.Speech, bool) {
			mu.Lock()
			defer mu.Unlock()
			sp, ok := kept[id]
			return sp, ok
		}

		th := s.NewThread(client.Config{}, "")
		s.SaveSettings(th, client.Config{}, &conversation.Speech{Voice: "de", Language: "de"}, nil)
		mu.Lock()
		if len(kept) != 0 {
			t.Errorf("kept before the conversation exists: %v", kept)
		}
		mu.Unlock()
		s.Send(th, "Hallo")
		until(t, func() bool { return !s.Snapshot(th).ID.IsZero() })
		id := s.Snapshot(th).ID.String()
		if sp, ok := keptOf(id); !ok || sp != (conversation.Speech{Voice: "de", Language: "de"}) {
			t.Errorf("new conversation's speech kept = %+v, %v", sp, ok)
		}
		if v := s.Snapshot(th); v.SpeechLanguage != "de" || v.Voice != "de" {
			t.Errorf("after its first reply: %+v", v)
		}

		old := s.Open(conversationtest.ID("c5"))
		s.SetSpeeches(map[string]conversation.Speech{"c5": {Language: "fr"}, id: {Language: "es"}})
		if v := s.Snapshot(old); v.SpeechLanguage != "fr" {
			t.Errorf("kept speech language not read back: %+v", v)
		}
		if v := s.Snapshot(th); v.SpeechLanguage != "de" {
			t.Errorf("the one set in this session was undone by the kept one: %+v", v)
		}
		s.SaveSettings(old, client.Config{}, &conversation.Speech{Language: "pl"}, nil)
		if sp, _ := keptOf("c5"); sp.Language != "pl" {
			t.Errorf("existing conversation's speech kept = %+v", sp)
		}
		// Saved without its speech settings (a dialog that did not change them): they stay.
		s.SaveSettings(old, client.Config{}, nil, nil)
		if v := s.Snapshot(old); v.SpeechLanguage != "pl" {
			t.Errorf("a save without speech settings changed them: %+v", v)
		}
		if len(f.Patches) != 0 {
			t.Errorf("speech settings went to the service: %+v", f.Patches)
		}
	})
}
