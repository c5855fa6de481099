package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"parley/client"
	"parley/keystore"
)

// DefaultBaseURL is the reference service's address, used when nothing else names one.
const DefaultBaseURL = "http://127.0.0.1:8780"

// settings is what Parley keeps in its config file; never the API key.
type settings struct {
	BaseURL string `json:"base_url,omitempty"`
}

// configDir is where the config file lives: PARLEY_CONFIG_DIR, else the user's config directory.
func (g *globals) configDir() (string, error) {
	if d := g.getenv("PARLEY_CONFIG_DIR"); d != "" {
		return d, nil
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("finding the config directory: %w (set PARLEY_CONFIG_DIR)", err)
	}
	return filepath.Join(d, "parley"), nil
}

func (g *globals) settingsPath() (string, error) {
	d, err := g.configDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "config.json"), nil
}

// loadSettings reads the config file; a missing file gives empty settings.
func (g *globals) loadSettings() (settings, error) {
	var s settings
	p, err := g.settingsPath()
	if err != nil {
		return s, err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("reading the config file: %w", err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("the config file %s is not valid JSON (%v): fix or delete it", p, err)
	}
	return s, nil
}

// saveSettings writes the config file atomically, readable by the user only.
func (g *globals) saveSettings(s settings) error {
	p, err := g.settingsPath()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("creating the config directory: %w", err)
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(p, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("saving the config file: %w", err)
	}
	return nil
}

// resolveBaseURL picks the service address: --base-url, PARLEY_BASE_URL, the config file, the default.
func (g *globals) resolveBaseURL() (string, error) {
	if g.baseURL != "" {
		return g.baseURL, nil
	}
	if v := g.getenv("PARLEY_BASE_URL"); v != "" {
		return v, nil
	}
	s, err := g.loadSettings()
	if err != nil {
		return "", err
	}
	if s.BaseURL != "" {
		return s.BaseURL, nil
	}
	return DefaultBaseURL, nil
}

// keyring is the secret store the CLI uses; tests may replace it.
var keyring = keystore.New()

// resolveKey picks the API key: --api-key, PARLEY_API_KEY, then the keyring entry for baseURL.
func (g *globals) resolveKey(baseURL string) (client.APIKey, error) {
	if g.apiKey != "" {
		return client.APIKey(strings.TrimSpace(g.apiKey)), nil
	}
	if v := g.getenv("PARLEY_API_KEY"); v != "" {
		return client.APIKey(strings.TrimSpace(v)), nil
	}
	key, err := keyring.Get(baseURL)
	switch {
	case err == nil:
		return client.APIKey(key), nil
	case errors.Is(err, keystore.ErrNotFound):
		return "", fmt.Errorf("no API key for %s: run 'parley login', or set PARLEY_API_KEY", baseURL)
	default:
		return "", fmt.Errorf("could not read the API key from the system keyring (%v): set PARLEY_API_KEY, or unlock the keyring", err)
	}
}

// newClient builds a client for the resolved address and key.
func (g *globals) newClient(ctx context.Context) (*client.Client, error) {
	base, err := g.resolveBaseURL()
	if err != nil {
		return nil, err
	}
	key, err := g.resolveKey(base)
	if err != nil {
		return nil, err
	}
	return client.New(client.Options{BaseURL: base, APIKey: key, UserAgent: "parley-cli"})
}
