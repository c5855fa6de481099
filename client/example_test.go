package client_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"parley/client"
)

// Errors from the service are *client.Error; an ambiguous chat failure matches client.ErrReplyLost.
func Example_errors() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "30")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = io.WriteString(w, `{"error":{"code":"rate_limited","message":"Too many requests"}}`)
	}))
	defer srv.Close()
	c, err := client.New(client.Options{BaseURL: srv.URL, APIKey: "sk-example"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.CloseIdleConnections()

	_, err = c.SendMessage(context.Background(), client.SendMessageRequest{Message: "Hello"})
	var apiErr *client.Error
	switch {
	case errors.Is(err, client.ErrReplyLost):
		fmt.Println("The reply was lost; you may have been charged.")
	case errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusUnauthorized:
		fmt.Println("The service refused the API key.")
	case errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusTooManyRequests:
		fmt.Printf("Busy: %s (try again in %v)\n", apiErr.Message, apiErr.RetryAfter)
	case errors.As(err, &apiErr) && apiErr.StatusCode >= 500:
		fmt.Println("The service failed:", apiErr.Message)
	case err != nil:
		fmt.Println(err)
	}
	// Output: Busy: Too many requests (try again in 30s)
}

// Plain http is refused except to loopback, before any request.
func ExampleNew_insecure() {
	_, err := client.New(client.Options{BaseURL: "http://api.example.com", APIKey: "sk-example"})
	fmt.Println(errors.Is(err, client.ErrInsecureURL))
	// Output: true
}

// The key prints as [REDACTED] everywhere; Reveal gives it back where it must be used.
func ExampleAPIKey() {
	k := client.APIKey("sk-secret")
	fmt.Println(k, fmt.Sprintf("%#v", k), len(k.Reveal()))
	// Output: [REDACTED] [REDACTED] 9
}
