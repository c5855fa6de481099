package cli_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// adminKey creates a key with points in the data directory dir and returns it.
func adminKey(t *testing.T, h *home, dir, points string) string {
	t.Helper()
	r := h.run(t, "", "admin", "--data", dir, "key", "create", "--points", points)
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	key := lines[len(lines)-1]
	if r.Code != 0 || !strings.HasPrefix(key, "pk_") || strings.ContainsAny(key, " \t") {
		t.Fatalf("admin key create: %s", r)
	}
	return key
}

// assertOneLineError checks that a failed command printed its error on one line, with at most
// a pointer to --help after it, and no usage block.
func assertOneLineError(t *testing.T, args []string, stderr string) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	if len(lines) > 2 || !strings.HasPrefix(lines[0], "parley: ") || strings.Contains(stderr, "Usage:") || strings.Contains(stderr, "Flags:") {
		t.Errorf("%v: want a one-line error, got:\n%s", args, stderr)
	}
}

func TestAdmin_KeyPointsPriceAndLedger(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	dir := filepath.Join(h.dir, "service data") // created by key create
	r := h.run(t, "", "admin", "--data", dir, "key", "create", "--points", "1")
	if r.Code != 0 || !strings.HasPrefix(r.Stdout, "Created an API key with 1 point. ") {
		t.Fatalf("key create --points 1: %s", r)
	}
	key := adminKey(t, h, dir, "5")

	const fromArgs = "Using the key from the command line (account 2).\n"
	for _, c := range []struct {
		args []string
		out  string
	}{
		{[]string{"--data", dir, "balance", "--key", key}, "5\n"},
		{[]string{"--data", dir, "points", "grant", "--key", key, "1"}, "Granted 1 point; the balance is 6.\n"},
		// Flags after the words, and --data last.
		{[]string{"points", "grant", "1_000", "--key", key, "--data", dir}, "Granted 1,000 points; the balance is 1,006.\n"},
		{[]string{"--data=" + dir, "balance", "--key=" + key}, "1006\n"},
		{[]string{"--data", dir, "price", "show"}, "1\n"},
		{[]string{"--data", dir, "price", "set", "1"}, "A chat call now costs 1 point, from the next call on.\n"},
		{[]string{"--data", dir, "price", "set", "0"}, "A chat call now costs 0 points, from the next call on.\n"},
		{[]string{"--data", dir, "price", "set", "2"}, "A chat call now costs 2 points, from the next call on.\n"},
		{[]string{"--data", dir, "price", "show"}, "2\n"},
		{[]string{"--data", dir, "key", "revoke", key}, "The key is revoked; calls with it now get 401.\n"},
		{[]string{"--data", dir, "balance", "--key", key}, "1006\n"},
	} {
		r := h.run(t, "", append([]string{"admin"}, c.args...)...)
		wantErr := "" // the commands that take a key say whose it is
		if slices.ContainsFunc(c.args, func(a string) bool { return a == key || a == "--key="+key }) {
			wantErr = fromArgs
		}
		if r.Code != 0 || r.Stdout != c.out || r.Stderr != wantErr {
			t.Errorf("admin %v: %s\nwant stdout %q, stderr %q", c.args, r, c.out, wantErr)
		}
	}

	r = h.run(t, "", "admin", "--data", dir, "ledger", "--key", key)
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	if r.Code != 0 || r.Stderr != fromArgs || len(lines) != 4 || strings.Join(strings.Fields(lines[0]), " ") != "TIME KIND AMOUNT BALANCE AFTER STATUS CALL ID" {
		t.Fatalf("ledger: %s", r)
	}
	for i, want := range []string{"grant +5 5 - -", "grant +1 6 - -", "grant +1000 1006 - -"} {
		if f := strings.Fields(lines[i+1]); len(f) != 7 || strings.Join(f[2:], " ") != want {
			t.Errorf("ledger line %d: %q, want the date, the time and %q", i+1, lines[i+1], want)
		}
	}
}

