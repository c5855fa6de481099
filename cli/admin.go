package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"parley/internal/explain"
	"parley/keystore"
	"parley/server"
)

// adminKeyEnv names the environment variable admin reads a customer's key from when --key is
// not given. It is not PARLEY_API_KEY, the key the client commands send as the caller's own.
const adminKeyEnv = "PARLEY_ADMIN_KEY"

// newAdminCmd is the reference service's back office: keys, points and the price, on the
// database in --data.
func newAdminCmd(g *globals) *cobra.Command {
	a := &server.Admin{DataDir: g.dataDir()}
	cmd := &cobra.Command{
		Use:   "admin <command>",
		Short: "Manage keys, points and the price of the reference service",
		Long: `Manage the API keys, the points and the price of a chat call of the reference service
('parley serve'), in the database of its --data directory, also while the service runs.

  parley admin key create --points N      create an API key with N points; the key is the last line printed
  parley admin key revoke KEY             revoke an API key (KEY "-": read it from standard input)
  parley admin points grant --key KEY N   add N points to a key's balance
  parley admin balance --key KEY          print a key's balance
  parley admin price set N                set the points a chat call costs (from the next call)
  parley admin price show                 print the points a chat call costs
  parley admin ledger --key KEY           list a key's grants, charges and refunds

A key on the command line can be read by other users of this computer (in the process
list) while the command runs. Give it out of their sight instead: --key - reads it from
standard input (one line; asked for without echo on a terminal), and without --key the
key comes from the environment variable PARLEY_ADMIN_KEY.

  parley admin balance --key - < keyfile
  PARLEY_ADMIN_KEY=$(cat keyfile) parley admin ledger

Each command that takes a key says on standard error where the key came from and the
account it belongs to, so that a variable left over from another customer does not go
unnoticed:

  Using the key from PARLEY_ADMIN_KEY (account 7).

Flags may come before or after the other arguments.`,
		RunE: g.runGroup("command"),
	}
	cmd.PersistentFlags().StringVar(&a.DataDir, "data", a.DataDir, "`directory` of the service's database (parley.db)")
	cmd.AddCommand(
		adminGroup(g, "key", "Create or revoke an API key", newAdminKeyCreateCmd(g, a), newAdminKeyRevokeCmd(g, a)),
		adminGroup(g, "points", "Grant points to a key", newAdminGrantCmd(g, a)),
		newAdminBalanceCmd(g, a),
		adminGroup(g, "price", "Set or show the points a chat call costs", newAdminPriceSetCmd(g, a), newAdminPriceShowCmd(g, a)),
		newAdminLedgerCmd(g, a),
	)
	return cmd
}

// adminGroup is a word of admin that only leads to its subcommands (key, points, price).
func adminGroup(g *globals, name, short string, subs ...*cobra.Command) *cobra.Command {
	cmd := &cobra.Command{Use: name + " <command>", Short: short, RunE: g.runGroup("command")}
	cmd.AddCommand(subs...)
	return cmd
}

// adminNoArgs refuses positional arguments without repeating them: a misplaced one may be a key.
func adminNoArgs(hint string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return usageErrorf("%s takes no arguments (%s)", cmd.CommandPath(), hint)
		}
		return nil
	}
}

// oneArg wants exactly one positional argument, the thing named.
func oneArg(what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != 1 {
			return usageErrorf("%s takes one argument, %s; got %d", cmd.CommandPath(), what, len(args))
		}
		return nil
	}
}

// keyFlag adds --key to cmd.
func keyFlag(cmd *cobra.Command, key *string) {
	cmd.Flags().StringVar(key, "key", "", "the API `KEY`; \"-\" reads it from standard input (a KEY given here can be seen by other users in the process list; without --key, "+adminKeyEnv+" is used)")
}

// adminKey is a customer's key for an admin command, and where it came from (for messages).
type adminKey struct {
	key  string
	from string // "the command line", "standard input" or adminKeyEnv
}

