package cli

import (
	"errors"
	"fmt"
	"net/http"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"parley/client"
	"parley/keystore"
)

func newVoicesCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "voices [--json]",
		Short: "List the voices the service can speak with ('parley speak --voice NAME')",
		Args:  g.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := g.newClient(cmd.Context())
			if err != nil {
				return err
			}
			stop := g.waitFor("the list of voices")
			voices, err := c.Voices(cmd.Context())
			stop()
			var ce *client.Error
			if errors.As(err, &ce) && ce.StatusCode == http.StatusNotFound && !g.endsInV1() {
				return errors.New("this service does not list its voices (404): 'parley speak' without --voice uses its default voice")
			}
			if err != nil {
				return err
			}
			if g.json {
				if voices == nil {
					voices = []client.Voice{}
				}
				return writeJSON(g.stdout, voices)
			}
			if len(voices) == 0 {
				fmt.Fprintln(g.stderr, "The service has no voices: it cannot speak.")
				return nil
			}
			tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tLANGUAGE\tDESCRIPTION")
			for _, v := range voices {
				name := v.Name
				if v.Default {
					name += " *"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\n", name, v.Language, v.Description)
			}
			return tw.Flush()
		},
	}
}

// statusJSON is what 'status --json' prints.
type statusJSON struct {
	BaseURL   string `json:"base_url"`
	Local     bool   `json:"local"`
	KeySource string `json:"key_source"` // "flag", "env", "keyring" or "none"
	Reachable bool   `json:"reachable"`
	LatencyMS *int64 `json:"latency_ms,omitempty"`
	Balance   *int64 `json:"balance,omitempty"`
	Price     *int64 `json:"price,omitempty"`
	// ChatEngine is which chat model answers, when the service says (the reference service does).
	ChatEngine string `json:"chat_engine,omitempty"`
	Error      string `json:"error,omitempty"`
	asked      bool   // a request was sent
	noKey      bool   // none was found anywhere, which the API key line says
}

func newStatusCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "status [--json]",
		Short: "Show the service address, where the API key comes from, and whether the service answers",
		Long: `Shows the service's address, where the API key comes from (--api-key, PARLEY_API_KEY or the
system keyring; never the key), whether the service answers with that key, and the balance when
the service reports it, and which chat model answers when the service says (the reference
service does: the offline responder, or a model and where it runs). Exits 1 when the service does not answer or refuses the key.
With --json, key_source is "flag", "env", "keyring" or "none".`,
		Args: g.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			base, err := g.resolveBaseURL()
			if err != nil {
				return err
			}
			timeout, err := g.resolveTimeout()
			if err != nil {
				return err
			}
			st := statusJSON{BaseURL: g.showURL(base), Local: g.isLocal()}
			// Where the key comes from is known before, and whether or not, the service is asked.
			key, err := g.resolveKey(base)
			st.KeySource = g.keySource.token()
			var c *client.Client
			if err == nil {
				c, err = g.clientFor(base, key, timeout)
			}
			if err == nil {
				st.asked = true
				stop := g.waitFor("the service")
				start := time.Now()
				_, err = c.ListConversations(cmd.Context(), client.ListConversationsRequest{Limit: 1})
				if err == nil {
					ms := time.Since(start).Milliseconds()
					st.Reachable, st.LatencyMS = true, &ms
					if a, aerr := c.Account(cmd.Context()); aerr == nil {
						st.Balance, st.Price, st.ChatEngine = a.Balance, a.Price, a.ChatEngine
					}
				}
				stop()
			}
			var ue *usageError
			if errors.As(err, &ue) || cmd.Context().Err() != nil {
				// A usage error, or Ctrl-C or SIGTERM: run reports it, with its exit code.
				return err
			}
			if err != nil {
				st.Error = g.describe(err)
				var dv *doubledV1Error
				st.noKey = errors.Is(err, keystore.ErrNotFound) && !errors.As(err, &dv)
			}
			if g.json {
				if werr := writeJSON(g.stdout, st); werr != nil {
					return werr
				}
			} else {
				printStatus(g, st)
			}
			if err != nil {
				return &codeError{code: exitFailure}
			}
			return nil
		},
	}
}

// printStatus prints the status as aligned lines.
func printStatus(g *globals, st statusJSON) {
	tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
	where := "another machine"
	if st.Local {
		where = "this machine"
	}
	fmt.Fprintf(tw, "Service:\t%s (%s)\n", st.BaseURL, where)
	if g.keySource == fromNone {
		fmt.Fprintln(tw, "API key:\tnone (log in with 'parley login', or set PARLEY_API_KEY)")
	} else {
		fmt.Fprintf(tw, "API key:\tfrom %s\n", g.keySource)
	}
	switch {
	case st.Reachable:
		fmt.Fprintf(tw, "Answers:\tyes, in %d ms\n", *st.LatencyMS)
	case st.noKey:
		fmt.Fprintln(tw, "Answers:\tnot asked, for want of a key")
	case !st.asked:
		fmt.Fprintf(tw, "Answers:\tnot asked: %s\n", st.Error)
	default:
		fmt.Fprintf(tw, "Answers:\tno: %s\n", st.Error)
	}
	switch {
	case st.Balance != nil && st.Price != nil:
		fmt.Fprintf(tw, "Balance:\t%s (a chat call costs %s)\n", pointsText(*st.Balance), pointsText(*st.Price))
	case st.Balance != nil:
		fmt.Fprintf(tw, "Balance:\t%s\n", pointsText(*st.Balance))
	case st.Reachable:
		fmt.Fprintln(tw, "Balance:\tnot reported by this service")
	}
	if st.ChatEngine != "" {
		fmt.Fprintf(tw, "Chat engine:\t%s\n", st.ChatEngine)
	}
	tw.Flush()
}