func TestAdmin_RefusesBadCommandLinesOnOneLine(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	dir := filepath.Join(h.dir, "data")
	key := adminKey(t, h, dir, "5")
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		// A negative number is a number, not a flag.
		{[]string{"points", "grant", "--key", key, "-5"}, 2, `the points to grant must be a positive whole number, not "-5"`},
		{[]string{"points", "grant", "-5", "--key", key}, 2, `the points to grant must be a positive whole number, not "-5"`},
		{[]string{"points", "grant", "--key", key, "--", "-5"}, 2, `the points to grant must be a positive whole number, not "-5"`},
		{[]string{"points", "grant", "--key", key, "-1.5"}, 2, `the points to grant must be a positive whole number, not "-1.5"`},
		{[]string{"points", "grant", "--key", key, "0"}, 2, `the points to grant must be a positive whole number, not "0"`},
		{[]string{"points", "grant", "--key", key, "ten"}, 2, `the points to grant must be a positive whole number, not "ten"`},
		{[]string{"points", "grant", "--key", key}, 2, "takes one argument, the number of points; got 0"},
		{[]string{"points", "grant", "--key", key, "5", "6"}, 2, "takes one argument, the number of points; got 2"},
		{[]string{"points", "grant", "5"}, 2, "parley admin points grant needs a key: --key - reads it from standard input, or set PARLEY_ADMIN_KEY"},
		{[]string{"points", "grant", "--key", key, "-x"}, 2, "unknown shorthand flag: 'x' in -x"},
		{[]string{"price", "set", "-1"}, 2, `the price must be a whole number, 0 or more, not "-1"`},
		{[]string{"price", "set", "x"}, 2, `the price must be a whole number, 0 or more, not "x"`},
		{[]string{"price", "set"}, 2, "takes one argument, the price in points; got 0"},
		{[]string{"price", "show", "3"}, 2, "parley admin price show takes no arguments"},
		{[]string{"key", "create"}, 2, "parley admin key create needs --points N"},
		{[]string{"key", "create", "--points", "-5"}, 2, `--points must be a whole number, 0 or more, not "-5"`},
		{[]string{"key", "create", "--points", "many"}, 2, `--points must be a whole number, 0 or more, not "many"`},
		{[]string{"key", "create", "--points"}, 2, "--points needs a value"},
		{[]string{"key", "revoke"}, 2, `takes one argument, the key ("-" reads it from standard input); got 0`},
		{[]string{"balance"}, 2, "parley admin balance needs a key"},
		{[]string{"balance", "--key", ""}, 2, "parley admin balance needs a key"},
		{[]string{"balance", "--key", key, "extra"}, 2, "parley admin balance takes no arguments (give the key with --key - or PARLEY_ADMIN_KEY, or --key KEY)"},
		{[]string{"balance", "--key", key, "--points", "3"}, 2, "unknown flag: --points"},
		{[]string{"ledger"}, 2, "parley admin ledger needs a key"},
		{[]string{"balance", "--key", "-"}, 2, "no key on standard input: pipe it in ('--key - < keyfile'), or set PARLEY_ADMIN_KEY"},
		{[]string{"key", "revoke", "-"}, 2, "no key on standard input"},
		{[]string{"balance", "--key", "pk_a b"}, 2, "the key from the command line is not usable: the API key contains a space"},
		{[]string{"--bogus"}, 2, "unknown flag: --bogus"},
		{[]string{}, 2, `"parley admin" needs a command: balance, key, ledger, points or price`},
		{[]string{"key"}, 2, `"parley admin key" needs a command: create or revoke`},
		{[]string{"kye"}, 2, `unknown command "kye" for "parley admin": give balance, key, ledger, points or price; did you mean 'key'?`},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate" for "parley admin"`},
		{[]string{"key", "destroy"}, 2, `unknown command "destroy" for "parley admin key"`},
		// Failures that are not the command line's.
		{[]string{"balance", "--key", "pk_nope"}, 1, "no account has this api key"},
		{[]string{"points", "grant", "--key", "pk_nope", "5"}, 1, "no account has this api key"},
		{[]string{"key", "revoke", "pk_nope"}, 1, "no account has this api key"},
		{[]string{"ledger", "--key", "pk_nope"}, 1, "no account has this api key"},
	} {
		args := append([]string{"admin", "--data", dir}, c.args...)
		r := h.run(t, "", args...)
		if r.Code != c.code || !strings.Contains(strings.ToLower(strings.SplitN(r.Stderr, "\n", 2)[0]), strings.ToLower(c.msg)) || r.Stdout != "" {
			t.Errorf("%v: %s\nwant exit %d and %q on the first line", c.args, r, c.code, c.msg)
			continue
		}
		assertOneLineError(t, c.args, r.Stderr)
	}

	// A key given where it does not belong is not repeated on the terminal.
	r := h.run(t, "", "admin", "--data", dir, "balance", key)
	if r.Code != 2 || strings.Contains(r.Stderr, key) {
		t.Errorf("balance KEY: %s", r)
	}

	// Reading commands do not create a database where there is none.
	absent := filepath.Join(h.dir, "absent")
	for _, args := range [][]string{{"balance", "--key", key}, {"price", "show"}} {
		r := h.run(t, "", append([]string{"admin", "--data", absent}, args...)...)
		if r.Code != 1 || !strings.Contains(strings.ToLower(r.Stderr), strings.ToLower("there is no Parley database in "+absent+": give the service's --data DIR")) {
			t.Errorf("%v without a database: %s", args, r)
		}
		assertOneLineError(t, args, r.Stderr)
	}
}

