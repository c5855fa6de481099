package client

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"parley/internal/testenv"

	"github.com/google/go-cmp/cmp"
)

var (
	t0 = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	t1 = time.Date(2024, 5, 7, 8, 9, 10, 0, time.UTC)
)

func TestListConversations_TolerantShapes(t *testing.T) {
	tests := []struct {
		name string
		body string
		want ConversationList
	}{
		{"bare array", `[{"id":"a","title":"T","created_at":"2024-05-06T07:08:09Z","updated_at":"2024-05-07T08:09:10Z"}]`,
			ConversationList{Conversations: []Conversation{{ID: strID("a"), Title: "T", CreatedAt: t0, UpdatedAt: t1}}}},
		{"under conversations", `{"conversations":[{"id":1,"name":"N","updatedAt":1715069350}]}`,
			ConversationList{Conversations: []Conversation{{ID: numID("1"), Title: "N", UpdatedAt: t1}}}},
		{"under items with cursor", `{"items":[{"conversation_id":"b","preview":"P"}],"next_cursor":"xyz"}`,
			ConversationList{Conversations: []Conversation{{ID: strID("b"), Title: "P"}}, NextCursor: "xyz"}},
		{"under list", `{"list":[{"conversationId":"c","summary":"S","update_time":"1715069350000"}]}`,
			ConversationList{Conversations: []Conversation{{ID: strID("c"), Title: "S", UpdatedAt: t1}}}},
		{"under data", `{"data":[{"id":"d"}]}`,
			ConversationList{Conversations: []Conversation{{ID: strID("d")}}}},
		{"code envelope around items", `{"code":0,"msg":"ok","data":{"items":[{"id":5,"title":"x","updated_at":"2024-05-07 08:09:10","message_count":4}],"nextCursor":6}}`,
			ConversationList{Conversations: []Conversation{{ID: numID("5"), Title: "x", UpdatedAt: t1, MessageCount: 4}}, NextCursor: "6"}},
		{"data envelope around conversations", `{"data":{"conversations":[{"id":"e","created_at":1714979289}]}}`,
			ConversationList{Conversations: []Conversation{{ID: strID("e"), CreatedAt: t0}}}},
		{"empty array", `[]`, ConversationList{Conversations: []Conversation{}}},
		{"null list", `{"conversations":null}`, ConversationList{Conversations: []Conversation{}}},
		{"no title, unreadable time", `[{"id":"f","updated_at":"yesterday"}]`, ConversationList{Conversations: []Conversation{{ID: strID("f")}}}},
		{"messages counted", `[{"id":"g","messages":[{},{}]}]`, ConversationList{Conversations: []Conversation{{ID: strID("g"), MessageCount: 2}}}},
		{"cursor in pagination", `{"items":[],"pagination":{"next_cursor":"p2"}}`, ConversationList{Conversations: []Conversation{}, NextCursor: "p2"}},
		{"reference service", `{"data":{"conversations":[{"id":"c_5f0c","title":"Which way?","created_at":"2024-05-06T07:08:09Z","updated_at":"2024-05-07T08:09:10Z","message_count":4}],"next_cursor":"MTc0"}}`,
			ConversationList{Conversations: []Conversation{{ID: strID("c_5f0c"), Title: "Which way?", CreatedAt: t0, UpdatedAt: t1, MessageCount: 4}}, NextCursor: "MTc0"}},
		{"last page", `{"data":{"conversations":[],"next_cursor":null}}`, ConversationList{Conversations: []Conversation{}}},
		{"cursor beside a data list", `{"data":[{"id":"h"}],"next_cursor":"p3"}`, ConversationList{Conversations: []Conversation{{ID: strID("h")}}, NextCursor: "p3"}},
		{"bare ids", `["i",9]`, ConversationList{Conversations: []Conversation{{ID: strID("i")}, {ID: numID("9")}}}},
		{"last message as title", `{"items":[{"id":5,"last_message":{"role":"user","content":"x"}}]}`,
			ConversationList{Conversations: []Conversation{{ID: numID("5"), Title: "x"}}}},

		// Names with more than one meaning.
		{"time is not the creation time", `[{"id":"j","time":1.25,"timestamp":3}]`, ConversationList{Conversations: []Conversation{{ID: strID("j")}}}},
		{"next as a URL gives its cursor", `{"conversations":[],"next":"https://api.example.com/v1/chat/conversations?limit=20&cursor=abc"}`,
			ConversationList{Conversations: []Conversation{}, NextCursor: "abc"}},
		{"next as a path without a cursor", `{"conversations":[],"next":"/v1/chat/conversations?page=2"}`, ConversationList{Conversations: []Conversation{}}},
		{"next as a cursor", `{"conversations":[],"next":"opaque123"}`, ConversationList{Conversations: []Conversation{}, NextCursor: "opaque123"}},
		{"next as a page number", `{"conversations":[],"next":2}`, ConversationList{Conversations: []Conversation{}}},
		{"cursor is this page's", `{"conversations":[],"cursor":"this-page"}`, ConversationList{Conversations: []Conversation{}}},
		{"conversation_id before a row id", `[{"id":1,"conversation_id":"k"}]`, ConversationList{Conversations: []Conversation{{ID: strID("k")}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := testenv.NewRecordingServer(t, reply(200, tt.body))
			c := newTestClient(t, ts.URL)
			got, err := c.ListConversations(t.Context(), ListConversationsRequest{})
			if err != nil {
				t.Fatalf("ListConversations: %v", err)
			}
			if diff := cmp.Diff(tt.want, *got, cmpIDs); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			r := ts.Only(t)
			if r.Method != http.MethodGet || r.Path != "/v1/chat/conversations" || r.RawQuery != "" {
				t.Errorf("request = %s %s?%s", r.Method, r.Path, r.RawQuery)
			}
			checkCommonHeaders(t, r, false)
		})
	}
}

func TestListConversations_Query(t *testing.T) {
	tests := []struct {
		req  ListConversationsRequest
		want string
	}{
		{ListConversationsRequest{}, ""},
		{ListConversationsRequest{Limit: 20}, "limit=20"},
		{ListConversationsRequest{Cursor: "a b&c"}, "cursor=a+b%26c"},
		{ListConversationsRequest{Limit: 5, Cursor: "x"}, "cursor=x&limit=5"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			ts := testenv.NewRecordingServer(t, reply(200, `[]`))
			c := newTestClient(t, ts.URL)
			if _, err := c.ListConversations(t.Context(), tt.req); err != nil {
				t.Fatal(err)
			}
			if got := ts.Only(t).RawQuery; got != tt.want {
				t.Errorf("query = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestListConversations_MissingFields(t *testing.T) {
	tests := []struct{ name, body, field string }{
		{"no list", `{"total":3}`, "conversations"},
		{"item without id", `[{"id":"a"},{"title":"x"}]`, "conversations[1].id"},
		{"not JSON", `hello`, "conversations"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := testenv.NewRecordingServer(t, reply(200, tt.body))
			c := newTestClient(t, ts.URL)
			_, err := c.ListConversations(t.Context(), ListConversationsRequest{})
			var de *DecodeError
			if !errors.As(err, &de) || de.Field != tt.field {
				t.Fatalf("err = %v, want *DecodeError for %q", err, tt.field)
			}
		})
	}
}

func TestHistory_TolerantShapes(t *testing.T) {
	msgs := []Message{
		{ID: numMsg("1"), Role: "user", Content: "hi", CreatedAt: t0},
		{ID: strMsg("2"), Role: "assistant", Content: "hello", CreatedAt: t1}, // the JSON gives "2" as a string: kept so
	}
	full := Config{Persona: ptr("pirate"), Temperature: ptr(0.7), TopP: ptr(0.9), MaxTokens: ptr(100)}
	const msgJSON = `[{"id":1,"role":"user","content":"hi","created_at":"2024-05-06T07:08:09Z"},{"id":"2","role":"assistant","content":"hello","created_at":"2024-05-07 08:09:10"}]`
	tests := []struct {
		name string
		body string
		want History
	}{
		{"spec shape", `{"data":{"config":{"persona":"pirate","temperature":0.7,"top_p":0.9,"max_tokens":100},"messages":` + msgJSON + `}}`,
			History{ConversationID: strID("c1"), Config: full, Messages: msgs}},
		{"bare", `{"config":{"persona":"pirate","temperature":0.7,"top_p":0.9,"max_tokens":100},"messages":` + msgJSON + `}`,
			History{ConversationID: strID("c1"), Config: full, Messages: msgs}},
		{"code envelope", `{"code":0,"msg":"ok","data":{"config":{"persona":"pirate","temperature":"0.7","topP":0.9,"maxTokens":100},"messages":` + msgJSON + `}}`,
			History{ConversationID: strID("c1"), Config: full, Messages: msgs}},
		{"bare array of messages", msgJSON, History{ConversationID: strID("c1"), Messages: msgs}},
		{"partial config, nulls unset", `{"data":{"config":{"persona":null,"temperature":0},"messages":[]}}`,
			History{ConversationID: strID("c1"), Config: Config{Temperature: ptr(0.0)}, Messages: []Message{}}},
		{"null messages", `{"data":{"config":{},"messages":null}}`, History{ConversationID: strID("c1"), Messages: []Message{}}},
		{"config on a conversation object", `{"conversation":{"id":"c1","config":{"max_tokens":"100"}},"messages":[]}`,
			History{ConversationID: strID("c1"), Config: Config{MaxTokens: ptr(100)}, Messages: []Message{}}},
		{"unix ms and camelCase", `{"messages":[{"id":3,"role":"user","text":"t","createdAt":1714979289000}]}`,
			History{ConversationID: strID("c1"), Messages: []Message{{ID: numMsg("3"), Role: "user", Content: "t", CreatedAt: t0}}}},
		{"reference service", `{"data":{"id":"c1","title":"T","config":{"persona":"pirate","temperature":0.7,"top_p":0.9,"max_tokens":100},"messages":` + msgJSON + `}}`,
			History{ConversationID: strID("c1"), Title: "T", Config: full, Messages: msgs}},
		{"title on a conversation object, on one line", `{"conversation":{"id":"c1","title":"Trip\nplans "},"messages":[]}`,
			History{ConversationID: strID("c1"), Title: "Trip plans", Messages: []Message{}}},
		{"a title that is not a string is none", `{"title":{"text":"T"},"messages":[]}`,
			History{ConversationID: strID("c1"), Messages: []Message{}}},
		{"settings for config", `{"settings":{"system_prompt":"pirate"},"messages":[]}`,
			History{ConversationID: strID("c1"), Config: Config{Persona: ptr("pirate")}, Messages: []Message{}}},
		{"another id is not taken", `{"data":{"id":"req_9","messages":[]}}`, History{ConversationID: strID("c1"), Messages: []Message{}}},

		// Names with more than one meaning.
		{"type is not the role", `{"messages":[{"id":1,"type":"text","content":"hi"}]}`,
			History{ConversationID: strID("c1"), Messages: []Message{{ID: numMsg("1"), Content: "hi"}}}},
		{"time is not the creation time", `{"messages":[{"id":1,"role":"user","content":"hi","time":0.8}]}`,
			History{ConversationID: strID("c1"), Messages: []Message{{ID: numMsg("1"), Role: "user", Content: "hi"}}}},
		{"message is not the content", `{"messages":[{"id":1,"role":"assistant","message":"status ok","content":"hi"}]}`,
			History{ConversationID: strID("c1"), Messages: []Message{{ID: numMsg("1"), Role: "assistant", Content: "hi"}}}},
		{"config of wrong type", `{"config":"default","messages":[]}`, History{ConversationID: strID("c1"), Messages: []Message{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := testenv.NewRecordingServer(t, reply(200, tt.body))
			c := newTestClient(t, ts.URL)
			got, err := c.History(t.Context(), strID("c1"))
			if err != nil {
				t.Fatalf("History: %v", err)
			}
			if diff := cmp.Diff(tt.want, *got, cmpIDs); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			r := ts.Only(t)
			if r.Method != http.MethodGet || r.Path != "/v1/chat/conversations/c1/messages" {
				t.Errorf("request = %s %s", r.Method, r.Path)
			}
			checkCommonHeaders(t, r, false)
		})
	}
}

func TestHistory_EscapesID(t *testing.T) {
	ts := testenv.NewRecordingServer(t, reply(200, `{"messages":[]}`))
	c := newTestClient(t, ts.URL)
	if _, err := c.History(t.Context(), strID("a/b c")); err != nil {
		t.Fatal(err)
	}
	if got := ts.Only(t).Path; got != "/v1/chat/conversations/a%2Fb%20c/messages" {
		t.Errorf("path = %q", got)
	}
}

func TestHistory_Missing(t *testing.T) {
	for _, tt := range []struct{ name, body, field string }{
		{"no messages or config", `{"data":{"total":0}}`, "messages"},
		{"config of wrong type", `{"data":{"config":"default"}}`, "messages"},
		{"messages of wrong type", `{"messages":{"1":"hi"}}`, "messages"},
		{"message that is not an object", `{"messages":[{"id":1,"role":"user","content":"a"},"b"]}`, "messages[1]"},
	} {
		ts := testenv.NewRecordingServer(t, reply(200, tt.body))
		c := newTestClient(t, ts.URL)
		_, err := c.History(t.Context(), strID("c1"))
		var de *DecodeError
		if !errors.As(err, &de) || de.Field != tt.field {
			t.Errorf("%s: err = %v, want *DecodeError for %s", tt.name, err, tt.field)
		}
	}
	ts := testenv.NewRecordingServer(t, reply(200, `{}`))
	c := newTestClient(t, ts.URL)
	if _, err := c.History(t.Context(), ConversationID{}); err == nil {
		t.Error("an empty conversation ID was accepted")
	}
	if n := len(ts.Requests()); n != 0 {
		t.Errorf("server saw %d requests, want 0", n)
	}
}

func TestSaveConfig(t *testing.T) {
	tests := []struct {
		name     string
		cfg      Config
		answer   string
		wantBody string
		want     Config
	}{
		{"only set fields are sent", Config{Temperature: ptr(0.0)}, `{"config":{"persona":"p","temperature":0}}`,
			`{"temperature":0}`, Config{Persona: ptr("p"), Temperature: ptr(0.0)}},
		{"all fields", Config{Persona: ptr("pirate"), Temperature: ptr(1.5), TopP: ptr(0.5), MaxTokens: ptr(10)}, `{"data":{"persona":"pirate","temperature":1.5,"top_p":0.5,"max_tokens":10}}`,
			`{"persona":"pirate","temperature":1.5,"top_p":0.5,"max_tokens":10}`, Config{Persona: ptr("pirate"), Temperature: ptr(1.5), TopP: ptr(0.5), MaxTokens: ptr(10)}},
		{"empty answer echoes what was sent", Config{MaxTokens: ptr(5)}, ``, `{"max_tokens":5}`, Config{MaxTokens: ptr(5)}},
		{"ok envelope echoes what was sent", Config{Persona: ptr("x")}, `{"code":0,"msg":"saved"}`, `{"persona":"x"}`, Config{Persona: ptr("x")}},
		{"reference service", Config{MaxTokens: ptr(400)}, `{"data":{"id":"42","config":{"persona":"a lighthouse keeper","max_tokens":400}}}`,
			`{"max_tokens":400}`, Config{Persona: ptr("a lighthouse keeper"), MaxTokens: ptr(400)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := testenv.NewRecordingServer(t, reply(200, tt.answer))
			c := newTestClient(t, ts.URL)
			got, err := c.SaveConfig(t.Context(), strID("42"), tt.cfg)
			if err != nil {
				t.Fatalf("SaveConfig: %v", err)
			}
			if diff := cmp.Diff(tt.want, *got, cmpIDs); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			r := ts.Only(t)
			if r.Method != http.MethodPatch || r.Path != "/v1/chat/conversations/42/config" {
				t.Errorf("request = %s %s", r.Method, r.Path)
			}
			checkCommonHeaders(t, r, true)
			jsonEqual(t, r.Body, tt.wantBody)
		})
	}
}

func TestSaveConfig_NothingToSave(t *testing.T) {
	ts := testenv.NewRecordingServer(t, reply(200, `{}`))
	c := newTestClient(t, ts.URL)
	if _, err := c.SaveConfig(t.Context(), strID("1"), Config{}); err == nil {
		t.Error("an empty config was sent")
	}
	if n := len(ts.Requests()); n != 0 {
		t.Errorf("server saw %d requests, want 0", n)
	}
}

func TestDeleteConversation(t *testing.T) {
	for _, tt := range []struct {
		name   string
		status int
		body   string
	}{
		{"204", 204, ""},
		{"200 with body", 200, `{"deleted":true}`},
		{"200 envelope", 200, `{"code":0,"msg":"ok","data":null}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ts := testenv.NewRecordingServer(t, reply(tt.status, tt.body))
			c := newTestClient(t, ts.URL)
			if err := c.DeleteConversation(t.Context(), strID("c9")); err != nil {
				t.Fatalf("DeleteConversation: %v", err)
			}
			r := ts.Only(t)
			if r.Method != http.MethodDelete || r.Path != "/v1/chat/conversations/c9" {
				t.Errorf("request = %s %s", r.Method, r.Path)
			}
			checkCommonHeaders(t, r, false)
		})
	}
}

func TestDeleteConversation_NotFound(t *testing.T) {
	ts := testenv.NewRecordingServer(t, reply(404, `{"detail":"Conversation not found"}`))
	c := newTestClient(t, ts.URL)
	err := c.DeleteConversation(t.Context(), strID("nope"))
	var e *Error
	if !errors.As(err, &e) || e.StatusCode != 404 || e.Message != "Conversation not found" {
		t.Fatalf("err = %v, want *Error 404 with the service's message", err)
	}
}
