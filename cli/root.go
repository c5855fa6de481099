// Package cli is Parley's command-line interface: every endpoint of the Chat and Voice Service,
// the audio tools, and the reference service's `serve` and `admin` commands, over one client.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
)

// Exit codes of every command.
const (
	exitOK      = 0
	exitFailure = 1 // the service, the network, a file or a device failed
	exitUsage   = 2 // the command line was wrong
)

// globals holds the process's streams and the flags every command shares.
type globals struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	json           bool
	baseURL        string
	apiKey         string
	// getenv reads the environment; tests replace it.
	getenv func(string) string
}

// usageError is a mistake in the command line; it exits with code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// usageErrorf returns a usage error (exit code 2) with a formatted message.
func usageErrorf(format string, a ...any) error {
	return &usageError{msg: fmt.Sprintf(format, a...)}
}

// Main runs the command line in args (without the program name) and returns the exit code.
// With no arguments it would open the desktop app, which does not exist yet.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stdout, "The Parley desktop app is not built yet; run `parley --help` for the command-line client.")
		return exitOK
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	g := &globals{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv}
	return run(ctx, g, args)
}

// run executes one command line with the given globals; it is Main without the process wiring.
func run(ctx context.Context, g *globals, args []string) int {
	root := newRootCmd(g)
	root.SetArgs(args)
	var started bool
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		started = true
		return nil
	}
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	var ue *usageError
	if errors.As(err, &ue) || !started {
		fmt.Fprintf(g.stderr, "parley: %s\n", oneLine(err.Error()))
		if cmd != nil {
			fmt.Fprintf(g.stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
		}
		return exitUsage
	}
	var ce *codeError
	if errors.As(err, &ce) {
		return ce.code
	}
	fmt.Fprintf(g.stderr, "parley: %s\n", explain(err, g))
	return exitFailure
}

// codeError carries an exit code from a command that has already reported its outcome.
type codeError struct{ code int }

func (e *codeError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func newRootCmd(g *globals) *cobra.Command {
	root := &cobra.Command{
		Use:   "parley",
		Short: "Parley: a voice assistant for the Chat and Voice Service",
		Long: `Parley talks to a Chat and Voice Service: chat with persistent conversations,
speech-to-text and text-to-speech. With no arguments it will open the desktop app (not built yet).

The service's address comes from --base-url, PARLEY_BASE_URL, the address saved by
'parley login', or http://127.0.0.1:8780 (the reference service, 'parley serve').
The API key comes from --api-key, PARLEY_API_KEY, or the system keyring ('parley login').`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.CompletionOptions.DisableDefaultCmd = true
	pf := root.PersistentFlags()
	pf.StringVar(&g.baseURL, "base-url", "", "the service's address (env PARLEY_BASE_URL)")
	pf.StringVar(&g.apiKey, "api-key", "", "the API key (env PARLEY_API_KEY; prefer 'parley login', which keeps it in the keyring)")
	pf.BoolVar(&g.json, "json", false, "print results as JSON")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{msg: err.Error()} })
	root.SetOut(g.stdout)
	root.SetErr(g.stderr)
	root.SetIn(g.stdin)
	for _, c := range commands(g) {
		root.AddCommand(c)
	}
	return root
}

// oneLine keeps the first line of a message.
func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
