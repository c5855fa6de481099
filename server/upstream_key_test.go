package server

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A model that echoes the key it refused, whole or in part, in another letter case or encoded:
// no piece of the key of 8 characters or more reaches the client's message or the log.
func TestChat_UpstreamErrorDoesNotEchoTheKey(t *testing.T) {
	const key = "sk-Proj-7fA3c9E2b5D1f4A6c8E0b2D4f6A8c0E2"
	half := len(key) / 2
	for _, echo := range []string{
		key,
		key[:half],
		key[half:],
		strings.ToLower(key),
		strings.ToUpper(key),
		strings.ToLower(key[:half]) + "…",
		"…" + strings.ToUpper(key[half:]),
		base64.StdEncoding.EncodeToString([]byte("Bearer " + key)),
		hex.EncodeToString([]byte(key)),
	} {
		up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error":{"message":"Invalid request with key ` + echo + ` (check it)"}}`))
		}))
		m := NewOpenAIChatWith(OpenAIChatOptions{BaseURL: up.URL + "/v1", Model: "gpt-x", APIKey: key, Where: "The model server"})
		_, err := m.Complete(t.Context(), ChatRequest{UserText: "hi"})
		up.Close()
		var cf *ChatFailure
		if !errors.As(err, &cf) {
			t.Fatalf("Complete = %v, want a ChatFailure", err)
		}
		for _, text := range []string{cf.Sentence(), cf.Error()} {
			if !strings.Contains(text, "[API key]") {
				t.Errorf("echo %q: %q does not say the key was blanked", echo, text)
			}
			low, k := strings.ToLower(text), strings.ToLower(key)
			for i := 0; i+8 <= len(low); i++ {
				if strings.Contains(k, low[i:i+8]) {
					t.Errorf("echo %q: %q holds %q of the key", echo, text, text[i:i+8])
					break
				}
			}
		}
	}
}