// resolveAdminKey picks the key an admin command is about: flag is the value of --key (or the
// KEY of 'key revoke'), "-" reading it from standard input; without one, PARLEY_ADMIN_KEY.
// The key is registered with the printer before anything can print it. It then says on standard
// error where the key came from and which account it is (announceKey).
func (g *globals) resolveAdminKey(ctx context.Context, cmd *cobra.Command, a *server.Admin, flag string) (adminKey, error) {
	k := adminKey{key: strings.TrimSpace(flag), from: "the command line"}
	switch {
	case k.key == "-":
		key, err := g.readAdminKey(ctx)
		if err != nil {
			return adminKey{}, err
		}
		k = adminKey{key: key, from: "standard input"}
	case k.key == "":
		k = adminKey{key: strings.TrimSpace(g.getenv(adminKeyEnv)), from: adminKeyEnv}
	}
	g.printer.addSecret(k.key, true)
	if k.key == "" {
		return adminKey{}, usageErrorf("%s needs a key: --key - reads it from standard input, or set %s (--key KEY works too, but other users can see it)", cmd.CommandPath(), adminKeyEnv)
	}
	if err := keystore.ValidateKey(k.key); err != nil {
		return adminKey{}, usageErrorf("the key from %s is not usable: %v", k.from, err)
	}
	g.announceKey(ctx, a, k)
	return k, nil
}

// announceKey says on standard error where the key came from and whose account it is, before
// the command acts on it: a PARLEY_ADMIN_KEY left over from another customer would otherwise
// have points granted to, or a key revoked on, the wrong account without a word. A key with no
// account (or no database) is left to the command's own error, which names where it came from.
func (g *globals) announceKey(ctx context.Context, a *server.Admin, k adminKey) {
	id, err := a.Account(ctx, k.key)
	if err != nil {
		return
	}
	fmt.Fprintf(g.stderr, "Using the key from %s (account %d).\n", k.from, id)
}

// readAdminKey reads a key from standard input: asked for without echo on a terminal, else the
// first line, trimmed.
func (g *globals) readAdminKey(ctx context.Context) (string, error) {
	return g.readKeyFromStdin(ctx, fmt.Sprintf("no key on standard input: pipe it in ('--key - < keyfile'), or set %s", adminKeyEnv))
}

// keyFailure phrases "no account has this key" for a key from standard input or the
// environment; the general sentence names the command line's --key or KEY.
func (k adminKey) keyFailure(err error) error {
	if !errors.Is(err, server.ErrNoSuchKey) || k.from == "the command line" {
		return err
	}
	return phrased(err, "No account has this API key in the service's database: check the key in %s, and --data if the service keeps its data elsewhere.", k.from)
}

// numberArgFlagError makes a command whose argument is a count of points read "-5" as that
// argument, which pflag takes for an unknown shorthand flag, and refuse it as a number.
func numberArgFlagError(g *globals, what string, allowZero bool) func(*cobra.Command, error) error {
	return func(cmd *cobra.Command, err error) error {
		var ne *pflag.NotExistError
		if errors.As(err, &ne) {
			if s := ne.GetSpecifiedShortnames(); s != "" && s[0] >= '0' && s[0] <= '9' {
				_, err := parsePoints("-"+s, what, allowZero)
				return err
			}
		}
		return g.flagError(cmd, err)
	}
}

// parsePoints parses a count of points from the command line: a whole number, "_" allowed
// between digits (1_000), 0 only if allowZero. what names the value in the error.
func parsePoints(s, what string, allowZero bool) (int64, error) {
	// 1_000 and 1,000 (as Parley prints points) read as 1000.
	n, err := strconv.ParseInt(strings.NewReplacer("_", "", ",", "").Replace(s), 10, 64)
	switch {
	case allowZero && (err != nil || n < 0):
		return 0, usageErrorf("%s must be a whole number, 0 or more, not %q", what, s)
	case !allowZero && (err != nil || n <= 0):
		return 0, usageErrorf("%s must be a positive whole number, not %q", what, s)
	}
	return n, nil
}

// pointsText is "1 point" or "n points", thousands separated.
func pointsText(n int64) string { return explain.Points(n) }

func newAdminKeyCreateCmd(g *globals, a *server.Admin) *cobra.Command {
	var points string
	cmd := &cobra.Command{
		Use:   "create --points N",
		Short: "Create an API key with N points; the key is the last line printed",
		Args:  adminNoArgs("give the points with --points N"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("points") {
				return usageErrorf("%s needs --points N (0 or more)", cmd.CommandPath())
			}
			n, err := parsePoints(points, "--points", true)
			if err != nil {
				return err
			}
			key, balance, err := a.CreateKey(cmd.Context(), n)
			if err != nil {
				return err
			}
			fmt.Fprintf(g.stdout, "Created an API key with %s. It is shown only now; only its hash is stored:\n", pointsText(balance))
			fmt.Fprintln(g.stdout, key)
			return nil
		},
	}
	cmd.Flags().StringVar(&points, "points", "", "the key's starting balance, `N` points (0 or more)")
	return cmd
}

