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
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"parley/client"
	"parley/internal/version"
	"parley/keystore"
	"parley/server"
)

// Exit codes of every command.
const (
	exitOK      = 0
	exitFailure = 1 // the service, the network, a file or a device failed
	exitUsage   = 2 // the command line was wrong
	// exitReplyLost: a chat message left and its reply did not come back readable, so it may
	// have been charged (it was, when the service answered with success). A script must not
	// simply send it again.
	exitReplyLost = 3
	// 128 + the signal's number when a signal (Ctrl-C: 130) stopped the command.
	exitSignal = 128
)

// globals holds the process's streams, the flags every command shares, and what this run has
// resolved so far (for messages that must fit the situation).
type globals struct {
	stdin  io.Reader
	stdout io.Writer
	// stderr is the printer: everything written to it is redacted.
	stderr    io.Writer
	printer   *stderrPrinter
	stderrTTY bool // standard error is a terminal: the spinner may show

	json    bool
	baseURL string
	apiKey  string
	timeout time.Duration

	// What a run takes from the process besides its streams. Main gives the process's; tests
	// give their own (cli.RunInProcess), so that runs sharing one test process share none of it.
	getenv        func(string) string    // reads the environment
	userConfigDir func() (string, error) // the user's config directory, as os.UserConfigDir
	dataDir       func() string          // the service's default --data directory
	keyring       *keystore.Store        // where 'parley login' keeps API keys
	spinnerDelay  time.Duration          // how long a call may take before the spinner shows

	// Resolved during the run.
	base        string        // the service address in use
	baseFrom    string        // where base came from: "--base-url", "PARLEY_BASE_URL", ...
	keySource   keySource     // where the key came from
	timeoutUsed time.Duration // the timeout per call
	command     string        // the command's path, such as "parley chat"
	conv        string        // the conversation the command is about, if any
}

// newGlobals wires the streams; every line on stderr goes through one redacting printer, which
// run tells of the keys in the command line and the environment before anything is printed.
// The user's directories and the keyring are the process's; a test replaces them.
func newGlobals(stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) *globals {
	p := &stderrPrinter{w: stderr}
	return &globals{
		stdin: stdin, stdout: stdout, stderr: p, printer: p, stderrTTY: isTerminal(stderr),
		getenv:        getenv,
		userConfigDir: os.UserConfigDir,
		dataDir:       server.DefaultDataDir,
		keyring:       keystore.New(),
		spinnerDelay:  time.Second,
	}
}

// init turns on cobra's EnableTraverseRunHooks (the persistent pre-run hooks of every parent run,
// not only the nearest one's), the one global setting of cobra's the CLI needs: set once, before
// any run, so that runs in parallel (in tests) never write it.
func init() { cobra.EnableTraverseRunHooks = true }

// signalError is the cause of a run cancelled by a signal.
type signalError struct{ sig os.Signal }

func (e *signalError) Error() string { return "interrupted by " + e.sig.String() }

// Main runs the command line in args (without the program name) and returns the exit code.
// With no arguments it prints the help: `parley` alone opens the desktop app, which main starts
// before the command line is read.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		select {
		case s := <-sigs:
			cancel(&signalError{sig: s})
			signal.Stop(sigs) // a second Ctrl-C ends the process at once
		case <-ctx.Done():
		}
	}()
	return run(ctx, newGlobals(stdin, stdout, stderr, os.Getenv), args)
}

