package cli

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"parley/internal/explain"
	"parley/server"
)

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
  parley admin key revoke KEY             revoke an API key
  parley admin points grant --key KEY N   add N points to a key's balance
  parley admin balance --key KEY          print a key's balance
  parley admin price set N                set the points a chat call costs (from the next call)
  parley admin price show                 print the points a chat call costs
  parley admin ledger --key KEY           list a key's grants, charges and refunds

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
	cmd.Flags().StringVar(key, "key", "", "the API `KEY`")
}

// needKey is the usage error of a command run without --key.
func needKey(cmd *cobra.Command, key string) error {
	if key == "" {
		return usageErrorf("%s needs --key KEY", cmd.CommandPath())
	}
	return nil
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
		Short: "Revoke an API key; its account and ledger are kept",
		Args:  oneArg("the key"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.RevokeKey(cmd.Context(), args[0]); err != nil {
				return err
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
			if err := needKey(cmd, key); err != nil {
				return err
			}
			balance, err := a.Grant(cmd.Context(), key, n)
			if err != nil {
				return err
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
		Args:  adminNoArgs("give the key with --key KEY"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := needKey(cmd, key); err != nil {
				return err
			}
			balance, err := a.Balance(cmd.Context(), key)
			if err != nil {
				return err
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
		Args:  adminNoArgs("give the key with --key KEY"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := needKey(cmd, key); err != nil {
				return err
			}
			entries, err := a.Ledger(cmd.Context(), key)
			if err != nil {
				return err
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