func TestAdmin_HelpListsEveryCommand(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	r := h.run(t, "", "admin", "--help")
	if r.Code != 0 || r.Stderr != "" {
		t.Fatalf("admin --help: %s", r)
	}
	for _, want := range []string{"key create --points N", "key revoke KEY", "points grant --key KEY N", "balance --key KEY",
		"price set N", "price show", "ledger --key KEY", "--data directory", filepath.Join(h.dir, "data", "parley")} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("admin --help lacks %q:\n%s", want, r.Stdout)
		}
	}
	for _, args := range [][]string{{"points", "grant", "--help"}, {"points", "grant", "-h", "--key", "k", "5"}} {
		r := h.run(t, "", append([]string{"admin"}, args...)...)
		if r.Code != 0 || !strings.Contains(r.Stdout, "grant --key KEY N") || !strings.Contains(r.Stdout, "--key KEY") || !strings.Contains(r.Stdout, "--data directory") {
			t.Errorf("admin %v: %s", args, r)
		}
	}
}

// A key on the command line is in the process list, where other users of the computer read
// it: admin also takes it from standard input (--key -, or KEY "-" for revoke) and from
// PARLEY_ADMIN_KEY, and says so in its help.
func TestAdmin_KeyFromStandardInputOrTheEnvironment(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	dir := filepath.Join(h.dir, "data")
	key := adminKey(t, h, dir, "5")
	other := adminKey(t, h, dir, "7")

	// Each command says where its key came from and whose account it is (key is account 1,
	// other account 2).
	const (
		fromStdin  = "Using the key from standard input (account 1).\n"
		fromEnv    = "Using the key from PARLEY_ADMIN_KEY (account 1).\n"
		otherArgs  = "Using the key from the command line (account 2).\n"
		otherStdin = "Using the key from standard input (account 2).\n"
	)
	for _, c := range []struct {
		env      string // PARLEY_ADMIN_KEY
		input    string
		args     []string
		out, err string
	}{
		{"", key + "\n", []string{"balance", "--key", "-"}, "5\n", fromStdin},
		{"", "  " + key + "  \r\nignored second line\n", []string{"balance", "--key=-"}, "5\n", fromStdin},
		{"", key, []string{"points", "grant", "--key", "-", "2"}, "Granted 2 points; the balance is 7.\n", fromStdin},
		{key, "", []string{"balance"}, "7\n", fromEnv},
		{key, "", []string{"points", "grant", "1"}, "Granted 1 point; the balance is 8.\n", fromEnv},
		// --key wins over the environment.
		{key, "", []string{"balance", "--key", other}, "7\n", otherArgs},
		{key, other + "\n", []string{"balance", "--key", "-"}, "7\n", otherStdin},
	} {
		h.env["PARLEY_ADMIN_KEY"] = c.env
		r := h.run(t, c.input, append([]string{"admin", "--data", dir}, c.args...)...)
		if r.Code != 0 || r.Stdout != c.out || r.Stderr != c.err {
			t.Errorf("PARLEY_ADMIN_KEY set: %v; admin %v, a key on stdin: %v: %s\nwant %q and on stderr %q", c.env != "", c.args, c.input != "", r, c.out, c.err)
		}
	}

	h.env["PARLEY_ADMIN_KEY"] = key
	r := h.run(t, "", "admin", "--data", dir, "ledger")
	if lines := strings.Split(strings.TrimSpace(r.Stdout), "\n"); r.Code != 0 || len(lines) != 4 || r.Stderr != fromEnv {
		t.Errorf("ledger with PARLEY_ADMIN_KEY: %s", r)
	}

	// A key that has no account is named by where it came from, and not printed.
	const unknown = "pk_0123456789abcdef0123456789abcdef"
	h.env["PARLEY_ADMIN_KEY"] = unknown
	for _, c := range []struct {
		input string
		args  []string
		where string
	}{
		{"", []string{"balance"}, "check the key in PARLEY_ADMIN_KEY"},
		{unknown + "\n", []string{"ledger", "--key", "-"}, "check the key in standard input"},
		{unknown + "\n", []string{"key", "revoke", "-"}, "check the key in standard input"},
	} {
		r := h.run(t, c.input, append([]string{"admin", "--data", dir}, c.args...)...)
		if r.Code != 1 || !strings.Contains(r.Stderr, c.where) || strings.Contains(r.Stderr, unknown) || strings.Contains(r.Stderr, unknown[3:15]) {
			t.Errorf("admin %v with an unknown key: %s\nwant exit 1 and %q, without the key", c.args, r, c.where)
		}
	}

	h.env["PARLEY_ADMIN_KEY"] = ""
	if r := h.run(t, key+"\n", "admin", "--data", dir, "key", "revoke", "-"); r.Code != 0 || r.Stdout != "The key is revoked; calls with it now get 401.\n" || r.Stderr != fromStdin {
		t.Errorf("key revoke - : %s", r)
	}

	for _, args := range [][]string{{"balance", "--help"}, {"--help"}} {
		r := h.run(t, "", append([]string{"admin"}, args...)...)
		help := strings.Join(strings.Fields(r.Stdout), " ")
		if r.Code != 0 || !strings.Contains(help, "other users") || !strings.Contains(help, "PARLEY_ADMIN_KEY") || !strings.Contains(help, `"-" reads it from standard input`) && !strings.Contains(help, "--key - reads it from standard input") {
			t.Errorf("admin %v does not say that --key KEY is visible to others, and what to use instead: %s", args, r)
		}
	}
}

