package client

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

// serveOnce returns a test client for a server that answers every request with h.
func serveOnce(t *testing.T, h http.HandlerFunc) *testClient {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return newTestClient(t, srv.URL)
}

func TestVoices_Shapes(t *testing.T) {
	tests := []struct {
		name, body string
		want       []string
		def        string
	}{
		{"reference", `{"data":{"voices":[{"name":"en-us","language":"en-US","default":true},{"name":"en-gb"}]}}`, []string{"en-us", "en-gb"}, "en-us"},
		{"bare object", `{"voices":[{"name":"alloy"}]}`, []string{"alloy"}, ""},
		{"bare array", `[{"name":"alloy","description":"neutral"},{"name":""}]`, []string{"alloy"}, ""},
		{"empty", `{"data":{"voices":[]}}`, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := serveOnce(t, func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodGet || r.URL.Path != "/v1/chat/voices" {
					t.Errorf("got %s %s", r.Method, r.URL.Path)
				}
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(tt.body))
			})
			vs, err := c.Voices(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			def := ""
			for _, v := range vs {
				names = append(names, v.Name)
				if v.Default {
					def = v.Name
				}
			}
			if len(names) != len(tt.want) || def != tt.def {
				t.Fatalf("voices %v (default %q), want %v (default %q)", names, def, tt.want, tt.def)
			}
			for i := range names {
				if names[i] != tt.want[i] {
					t.Errorf("voice %d = %q, want %q", i, names[i], tt.want[i])
				}
			}
		})
	}
}

func TestAccount_ShapesAndMissing(t *testing.T) {
	c := serveOnce(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"data":{"balance":999998,"price":1}}`))
	})
	a, err := c.Account(t.Context())
	if err != nil || a.Balance == nil || *a.Balance != 999998 || a.Price == nil || *a.Price != 1 || a.ChatEngine != "" {
		t.Fatalf("Account = %+v, %v", a, err)
	}

	// The chat engine, when the service says, as one line of text.
	c = serveOnce(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"data":{"balance":7,"chat_engine":"llama3.2, from Ollama\non this\u001b[31m computer"}}`))
	})
	if a, err := c.Account(t.Context()); err != nil || a.ChatEngine != "llama3.2, from Ollama on this [31m computer" {
		t.Fatalf("Account = %+v, %v; want the engine on one line without control characters", a, err)
	}
	c = serveOnce(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"data":{"balance":7,"chat_engine":{"name":"x"}}}`))
	})
	if a, err := c.Account(t.Context()); err != nil || a.ChatEngine != "" || *a.Balance != 7 {
		t.Fatalf("Account = %+v, %v; want the balance, and no engine from an object", a, err)
	}

	// A service without the extension: a typed 404 the caller can tell apart.
	c = serveOnce(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
	})
	_, err = c.Account(t.Context())
	var ce *Error
	if !errors.As(err, &ce) || ce.StatusCode != http.StatusNotFound {
		t.Fatalf("Account on a service without it: %v, want a 404 *Error", err)
	}

	// A 200 that says nothing about points is a decode error, not a zero balance.
	c = serveOnce(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"data":{"user":"x"}}`))
	})
	var de *DecodeError
	if _, err := c.Account(t.Context()); !errors.As(err, &de) {
		t.Fatalf("Account with no balance: %v, want a *DecodeError", err)
	}
}
