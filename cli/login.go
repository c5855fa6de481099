package cli

import (
	"bufio"
	"context"
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

// noKeyArgs refuses positional arguments to login and logout without echoing them: the natural
// mistake is to give the key itself as one. Login says how to give it; logout needs none.
func noKeyArgs(cmd *cobra.Command, args []string) error {
	switch {
	case len(args) == 0:
		return nil
	case cmd.Name() == "login":
		return usageErrorf("login takes no arguments (what was given is not shown, in case it is a key): pipe the key in, or use --api-key")
	}
	return usageErrorf("%s takes no arguments (what was given is not shown, in case it is a key)", cmd.Name())
}

// loginJSON is what 'login --json' prints.
type loginJSON struct {
	BaseURL string `json:"base_url"`
	Stored  bool   `json:"stored"`
}

func newLoginCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "login [--base-url URL] [--api-key KEY]",
		Short: "Check an API key and keep it in the system keyring",
		Long: `Reads the API key from standard input (without echo on a terminal), checks it with the
service, stores it in the system keyring under the service's address, and remembers the address.
--api-key KEY works too, but the key may then stay in your shell's history.`,
		Example: `  parley login --base-url https://api.example.com < keyfile
  parley login                       # asks for the key without echo`,
		Args: noKeyArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			base, err := g.resolveBaseURL()
			if err != nil {
				return err
			}
			timeout, err := g.resolveTimeout()
			if err != nil {
				return err
			}
			key, from := strings.TrimSpace(g.apiKey), fromFlag
			if key != "" {
				fmt.Fprintln(g.stderr, "Warning: a key given with --api-key may stay in your shell history; 'parley login' alone reads it without echo.")
			} else if key, err = g.readKey(cmd.Context()); err != nil {
				return err
			} else {
				from = fromStdin
			}
			g.printer.addSecret(key, true)
			if err := checkKey(key, from); err != nil {
				return err
			}
			if err := g.checkURLHoldsNoKey(base); err != nil {
				return err
			}
			g.keySource = from
			c, err := g.clientFor(base, client.APIKey(key), timeout)
			if err != nil {
				return err
			}
			stop := g.waitFor("the service to check the key")
			_, err = c.ListConversations(cmd.Context(), client.ListConversationsRequest{Limit: 1})
			stop()
			if err != nil {
				return err
			}
			if err := g.keyring.Set(base, key); err != nil {
				var ue *keystore.UnavailableError
				if errors.As(err, &ue) {
					return &storeFailedError{reason: ue.Reason}
				}
				return err
			}
			p, err := g.loadPreferences()
			if err != nil {
				return err
			}
			p.BaseURL = c.BaseURL()
			if err := g.savePreferences(p); err != nil {
				return err
			}
			if g.json {
				return writeJSON(g.stdout, loginJSON{BaseURL: g.showURL(c.BaseURL()), Stored: true})
			}
			fmt.Fprintf(g.stdout, "Logged in to %s; the key is in the system keyring.\n", g.showURL(c.BaseURL()))
			return nil
		},
	}
}

// storeFailedError is a key that works but that the keyring could not keep.
type storeFailedError struct{ reason keystore.Reason }

func (e *storeFailedError) Error() string {
	return fmt.Sprintf("The key works, but the system keyring cannot store it (%s): %s, or set PARLEY_API_KEY instead", e.reason, keyringAdvice(e.reason))
}

// readKey reads the API key from stdin: a hidden prompt on a terminal, else the first line.
// Ctrl-C at the prompt ends the wait at once (ctx is cancelled), with the terminal's echo back.
func (g *globals) readKey(ctx context.Context) (string, error) {
	return g.readKeyFromStdin(ctx, "no API key on standard input: pipe it in ('parley login < keyfile'), or use --api-key")
}

// readKeyFromStdin reads a key from stdin: asked for without echo on a terminal (Ctrl-C ends
// the wait at once, with the terminal's echo back), else the first line, trimmed. none is the
// usage error for an empty input.
func (g *globals) readKeyFromStdin(ctx context.Context, none string) (string, error) {
	if f, ok := g.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(g.stderr, "API key: ")
		b, err := hiddenLine(ctx, f)
		fmt.Fprintln(g.stderr)
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
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
		return "", usageErrorf("%s", none)
	}
	return key, nil
}

// logoutJSON is what 'logout --json' prints.
type logoutJSON struct {
	BaseURL string `json:"base_url"`
	Removed bool   `json:"removed"`
}

func newLogoutCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "logout [--base-url URL]",
		Short: "Remove the stored API key from the system keyring",
		Args:  noKeyArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			base, err := g.resolveBaseURL()
			if err != nil {
				return err
			}
			err = g.keyring.Delete(base)
			removed := err == nil
			if err != nil && !errors.Is(err, keystore.ErrNotFound) {
				return err
			}
			switch {
			case g.json:
				return writeJSON(g.stdout, logoutJSON{BaseURL: g.showURL(base), Removed: removed})
			case removed:
				fmt.Fprintf(g.stdout, "Logged out of %s; the key is gone from the keyring.\n", g.showURL(base))
			default:
				fmt.Fprintf(g.stdout, "No key was stored for %s.\n", g.showURL(base))
			}
			return nil
		},
	}
}