// A PARLEY_ADMIN_KEY left over from another customer's work: a grant without --key goes to the
// account that key belongs to, and the command says which before it acts, on standard error
// (standard output stays the result alone, for scripts). Before, nothing showed that the
// points went to the wrong account.
func TestAdmin_SaysWhoseKeyItUses(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	dir := filepath.Join(h.dir, "data")
	stale := adminKey(t, h, dir, "5") // account 1, yesterday's customer
	adminKey(t, h, dir, "0")          // account 2, today's
	h.env["PARLEY_ADMIN_KEY"] = stale
	r := h.run(t, "", "admin", "--data", dir, "points", "grant", "1000")
	if r.Code != 0 || r.Stdout != "Granted 1,000 points; the balance is 1,005.\n" {
		t.Fatalf("grant with PARLEY_ADMIN_KEY: %s", r)
	}
	if want := "Using the key from PARLEY_ADMIN_KEY (account 1).\n"; r.Stderr != want {
		t.Errorf("grant with PARLEY_ADMIN_KEY: stderr %q, want %q", r.Stderr, want)
	}
	if strings.Contains(r.Stderr, stale) || strings.Contains(r.Stderr, stale[3:15]) {
		t.Errorf("the key was printed: %q", r.Stderr)
	}
	// Every command that takes a key says it, a revoked key's included.
	for _, args := range [][]string{{"balance"}, {"ledger"}, {"key", "revoke", "-"}, {"balance"}} {
		input := ""
		if args[len(args)-1] == "-" {
			input = stale + "\n"
		}
		r := h.run(t, input, append([]string{"admin", "--data", dir}, args...)...)
		if r.Code != 0 || !strings.HasPrefix(r.Stderr, "Using the key from ") || !strings.HasSuffix(r.Stderr, " (account 1).\n") {
			t.Errorf("admin %v: %s\nwant the key's source and account 1 on stderr", args, r)
		}
	}
}
