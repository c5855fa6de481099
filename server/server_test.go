package server

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestAuth_Rejections(t *testing.T) {
	e := newEnv(t, 10, nil)
	revoked, _, err := e.store.CreateKey(t.Context(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.RevokeKey(t.Context(), revoked); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"missing": "",
		"unknown": "Bearer pk_nothing",
		"revoked": "Bearer " + revoked,
		"scheme":  "Basic " + e.key,
		"empty":   "Bearer ",
	}
	for name, auth := range cases {
		t.Run(name, func(t *testing.T) {
			for _, ep := range []struct{ method, path, body string }{
				{"POST", "/v1/chat/messages", `{"message":"hi"}`},
				{"GET", "/v1/chat/conversations", ""},
				{"POST", "/v1/chat/speech", `{"text":"hi"}`},
			} {
				req, _ := http.NewRequest(ep.method, e.base+ep.path, strings.NewReader(ep.body))
				if auth != "" {
					req.Header.Set("Authorization", auth)
				}
				r := e.send(req)
				if r.Status != 401 || r.code() != codeUnauthorized {
					t.Errorf("%s %s: status %d %s", ep.method, ep.path, r.Status, r.Raw)
				}
				if !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Bearer") {
					t.Errorf("WWW-Authenticate %q", r.Header.Get("WWW-Authenticate"))
				}
			}
		})
	}
	if e.balance() != 10 {
		t.Errorf("balance changed")
	}
}

func TestRouting_MethodsAndPaths(t *testing.T) {
	e := newEnv(t, 10, nil)
	cases := []struct {
		method, path string
		status       int
		allow        string
	}{
		{"GET", "/v1/chat/messages", 405, "POST"},
		{"PUT", "/v1/chat/conversations", 405, "GET"},
		{"POST", "/v1/chat/conversations/c_x/messages", 405, "GET"},
		{"POST", "/v1/chat/conversations/c_x/config", 405, "GET, PATCH"},
		{"GET", "/v1/chat/conversations/c_x", 405, "DELETE"},
		{"GET", "/v1/chat/transcribe", 405, "POST"},
		{"GET", "/v1/chat/speech", 405, "POST"},
		{"POST", "/v1/chat/voices", 405, "GET"},
		{"GET", "/v1/chat/nothing", 404, ""},
		{"GET", "/", 404, ""},
		{"GET", "/v1/chat/conversations/c_x/other", 404, ""},
		{"GET", "/v1/chat/conversations/c_x/messages", 404, ""},
	}
	for _, c := range cases {
		r := e.do(c.method, c.path, nil)
		if r.Status != c.status || r.Header.Get("Allow") != c.allow {
			t.Errorf("%s %s: status %d Allow %q, want %d %q", c.method, c.path, r.Status, r.Header.Get("Allow"), c.status, c.allow)
		}
	}
}

func TestBody_ContentTypeAndSize(t *testing.T) {
	e := newEnv(t, 10, func(c *Config) { c.MaxBodyBytes = 1000 })
	post := func(ct, body string, chunked bool) reply {
		req, _ := http.NewRequest("POST", e.base+"/v1/chat/messages", strings.NewReader(body))
		if chunked {
			req.ContentLength = -1
		}
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		req.Header.Set("Authorization", "Bearer "+e.key)
		return e.send(req)
	}
	ok := `{"message":"hi"}`
	for _, c := range []struct {
		name, ct, body string
		chunked        bool
		status         int
	}{
		{"json", "application/json", ok, false, 200},
		{"json with charset", "application/json; charset=utf-8", ok, false, 200},
		{"no content type", "", ok, false, 200},
		{"form", "application/x-www-form-urlencoded", ok, false, 415},
		{"text", "text/plain", ok, false, 415},
		{"garbage type", ";;;", ok, false, 415},
		{"too large", "application/json", `{"message":"` + strings.Repeat("a", 1000) + `"}`, false, 413},
		{"too large chunked", "application/json", `{"message":"` + strings.Repeat("a", 1000) + `"}`, true, 413},
	} {
		if r := post(c.ct, c.body, c.chunked); r.Status != c.status {
			t.Errorf("%s: status %d, want %d: %s", c.name, r.Status, c.status, r.Raw)
		}
	}
}

// panicModel is a chat model that crashes.
type panicModel struct{}

func (panicModel) Complete(context.Context, ChatRequest) (string, error) { panic("model bug") }

func TestChat_ModelPanicIsRefunded(t *testing.T) {
	e := newEnv(t, 10, func(c *Config) { c.LLM = panicModel{} })
	r := e.do("POST", "/v1/chat/messages", map[string]any{"message": "hi"})
	if r.Status != 502 || e.balance() != 10 {
		t.Errorf("status %d balance %d", r.Status, e.balance())
	}
	e.verify()
}

func TestRecover_PanicBecomesJSON500(t *testing.T) {
	e := newEnv(t, 10, nil)
	h := e.srv.middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(errors.New("bug")) }))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/anything", nil))
	if rec.Code != 500 || !strings.Contains(rec.Body.String(), codeInternal) || rec.Header().Get("Content-Type") != "application/json" {
		t.Errorf("status %d %s", rec.Code, rec.Body)
	}
	if !strings.Contains(e.logs.String(), "panic") {
		t.Errorf("the panic was not logged")
	}
}

func TestLog_OneLinePerRequestWithoutKey(t *testing.T) {
	e := newEnv(t, 10, nil)
	id := e.chat(map[string]any{"message": "hi"})["conversation_id"].(string)
	e.do("GET", "/v1/chat/conversations?limit=5&cursor=secret-query", nil)
	e.doKey("pk_wrong_key_value", "GET", "/v1/chat/conversations", nil)
	logs := e.logs.String()
	if strings.Contains(logs, e.key) || strings.Contains(logs, "pk_wrong_key_value") || strings.Contains(logs, "Bearer") {
		t.Errorf("a key is in the log:\n%s", logs)
	}
	if strings.Contains(logs, "secret-query") {
		t.Errorf("the query string is in the log:\n%s", logs)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(logs), "\n") {
		if strings.Contains(l, "msg=request") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 3 {
		t.Fatalf("%d request lines, want 3:\n%s", len(lines), logs)
	}
	for _, want := range []string{"method=POST", "path=/v1/chat/messages", "status=200", "duration_ms=", "account="} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("line %q lacks %q", lines[0], want)
		}
	}
	if !strings.Contains(lines[2], "status=401") || strings.Contains(lines[2], "account=") {
		t.Errorf("401 line %q", lines[2])
	}
	_ = id
}
