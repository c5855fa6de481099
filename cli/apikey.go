package cli

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"time"

	"parley/client"
	"parley/internal/version"
	"parley/keystore"
)

// keySource says where the API key of this run came from, for messages that must fit it.
type keySource int

const (
	fromNone    keySource = iota // not resolved yet, or no key anywhere
	fromFlag                     // --api-key
	fromEnv                      // PARLEY_API_KEY
	fromKeyring                  // the system keyring
	fromStdin                    // 'parley login' read it from standard input
)

func (s keySource) String() string {
	switch s {
	case fromFlag:
		return "--api-key"
	case fromEnv:
		return "PARLEY_API_KEY"
	case fromKeyring:
		return "the system keyring"
	case fromStdin:
		return "standard input"
	}
	return "none"
}

// token is the source as 'status --json' gives it: "flag", "env", "keyring", "stdin" or "none".
func (s keySource) token() string {
	switch s {
	case fromFlag:
		return "flag"
	case fromEnv:
		return "env"
	case fromKeyring:
		return "keyring"
	case fromStdin:
		return "stdin"
	}
	return "none"
}

// checkKey refuses a key that cannot be one: empty, with spaces or line breaks inside, or too long.
func checkKey(key string, from keySource) error {
	if err := keystore.ValidateKey(key); err != nil {
		return usageErrorf("the key from %s is not usable: %v", from, err)
	}
	return nil
}

// resolveKey picks the API key: --api-key, PARLEY_API_KEY, then the keyring entry for baseURL.
// Every key found is registered with the stderr printer, so no message can print it.
func (g *globals) resolveKey(baseURL string) (client.APIKey, error) {
	key, from := strings.TrimSpace(g.apiKey), fromFlag
	if key == "" {
		key, from = strings.TrimSpace(g.getenv("PARLEY_API_KEY")), fromEnv
	}
	if key == "" {
		k, err := g.keyring.Get(baseURL)
		if errors.Is(err, keystore.ErrNotFound) {
			return "", g.storedWithoutV1(baseURL, err)
		}
		if err != nil {
			return "", err
		}
		key, from = k, fromKeyring
	}
	g.printer.addSecret(key, true)
	if err := checkKey(key, from); err != nil {
		return "", err
	}
	if err := g.checkURLHoldsNoKey(baseURL); err != nil {
		return "", err
	}
	g.keySource = from
	return client.APIKey(key), nil
}

// storedWithoutV1 turns "no key is stored for https://host/v1" into a *doubledV1Error when a key
// is stored for https://host: the base URL names the API's root, and Parley adds /v1 itself.
func (g *globals) storedWithoutV1(baseURL string, notFound error) error {
	u, err := url.Parse(baseURL)
	if err != nil {
		return notFound
	}
	path := strings.TrimRight(u.Path, "/")
	if !strings.HasSuffix(path, "/v1") {
		return notFound
	}
	u.Path, u.RawPath = strings.TrimSuffix(path, "/v1"), ""
	without := u.String()
	if k, err := g.keyring.Get(without); err == nil {
		g.printer.addSecret(k, false)
		return &doubledV1Error{base: baseURL, without: without}
	}
	return notFound
}

// resolveTimeout is how long one call may take: --timeout, else PARLEY_TIMEOUT, else the client's default.
func (g *globals) resolveTimeout() (time.Duration, error) {
	if g.timeout != 0 {
		if g.timeout < 0 {
			return 0, usageErrorf("--timeout must be more than 0, such as 30s or 2m")
		}
		return g.timeout, nil
	}
	v := strings.TrimSpace(g.getenv("PARLEY_TIMEOUT"))
	if v == "" {
		return client.DefaultTimeout, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, usageErrorf("PARLEY_TIMEOUT=%q is not a positive duration such as 30s or 2m", v)
	}
	return d, nil
}

// newClient builds a client for the resolved address, key and timeout.
func (g *globals) newClient(_ context.Context) (*client.Client, error) {
	base, err := g.resolveBaseURL()
	if err != nil {
		return nil, err
	}
	timeout, err := g.resolveTimeout()
	if err != nil {
		return nil, err
	}
	key, err := g.resolveKey(base)
	if err != nil {
		return nil, err
	}
	return g.clientFor(base, key, timeout)
}

// clientFor builds a client for base with key, each call bounded by timeout.
func (g *globals) clientFor(base string, key client.APIKey, timeout time.Duration) (*client.Client, error) {
	g.timeoutUsed = timeout
	return client.New(client.Options{BaseURL: base, APIKey: key, UserAgent: "parley-cli/" + version.Version, Timeout: timeout})
}