func newAdminKeyRevokeCmd(g *globals, a *server.Admin) *cobra.Command {
	return &cobra.Command{
		Use:   "revoke KEY",
		Short: "Revoke an API key; its account and ledger are kept (KEY \"-\" reads it from standard input)",
		Args:  oneArg("the key (\"-\" reads it from standard input)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			k, err := g.resolveAdminKey(cmd.Context(), cmd, a, args[0])
			if err != nil {
				return err
			}
			if err := a.RevokeKey(cmd.Context(), k.key); err != nil {
				return k.keyFailure(err)
			}
			fmt.Fprintln(g.stdout, "The key is revoked; calls with it now get 401.")
			return nil
		},
	}
}

func newAdminGrantCmd(g *globals, a *server.Admin) *cobra.Command {
	var key string
	const what = "the points to grant"
	cmd := &cobra.Command{
		Use:   "grant --key KEY N",
		Short: "Add N points to a key's balance",
		Args:  oneArg("the number of points"),
		RunE: func(cmd *cobra.Command, args []string) error {
			n, err := parsePoints(args[0], what, false)
			if err != nil {
				return err
			}
			k, err := g.resolveAdminKey(cmd.Context(), cmd, a, key)
			if err != nil {
				return err
			}
			balance, err := a.Grant(cmd.Context(), k.key, n)
			if err != nil {
				return k.keyFailure(err)
			}
			fmt.Fprintf(g.stdout, "Granted %s; the balance is %s.\n", pointsText(n), explain.Number(balance))
			return nil
		},
	}
	keyFlag(cmd, &key)
	cmd.SetFlagErrorFunc(numberArgFlagError(g, what, false))
	return cmd
}

func newAdminBalanceCmd(g *globals, a *server.Admin) *cobra.Command {
	var key string
	cmd := &cobra.Command{
		Use:   "balance --key KEY",
		Short: "Print a key's balance",
		Args:  adminNoArgs("give the key with --key - or " + adminKeyEnv + ", or --key KEY"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			k, err := g.resolveAdminKey(cmd.Context(), cmd, a, key)
			if err != nil {
				return err
			}
			balance, err := a.Balance(cmd.Context(), k.key)
			if err != nil {
				return k.keyFailure(err)
			}
			fmt.Fprintln(g.stdout, balance)
			return nil
		},
	}
	keyFlag(cmd, &key)
	return cmd
}

func newAdminPriceSetCmd(g *globals, a *server.Admin) *cobra.Command {
	const what = "the price"
	cmd := &cobra.Command{
		Use:   "set N",
		Short: "Set the points a chat call costs, from the next call on",
		Args:  oneArg("the price in points"),
		RunE: func(cmd *cobra.Command, args []string) error {
			n, err := parsePoints(args[0], what, true)
			if err != nil {
				return err
			}
			if err := a.SetPrice(cmd.Context(), n); err != nil {
				return err
			}
			fmt.Fprintf(g.stdout, "A chat call now costs %s, from the next call on.\n", pointsText(n))
			return nil
		},
	}
	cmd.SetFlagErrorFunc(numberArgFlagError(g, what, true))
	return cmd
}

func newAdminPriceShowCmd(g *globals, a *server.Admin) *cobra.Command {
	return &cobra.Command{
		Use:   "show",
		Short: "Print the points a chat call costs",
		Args:  adminNoArgs("it prints the current price"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := a.Price(cmd.Context())
			if err != nil {
				return err
			}
			fmt.Fprintln(g.stdout, p)
			return nil
		},
	}
}

func newAdminLedgerCmd(g *globals, a *server.Admin) *cobra.Command {
	var key string
	cmd := &cobra.Command{
		Use:   "ledger --key KEY",
		Short: "List a key's grants, charges and refunds",
		Args:  adminNoArgs("give the key with --key - or " + adminKeyEnv + ", or --key KEY"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			k, err := g.resolveAdminKey(cmd.Context(), cmd, a, key)
			if err != nil {
				return err
			}
			entries, err := a.Ledger(cmd.Context(), k.key)
			if err != nil {
				return k.keyFailure(err)
			}
			tw := tabwriter.NewWriter(g.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "TIME\tKIND\tAMOUNT\tBALANCE AFTER\tSTATUS\tCALL ID")
			for _, e := range entries {
				status, call := e.Status, e.CallID
				if status == "" {
					status = "-"
				}
				if call == "" {
					call = "-"
				}
				fmt.Fprintf(tw, "%s\t%s\t%+d\t%d\t%s\t%s\n",
					e.CreatedAt.UTC().Format("2006-01-02 15:04:05Z"), e.Kind, e.Amount, e.BalanceAfter, status, call)
			}
			return tw.Flush()
		},
	}
	keyFlag(cmd, &key)
	return cmd
}
