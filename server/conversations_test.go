package server

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

func TestConversations_ListPagesNewestFirst(t *testing.T) {
	e := newEnv(t, 100, nil)
	var ids []string
	for i := range 5 {
		d := e.chat(map[string]any{"message": fmt.Sprintf("  topic   number %d  ", i)})
		ids = append(ids, d["conversation_id"].(string))
	}
	// Continuing the oldest makes it the newest.
	e.chat(map[string]any{"message": "more", "conversation_id": ids[0]})
	want := []string{ids[0], ids[4], ids[3], ids[2], ids[1]}

	var got []string
	cursor := ""
	pages := 0
	for {
		path := "/v1/chat/conversations?limit=2"
		if cursor != "" {
			path += "&cursor=" + url.QueryEscape(cursor)
		}
		r := e.do("GET", path, nil)
		if r.Status != 200 {
			t.Fatalf("list: %d %s", r.Status, r.Raw)
		}
		pages++
		for _, c := range r.data()["conversations"].([]any) {
			c := c.(map[string]any)
			got = append(got, c["id"].(string))
			for _, k := range []string{"title", "created_at", "updated_at", "message_count"} {
				if _, ok := c[k]; !ok {
					t.Errorf("list item lacks %s: %v", k, c)
				}
			}
			if c["id"] == ids[0] && (c["message_count"] != 4.0 || c["title"] != "topic number 0") {
				t.Errorf("item %v: want 4 messages and the trimmed first message as title", c)
			}
		}
		next, isNull := r.data()["next_cursor"], r.data()["next_cursor"] == nil
		if _, present := r.data()["next_cursor"]; !present {
			t.Fatalf("next_cursor missing: %s", r.Raw)
		}
		if isNull {
			break
		}
		cursor = next.(string)
		if pages > 5 {
			t.Fatal("paging does not end")
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || pages != 3 {
		t.Errorf("listed %v in %d pages, want %v in 3", got, pages, want)
	}

	other := e.newAccount(10)
	if r := other.do("GET", "/v1/chat/conversations", nil); len(r.data()["conversations"].([]any)) != 0 {
		t.Errorf("another account sees conversations: %s", r.Raw)
	}
	for _, c := range []struct {
		query  string
		status int
	}{{"limit=0", 422}, {"limit=101", 422}, {"limit=x", 400}, {"cursor=garbage", 400}, {"limit=100", 200}} {
		if r := e.do("GET", "/v1/chat/conversations?"+c.query, nil); r.Status != c.status {
			t.Errorf("%s: status %d, want %d", c.query, r.Status, c.status)
		}
	}
}

func TestConversations_ConfigPatch(t *testing.T) {
	e := newEnv(t, 100, nil)
	id := e.chat(map[string]any{"message": "hi", "persona": "a poet", "temperature": 1.2})["conversation_id"].(string)
	path := "/v1/chat/conversations/" + id + "/config"

	r := e.do("PATCH", path, `{"top_p": 0.9, "temperature": null, "colour": "red"}`)
	if r.Status != 200 {
		t.Fatalf("patch: %d %s", r.Status, r.Raw)
	}
	cfg := r.data()["config"].(map[string]any)
	if cfg["persona"] != "a poet" || cfg["top_p"] != 0.9 || cfg["temperature"] != nil || len(cfg) != 2 {
		t.Errorf("config after patch %v", cfg)
	}
	if g := e.do("GET", path, nil); fmt.Sprint(g.data()["config"]) != fmt.Sprint(cfg) {
		t.Errorf("GET config %v, PATCH said %v", g.data()["config"], cfg)
	}
	// The saved persona is what the next call uses.
	e.do("PATCH", path, map[string]any{"persona": "a gardener"})
	if rep := e.chat(map[string]any{"message": "hello", "conversation_id": id})["reply"].(string); !strings.Contains(rep, "As a gardener") {
		t.Errorf("reply %q after the persona was saved", rep)
	}
	if h := e.do("GET", "/v1/chat/conversations/"+id+"/messages", nil); h.data()["config"].(map[string]any)["persona"] != "a gardener" {
		t.Errorf("history config %s", h.Raw)
	}
	e.do("PATCH", path, `{"persona": null}`)
	if rep := e.chat(map[string]any{"message": "hello", "conversation_id": id})["reply"].(string); strings.Contains(rep, "As a") {
		t.Errorf("reply %q after the persona was cleared", rep)
	}

	for _, c := range []struct {
		body   string
		status int
	}{
		{`{"temperature": 3}`, 422},
		{`{"top_p": -1}`, 422},
		{`{"max_tokens": 0}`, 422},
		{`{"max_tokens": "many"}`, 400},
		{`{"persona": 7}`, 400},
		{`[]`, 400},
		{`{`, 400},
		{`{}`, 200},
	} {
		if r := e.do("PATCH", path, c.body); r.Status != c.status {
			t.Errorf("%s: status %d, want %d: %s", c.body, r.Status, c.status, r.Raw)
		}
	}
	if r := e.do("PATCH", "/v1/chat/conversations/c_missing/config", `{"top_p": 0.5}`); r.Status != 404 {
		t.Errorf("missing conversation: %d", r.Status)
	}
	other := e.newAccount(10)
	if r := other.do("PATCH", path, `{"top_p": 0.5}`); r.Status != 404 {
		t.Errorf("another account's conversation: %d", r.Status)
	}
}

func TestConversations_Delete(t *testing.T) {
	e := newEnv(t, 100, nil)
	id := e.chat(map[string]any{"message": "forget me"})["conversation_id"].(string)
	other := e.newAccount(10)
	if r := other.do("DELETE", "/v1/chat/conversations/"+id, nil); r.Status != 404 {
		t.Errorf("another account deleted it: %d", r.Status)
	}
	if r := other.do("GET", "/v1/chat/conversations/"+id+"/messages", nil); r.Status != 404 {
		t.Errorf("another account read it: %d", r.Status)
	}
	r := e.do("DELETE", "/v1/chat/conversations/"+id, nil)
	if r.Status != 200 || r.data()["id"] != id || r.data()["deleted"] != true {
		t.Fatalf("delete: %d %s", r.Status, r.Raw)
	}
	for _, c := range []struct{ method, path string }{
		{"DELETE", "/v1/chat/conversations/" + id},
		{"GET", "/v1/chat/conversations/" + id + "/messages"},
		{"GET", "/v1/chat/conversations/" + id + "/config"},
	} {
		if r := e.do(c.method, c.path, nil); r.Status != 404 || r.code() != codeNotFound {
			t.Errorf("%s %s after delete: %d", c.method, c.path, r.Status)
		}
	}
	if r := e.do("POST", "/v1/chat/messages", map[string]any{"message": "hi", "conversation_id": id}); r.Status != 404 {
		t.Errorf("chat into a deleted conversation: %d", r.Status)
	}
	if r := e.do("GET", "/v1/chat/conversations", nil); len(r.data()["conversations"].([]any)) != 0 {
		t.Errorf("list after delete: %s", r.Raw)
	}
	e.verify()
}

func TestAccount_ShowsBalanceAndPrice(t *testing.T) {
	e := newEnv(t, 42, nil)
	r := e.do("GET", "/v1/account", nil)
	if r.Status != 200 || r.data()["balance"] != 42.0 || r.data()["price"] != 1.0 {
		t.Errorf("%d %s", r.Status, r.Raw)
	}
}