// run executes one command line with the given globals; it is Main without the process wiring
// (signals, the environment, the user's directories, the keyring), which g carries instead.
// When ctx is cancelled with a *signalError as its cause, run ends as that signal ends the
// process: "interrupted", and 128 + the signal's number.
func run(ctx context.Context, g *globals, args []string) int {
	if len(args) == 0 {
		args = []string{"--help"}
	}
	root := newRootCmd(g)
	root.SetArgs(args)
	var started bool
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		started = true
		g.command = cmd.CommandPath()
		if cmd.Flags().Changed("timeout") && g.timeout <= 0 {
			return usageErrorf("--timeout must be more than 0, such as 30s or 2m")
		}
		return nil
	}
	var (
		cmd *cobra.Command
		err error
	)
	if key := g.notePossibleKeys(args); key != "" && isCommandName(root, key) {
		err = usageErrorf("--api-key took a command's name as the key: put the key right after --api-key, or leave the flag out and use 'parley login'")
	} else {
		cmd, err = root.ExecuteContextC(ctx)
	}
	if err == nil {
		return exitOK
	}
	var se *signalError
	if errors.As(context.Cause(ctx), &se) {
		if errors.Is(err, client.ErrReplyLost) {
			fmt.Fprintf(g.stderr, "parley: %s\n", g.describe(err))
		} else {
			fmt.Fprintln(g.stderr, "parley: interrupted.")
		}
		if s, ok := se.sig.(syscall.Signal); ok {
			return exitSignal + int(s)
		}
		return exitSignal + int(syscall.SIGINT)
	}
	var ce *codeError
	if errors.As(err, &ce) {
		return ce.code
	}
	var ue *usageError
	if errors.As(err, &ue) || !started {
		path := root.CommandPath()
		if cmd != nil && cmd.Name() != "help" {
			path = cmd.CommandPath()
		}
		see := fmt.Sprintf(" (see '%s --help')", path)
		limit := maxLine - utf8.RuneCountInString(see)
		msg := usageLine(err.Error())
		if ue != nil {
			msg = ue.line(limit)
		}
		fmt.Fprintf(g.stderr, "parley: %s%s\n", clipTo(msg, limit), see)
		return exitUsage
	}
	fmt.Fprintf(g.stderr, "parley: %s\n", g.describe(err))
	if errors.Is(err, client.ErrReplyLost) {
		return exitReplyLost
	}
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
speech-to-text and text-to-speech. With no arguments it opens the desktop app (or shows
the one running); 'parley --tray' starts it hidden in the tray, as at login.

The service's address comes from --base-url, PARLEY_BASE_URL, the address saved by
'parley login', or http://127.0.0.1:8780 (the reference service, 'parley serve').
The API key comes from --api-key, PARLEY_API_KEY, or the system keyring ('parley login').`,
		Version:       version.String(),
		SilenceUsage:  true,
		SilenceErrors: true,
		// Runnable, so that a word that is not a command is refused by g.unknownCommand, which
		// does not repeat one that may be a key; with no word it prints the help.
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return g.unknownCommand(cmd, "command", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	root.SetVersionTemplate("{{.Version}}\n")
	pf := root.PersistentFlags()
	pf.StringVar(&g.baseURL, "base-url", "", "the service's address, such as https://api.example.com (env PARLEY_BASE_URL)")
	pf.StringVar(&g.apiKey, "api-key", "", "the API key (env PARLEY_API_KEY; prefer 'parley login', which keeps it in the keyring)")
	pf.DurationVar(&g.timeout, "timeout", 0, "give up on a call to the service after this long, such as 30s (env PARLEY_TIMEOUT; default 2m)")
	pf.BoolVar(&g.json, "json", false, "print results as JSON")
	root.SetFlagErrorFunc(g.flagError)
	root.SetOut(g.stdout)
	root.SetErr(g.stderr)
	root.SetIn(g.stdin)
	for _, c := range commands(g) {
		root.AddCommand(c)
	}
	root.SetHelpCommand(newHelpCmd(g))
	// cobra's completion command prints its help and exits 0 for a shell it does not know.
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Args, c.RunE = cobra.ArbitraryArgs, g.runGroup("shell")
		}
	}
	return root
}

// usageLine turns cobra's usage errors into one line, keeping its "Did you mean …?" suggestions.
func usageLine(msg string) string {
	first, rest, _ := strings.Cut(msg, "\n")
	const mean = "Did you mean this?"
	if _, after, ok := strings.Cut(rest, mean); ok {
		var names []string
		for _, l := range strings.Split(after, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				names = append(names, "'"+l+"'")
			}
		}
		if len(names) > 0 {
			first += "; did you mean " + strings.Join(names, " or ") + "?"
		}
	}
	return first
}
