package cli

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// This file is where the CLI phrases mistakes in the command line (exit code 2): its own
// argument checks, and cobra's and pflag's errors rewritten as sentences. What a person typed is
// quoted back only when it cannot be a key: a word typed in the wrong place often is one.

// usageError is a mistake in the command line; it exits with code 2. Its arguments may be
// elastic, for fit to shorten.
type usageError struct {
	format string
	args   []any
}

func (e *usageError) Error() string { return fmt.Sprintf(e.format, e.args...) }

// line is the message in at most limit characters, shortening its elastic parts first.
func (e *usageError) line(limit int) string { return fitIn(limit, e.format, e.args...) }

// usageErrorf returns a usage error (exit code 2) with a formatted message.
func usageErrorf(format string, a ...any) error {
	return &usageError{format: format, args: a}
}

// notShown stands in a message for what was typed when it may be a key.
const notShown = "(not shown, in case it is a key)"

// mayBeKey reports whether a word typed on the command line must not be repeated: it is long
// enough to be a key, or the printer would redact it.
func (g *globals) mayBeKey(s string) bool {
	return utf8.RuneCountInString(s) >= 24 || g.printer.redact(s) != s
}

// notePossibleKeys registers with the printer, before cobra parses or prints anything, the values
// that are keys wherever they appear in args: the value of --api-key (the key in use, even when
// it is a word such as a command's name that the flag swallowed), PARLEY_API_KEY when no
// --api-key is given, the value of admin's --key and the KEY of 'admin key revoke'. It returns
// the value of --api-key, or "".
func (g *globals) notePossibleKeys(args []string) string {
	var apiKey string
	var seenAPIKey, revoke bool
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		name, value, hasValue := strings.Cut(a, "=")
		switch name {
		case "--api-key", "--key":
			if !hasValue && i+1 < len(args) {
				i++
				value, hasValue = args[i], true
			}
			if hasValue {
				g.printer.addSecret(value, true)
				if name == "--api-key" {
					apiKey, seenAPIKey = value, true
				}
			}
			continue
		case "revoke":
			revoke = slices.Contains(args[:i], "admin")
			continue
		}
		if revoke && !strings.HasPrefix(a, "-") {
			g.printer.addSecret(a, true)
		}
	}
	g.printer.addSecret(g.getenv("PARLEY_API_KEY"), !seenAPIKey)
	return apiKey
}

// isCommandName reports whether word names one of root's commands.
func isCommandName(root *cobra.Command, word string) bool {
	for _, c := range root.Commands() {
		if c.Name() == word || c.HasAlias(word) {
			return true
		}
	}
	return word == "help"
}

// unknownCommand refuses the first of args as a command of cmd, suggesting the nearest ones;
// noun says what the word should have been ("command", "shell").
func (g *globals) unknownCommand(cmd *cobra.Command, noun, word string) error {
	if g.mayBeKey(word) {
		return usageErrorf("unknown %s %s for %q", noun, notShown, cmd.CommandPath())
	}
	msg := fmt.Sprintf("unknown %s %q for %q", noun, word, cmd.CommandPath())
	if len(cmd.Commands()) <= 6 {
		msg += ": give " + choices(cmd)
	}
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
	if s := cmd.SuggestionsFor(word); len(s) > 0 {
		msg += "; did you mean " + quoteAll(s, " or ") + "?"
	}
	return usageErrorf("%s", msg)
}

// runGroup returns the RunE of a word that only leads to its subcommands (admin, admin key,
// completion): it refuses a command line that stops there or goes on with an unknown word.
func (g *globals) runGroup(noun string) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return g.unknownCommand(cmd, noun, args[0])
		}
		return usageErrorf("%q needs a %s: %s", cmd.CommandPath(), noun, choices(cmd))
	}
}

// choices lists cmd's subcommands: "a, b or c".
func choices(cmd *cobra.Command) string {
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	slices.Sort(names)
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// quoteAll puts each of words in single quotes and joins them with sep.
func quoteAll(words []string, sep string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = "'" + w + "'"
	}
	return strings.Join(q, sep)
}

