package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"parley/internal/loopback"
)

// DefaultBaseURL is the reference service's address, used when nothing else names one.
const DefaultBaseURL = "http://127.0.0.1:8780"

// preferences is what the CLI keeps in its own config file (config.json): never the API key.
// A conversation's model settings (persona, temperature, ...) are another thing, client.Config,
// kept by the service.
type preferences struct {
	BaseURL string `json:"base_url,omitempty"`
}

// configDir is where the config file lives: PARLEY_CONFIG_DIR, else the user's config directory.
func (g *globals) configDir() (string, error) {
	if d := g.getenv("PARLEY_CONFIG_DIR"); d != "" {
		return d, nil
	}
	d, err := g.userConfigDir()
	if err != nil {
		return "", &configFileError{op: "find", err: err}
	}
	return filepath.Join(d, "parley"), nil
}

func (g *globals) preferencesPath() (string, error) {
	d, err := g.configDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "config.json"), nil
}

// configFileError is a config file that could not be found, read, parsed or written.
type configFileError struct {
	op   string // "find", "read", "parse" or "write"
	path string
	err  error
}

func (e *configFileError) Error() string {
	if e.path == "" {
		return fmt.Sprintf("cannot %s the config directory: %v", e.op, e.err)
	}
	return fmt.Sprintf("cannot %s the config file %s: %v", e.op, e.path, e.err)
}

func (e *configFileError) Unwrap() error { return e.err }

// loadPreferences reads the config file; a missing file gives empty preferences.
func (g *globals) loadPreferences() (preferences, error) {
	var p preferences
	path, err := g.preferencesPath()
	if err != nil {
		return p, err
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return p, &configFileError{op: "read", path: path, err: err}
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return p, &configFileError{op: "parse", path: path, err: err}
	}
	return p, nil
}

// savePreferences writes the config file atomically, readable by the user only.
func (g *globals) savePreferences(p preferences) error {
	path, err := g.preferencesPath()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return &configFileError{op: "write", path: path, err: err}
	}
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	if err := writePrivateFile(path, append(b, '\n')); err != nil {
		return &configFileError{op: "write", path: path, err: err}
	}
	return nil
}

// resolveBaseURL picks the service address: --base-url, PARLEY_BASE_URL, the config file, the
// default. An address that is not a URL is a usage error naming where it came from.
func (g *globals) resolveBaseURL() (string, error) {
	if g.base != "" {
		return g.base, nil
	}
	raw, from := g.baseURL, "--base-url"
	if raw == "" {
		raw, from = g.getenv("PARLEY_BASE_URL"), "PARLEY_BASE_URL"
	}
	if raw == "" {
		p, err := g.loadPreferences()
		if err != nil {
			return "", err
		}
		raw, from = p.BaseURL, "the address saved by 'parley login'"
	}
	if raw == "" {
		raw, from = DefaultBaseURL, "the default address"
	}
	if err := g.checkBaseURL(raw, from); err != nil {
		return "", err
	}
	g.base, g.baseFrom = strings.TrimSpace(raw), from
	return g.base, nil
}

// checkBaseURL makes sure raw is an http or https URL with a host, and only that: no key, no
// user name, no query or fragment. from says where it came from. A misspelt address gets a
// suggestion; one that may hold a key is not repeated.
func (g *globals) checkBaseURL(raw, from string) error {
	s := strings.TrimSpace(raw)
	if g.urlHoldsKey(s) {
		return holdsKeyError(from)
	}
	u, err := url.Parse(s)
	if err == nil && u.Host != "" && u.Opaque == "" && u.Scheme != "http" && u.Scheme != "https" {
		return usageErrorf("%s %q must start with https:// (or http:// for this machine)", from, elastic(s))
	}
	if err != nil || u.Opaque != "" || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		if sugg := suggestURL(s); sugg != "" {
			return usageErrorf("%s %q is not a URL: did you mean %q?", from, elastic(s), elastic(sugg))
		}
		return usageErrorf("%s %q has no host: write it like https://api.example.com", from, elastic(s))
	}
	if u.Hostname() == "" {
		return usageErrorf("%s %q has no host: write it like https://api.example.com", from, elastic(s))
	}
	if u.User != nil {
		return usageErrorf("%s must not carry a user name or password: give the API key through 'parley login' or PARLEY_API_KEY", from)
	}
	if u.RawQuery != "" || u.Fragment != "" || strings.ContainsAny(s, "?#") {
		return usageErrorf("%s must not have a ?query or #fragment: give the service's address alone, such as https://api.example.com", from)
	}
	return nil
}

// holdsKeyError refuses an address that may hold a key, without repeating it.
func holdsKeyError(from string) error {
	return usageErrorf("%s holds what may be an API key (not shown): give the service's address alone, and the key through 'parley login'", from)
}

// checkURLHoldsNoKey refuses the base URL in use once the key is known: a key typed into the
// address would be sent in every request line and stored as the keyring entry's name.
func (g *globals) checkURLHoldsNoKey(base string) error {
	if g.urlHoldsKey(base) {
		return holdsKeyError(g.baseFrom)
	}
	return nil
}

// urlHoldsKey reports whether an address holds a key Parley knows of, or text shaped like one
// in its path, query, fragment or user name. In the host only what cannot be a host name counts
// (an underscore, a long random label), since "api-eu1.example.com" is an address.
func (g *globals) urlHoldsKey(s string) bool {
	if g.printer.knows(s) {
		return true
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return looksKeyShaped(s)
	}
	if looksKeyShaped(u.EscapedPath() + " " + u.RawQuery + " " + u.Fragment + " " + u.User.String()) {
		return true
	}
	host := u.Hostname()
	if strings.Contains(host, "_") && looksKeyShaped(host) {
		return true
	}
	for _, label := range strings.Split(host, ".") {
		if len(label) >= 32 && looksRandom(label) {
			return true
		}
	}
	return false
}

// suggestURL guesses the URL a person meant by an address without a scheme, such as
// "localhost:8780", or with a misspelt one, such as "http:/localhost:8780": http:// for this
// machine, https:// for any other host, the scheme given when there was one. It returns "" when
// no host is left to suggest.
func suggestURL(s string) string {
	scheme := ""
	for _, p := range []string{"https://", "http://", "https:", "http:", "https//", "http//"} {
		if len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) {
			scheme, s = strings.ToLower(strings.TrimRight(p, ":/")), s[len(p):]
			if strings.HasSuffix(p, "//") && strings.HasPrefix(s, "/") {
				return "" // "https:///v1": the host between the slashes is missing
			}
			break
		}
	}
	s = strings.TrimLeft(s, "/")
	host := s
	if i := strings.IndexAny(host, "/?#"); i >= 0 {
		host = host[:i]
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	switch {
	case strings.Trim(host, "[]") == "":
		return ""
	case scheme != "":
	case loopback.Host(host):
		scheme = "http"
	default:
		scheme = "https"
	}
	return scheme + "://" + s
}
