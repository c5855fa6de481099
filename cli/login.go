package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"parley/client"
	"parley/keystore"
)

func newLoginCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "login [--base-url URL]",
		Short: "Check an API key and keep it in the system keyring",
		Long: `Reads the API key from standard input (without echo on a terminal), checks it with the
service, stores it in the system keyring under the service's address, and remembers the address.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			base, err := g.resolveBaseURL()
			if err != nil {
				return err
			}
			key, err := g.readKey()
			if err != nil {
				return err
			}
			if err := keystore.ValidateKey(key); err != nil {
				return fmt.Errorf("that is not a usable API key: %w", err)
			}
			c, err := client.New(client.Options{BaseURL: base, APIKey: client.APIKey(key), UserAgent: "parley-cli"})
			if err != nil {
				return err
			}
			if _, err := c.ListConversations(cmd.Context(), client.ListConversationsRequest{Limit: 1}); err != nil {
				return fmt.Errorf("the key was not stored: %s", explainError(err))
			}
			if err := keyring.Set(base, key); err != nil {
				return fmt.Errorf("the key works, but the system keyring could not store it (%v); set PARLEY_API_KEY instead", err)
			}
			s, err := g.loadSettings()
			if err != nil {
				return err
			}
			s.BaseURL = c.BaseURL()
			if err := g.saveSettings(s); err != nil {
				return err
			}
			fmt.Fprintf(g.stdout, "Logged in to %s; the key is in the system keyring.\n", c.BaseURL())
			return nil
		},
	}
}

// readKey reads the API key from stdin: a hidden prompt on a terminal, else the first line.
func (g *globals) readKey() (string, error) {
	if f, ok := g.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(g.stderr, "API key: ")
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(g.stderr)
		if err != nil {
			return "", fmt.Errorf("reading the key from the terminal: %w", err)
		}
		return strings.TrimSpace(string(b)), nil
	}
	line, err := bufio.NewReader(io.LimitReader(g.stdin, keystore.MaxKeyLen+2)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("reading the key from standard input: %w", err)
	}
	key := strings.TrimSpace(line)
	if key == "" {
		return "", usageErrorf("no API key on standard input: pipe it in, e.g. 'parley login < keyfile'")
	}
	return key, nil
}

func newLogoutCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "logout [--base-url URL]",
		Short: "Remove the stored API key from the system keyring",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			base, err := g.resolveBaseURL()
			if err != nil {
				return err
			}
			err = keyring.Delete(base)
			switch {
			case errors.Is(err, keystore.ErrNotFound):
				fmt.Fprintf(g.stdout, "No key was stored for %s.\n", base)
				return nil
			case err != nil:
				return fmt.Errorf("could not remove the key from the system keyring: %w", err)
			}
			fmt.Fprintf(g.stdout, "Logged out of %s; the key is gone from the keyring.\n", base)
			return nil
		},
	}
}