// noArgs refuses positional arguments, naming a short one and not a long one.
func (g *globals) noArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if g.mayBeKey(args[0]) {
		return usageErrorf("%s takes no arguments (what was given is not shown, in case it is a key)", cmd.Name())
	}
	return usageErrorf("%s takes no arguments, but was given %q", cmd.Name(), args[0])
}

// textArgs wants at least one word: the message or text, or "-" for standard input.
func textArgs(what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) == 0 {
			return usageErrorf("give %s, or - to read it from standard input", what)
		}
		return nil
	}
}

// wantOne wants exactly one non-empty positional argument; what names it ("a conversation ID"),
// and hint says where to find one.
func wantOne(what, hint string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		switch {
		case len(args) == 0:
			return usageErrorf("give %s%s", what, hint)
		case len(args) > 1:
			return usageErrorf("give one argument, %s, not %d", what, len(args))
		case strings.TrimSpace(args[0]) == "":
			return usageErrorf("the argument is empty: give %s%s", what, hint)
		}
		return nil
	}
}

// flagError rewrites pflag's errors as sentences that say what the flag wants, quoting what was
// given only when it cannot be a key.
func (g *globals) flagError(_ *cobra.Command, err error) error {
	var (
		iv *pflag.InvalidValueError
		vr *pflag.ValueRequiredError
		nx *pflag.NotExistError
		sx *pflag.InvalidSyntaxError
	)
	switch {
	case errors.As(err, &iv):
		f := iv.GetFlag()
		return g.badValue("--"+f.Name, flagWants(f, iv.GetValue()), iv.GetValue())
	case errors.As(err, &vr):
		if wants := flagWants(vr.GetFlag(), ""); wants != "a value" {
			return usageErrorf("--%s needs a value: %s", vr.GetFlag().Name, wants)
		}
		return usageErrorf("--%s needs a value", vr.GetFlag().Name)
	case errors.As(err, &nx):
		if short := nx.GetSpecifiedShortnames(); short != "" && g.mayBeKey(short) {
			return usageErrorf("unknown flag -%c in a word that is not shown, in case it is a key", short[0])
		}
		if g.mayBeKey(nx.GetSpecifiedName()) {
			return usageErrorf("unknown flag %s", notShown)
		}
	case errors.As(err, &sx):
		if g.mayBeKey(sx.GetSpecifiedFlag()) {
			return usageErrorf("bad flag syntax %s", notShown)
		}
	}
	return usageErrorf("%s", err.Error())
}

// badValue is the usage error of a flag given a value it cannot take.
func (g *globals) badValue(flag, wants, value string) error {
	if g.mayBeKey(value) {
		return usageErrorf("%s wants %s (what was given is not shown, in case it is a key)", flag, wants)
	}
	return usageErrorf("%s wants %s, not %q", flag, wants, value)
}

// flagWants says what kind of value f takes; value is what was given, when it helps to say more.
func flagWants(f *pflag.Flag, value string) string {
	switch f.Value.Type() {
	case "int", "int64", "int32", "uint", "uint64":
		return "a whole number"
	case "float64", "float32":
		return "a number"
	case "duration":
		if _, err := strconv.ParseFloat(value, 64); err == nil {
			return "a duration with a unit, such as " + value + "s or 2m"
		}
		return "a duration such as 30s or 2m"
	case "bool":
		return "true or false"
	}
	return "a value"
}

// newHelpCmd replaces cobra's help command, which prints an unknown topic back as it was typed
// on standard output, where no printer redacts it.
func newHelpCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long:  "Help prints the help of any command: parley help chat.",
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := c.Root().Find(args)
			if err == nil && cmd != nil && cmd.HasSubCommands() {
				for _, a := range rest {
					if !strings.HasPrefix(a, "-") {
						err = g.unknownCommand(cmd, "help topic", a)
						break
					}
				}
			}
			if err != nil || cmd == nil {
				var ue *usageError
				if errors.As(err, &ue) {
					return err
				}
				return usageErrorf("no such help topic")
			}
			cmd.InitDefaultHelpFlag()
			cmd.InitDefaultVersionFlag()
			return cmd.Help()
		},
	}
}
