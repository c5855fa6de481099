package server

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"parley/server/store"
)

const adminUsage = `Usage: parley admin [--data DIR] <command>

Commands:
  key create --points N       create an API key with N points; the key is the last line printed
  key revoke KEY              revoke an API key
  points grant --key KEY N    add N points to a key's balance
  balance --key KEY           print a key's balance
  price set N                 set the points a chat call costs (from the next call)
  price show                  print the points a chat call costs
  ledger --key KEY            list a key's grants, charges and refunds

--data defaults to %s; flags may come before or after the other arguments.
`

// adminArgs is a parsed admin command line.
type adminArgs struct {
	data   string
	points int64
	key    string
	words  []string        // the command and its positional arguments
	set    map[string]bool // the flags given
}

// parseAdmin parses flags wherever they stand among the words.
func parseAdmin(args []string) (*adminArgs, error) {
	a := &adminArgs{set: map[string]bool{}}
	fs := flag.NewFlagSet("parley admin", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&a.data, "data", DefaultDataDir(), "")
	fs.Int64Var(&a.points, "points", 0, "")
	fs.StringVar(&a.key, "key", "", "")
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			break
		}
		a.words = append(a.words, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	fs.Visit(func(f *flag.Flag) { a.set[f.Name] = true })
	return a, nil
}

// adminCommand is one admin command: its words, how many positional
// arguments follow them, the flags it needs and what it does.
type adminCommand struct {
	words  string
	args   int
	flags  []string
	create bool // may create the database
	run    func(ctx context.Context, st *store.Store, a *adminArgs, pos []string, stdout io.Writer) error
}

var adminCommands = []adminCommand{
	{words: "key create", flags: []string{"points"}, create: true, run: adminKeyCreate},
	{words: "key revoke", args: 1, run: func(ctx context.Context, st *store.Store, _ *adminArgs, pos []string, stdout io.Writer) error {
		if err := st.RevokeKey(ctx, pos[0]); err != nil {
			return err
		}
		fmt.Fprintln(stdout, "The key is revoked; calls with it now get 401.")
		return nil
	}},
	{words: "points grant", args: 1, flags: []string{"key"}, run: adminGrant},
	{words: "balance", flags: []string{"key"}, run: func(ctx context.Context, st *store.Store, a *adminArgs, _ []string, stdout io.Writer) error {
		acct, err := st.AccountByKey(ctx, a.key)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, acct.Balance)
		return nil
	}},
	{words: "price set", args: 1, create: true, run: adminPriceSet},
	{words: "price show", run: func(ctx context.Context, st *store.Store, _ *adminArgs, _ []string, stdout io.Writer) error {
		p, err := st.Price(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, p)
		return nil
	}},
	{words: "ledger", flags: []string{"key"}, run: adminLedger},
}

// AdminMain runs `parley admin`; args exclude the word "admin". It returns
// the exit code: 0 done, 1 failed (say an unknown key), 2 bad usage.
func AdminMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	usage := func(format string, v ...any) int {
		if format != "" {
			fmt.Fprintf(stderr, "parley admin: "+format+"\n", v...)
		}
		fmt.Fprintf(stderr, adminUsage, DefaultDataDir())
		return 2
	}
	a, err := parseAdmin(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(stdout, adminUsage, DefaultDataDir())
		return 0
	}
	if err != nil {
		return usage("%v", err)
	}
	cmd, pos := findAdminCommand(a.words)
	if cmd == nil {
		if len(a.words) == 0 {
			return usage("")
		}
		return usage("unknown command %q", strings.Join(a.words, " "))
	}
	if len(pos) != cmd.args {
		return usage("%s takes %d argument(s), got %d", cmd.words, cmd.args, len(pos))
	}
	for name := range a.set {
		if name != "data" && !contains(cmd.flags, name) {
			return usage("%s does not take --%s", cmd.words, name)
		}
	}
	for _, name := range cmd.flags {
		if !a.set[name] {
			return usage("%s needs --%s", cmd.words, name)
		}
	}
	if a.set["points"] && a.points < 0 {
		return usage("--points must not be negative")
	}

	path := filepath.Join(a.data, "parley.db")
	if cmd.create {
		if err := os.MkdirAll(a.data, 0o700); err != nil {
			fmt.Fprintf(stderr, "parley admin: cannot create the data directory: %v\n", err)
			return 1
		}
	} else if _, err := os.Stat(path); err != nil {
		fmt.Fprintf(stderr, "parley admin: there is no Parley database in %s (give --data DIR)\n", a.data)
		return 1
	}
	st, err := store.Open(ctx, path)
	if err != nil {
		fmt.Fprintf(stderr, "parley admin: %v\n", err)
		return 1
	}
	defer st.Close()
	err = cmd.run(ctx, st, a, pos, stdout)
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		return usage("%v", ue)
	case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrUnknownKey):
		fmt.Fprintln(stderr, "parley admin: no such key")
		return 1
	default:
		fmt.Fprintf(stderr, "parley admin: %v\n", err)
		return 1
	}
}

// findAdminCommand matches the leading words to a command.
func findAdminCommand(words []string) (*adminCommand, []string) {
	for i := range adminCommands {
		c := &adminCommands[i]
		w := strings.Fields(c.words)
		if len(words) >= len(w) && strings.Join(words[:len(w)], " ") == c.words {
			return c, words[len(w):]
		}
	}
	return nil, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// parsePoints parses a count of points from the command line.
func parsePoints(s string, allowZero bool) (int64, error) {
	n, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64)
	if err != nil || n < 0 || n == 0 && !allowZero {
		want := "a positive whole number"
		if allowZero {
			want = "a whole number, 0 or more"
		}
		return 0, usageError{fmt.Sprintf("%q is not %s of points", s, want)}
	}
	return n, nil
}

func adminKeyCreate(ctx context.Context, st *store.Store, a *adminArgs, _ []string, stdout io.Writer) error {
	key, acct, err := st.CreateKey(ctx, a.points)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Created an API key with %d points. It is shown only now; only its hash is stored:\n", acct.Balance)
	fmt.Fprintln(stdout, key)
	return nil
}

func adminGrant(ctx context.Context, st *store.Store, a *adminArgs, pos []string, stdout io.Writer) error {
	n, err := parsePoints(pos[0], false)
	if err != nil {
		return err
	}
	balance, err := st.Grant(ctx, a.key, n, "granted with parley admin")
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Granted %d points; the balance is %d.\n", n, balance)
	return nil
}

func adminPriceSet(ctx context.Context, st *store.Store, _ *adminArgs, pos []string, stdout io.Writer) error {
	n, err := parsePoints(pos[0], true)
	if err != nil {
		return err
	}
	if err := st.SetPrice(ctx, n); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "A chat call now costs %d points, from the next call on.\n", n)
	return nil
}

func adminLedger(ctx context.Context, st *store.Store, a *adminArgs, _ []string, stdout io.Writer) error {
	acct, err := st.AccountByKey(ctx, a.key)
	if err != nil {
		return err
	}
	entries, err := st.Ledger(ctx, acct.ID)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
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
}
