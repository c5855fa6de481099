package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"parley/client"
	"parley/conversation/export"
)

// maxListPages bounds how many pages 'conversations' follows, against a service whose cursor never ends.
const maxListPages = 100

func newConversationsCmd(g *globals) *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use:     "conversations [--limit N] [--json]",
		Aliases: []string{"ls", "list"},
		Short:   "List your conversations, newest first",
		Args:    g.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if limit < 0 {
				return usageErrorf("--limit must be 0 (all) or more, not %d", limit)
			}
			c, err := g.newClient(cmd.Context())
			if err != nil {
				return err
			}
			var all []client.Conversation
			cursor := ""
			stop := g.waitFor("the list of conversations")
			defer stop()
			for page := 0; page < maxListPages; page++ {
				res, err := c.ListConversations(cmd.Context(), client.ListConversationsRequest{Cursor: cursor})
				if err != nil {
					return err
				}
				all = append(all, res.Conversations...)
				if res.NextCursor == "" || res.NextCursor == cursor || (limit > 0 && len(all) >= limit) {
					break
				}
				cursor = res.NextCursor
			}
			stop()
			if limit > 0 && len(all) > limit {
				all = all[:limit]
			}
			if g.json {
				if all == nil {
					all = []client.Conversation{}
				}
				return writeJSON(g.stdout, all)
			}
			if len(all) == 0 {
				fmt.Fprintln(g.stderr, "No conversations yet. Start one with: parley chat \"Hello\"")
				return nil
			}
			tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tUPDATED\tMESSAGES\tTITLE")
			for _, cv := range all {
				count := ""
				if cv.MessageCount > 0 {
					count = strconv.Itoa(cv.MessageCount)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", cv.ID, formatTime(cv.UpdatedAt), count, clip(cv.Title, 60))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 0, "show at most N conversations (0: all)")
	return cmd
}

func newHistoryCmd(g *globals) *cobra.Command {
	var markdown bool
	cmd := &cobra.Command{
		Use:   "history ID [--json | --markdown]",
		Short: "Print a conversation's settings and messages",
		Long: `Prints a conversation's settings and messages, oldest first.

With --json or --markdown it prints the conversation as the app's Export writes it, with the
same fields:
  conversation_id   the conversation, as the service gave it (JSON only)
  title             its title, or one made from its first message
  config            the settings that are set: persona, temperature, top_p, max_tokens
  messages          each message: its role (user or assistant), its content, and its id and
                    created_at when the service gave them`,
		Example: `  parley history 42
  parley history 42 --markdown > trip.md`,
		Args: wantOne("a conversation ID", conversationHint),
		RunE: func(cmd *cobra.Command, args []string) error {
			g.conv = args[0]
			if markdown && g.json {
				return usageErrorf("--json and --markdown are two formats: give one")
			}
			id, err := g.conversationArg(args[0])
			if err != nil {
				return err
			}
			c, err := g.newClient(cmd.Context())
			if err != nil {
				return err
			}
			stop := g.waitFor("the conversation")
			h, err := c.History(cmd.Context(), id)
			stop()
			if err != nil {
				return err
			}
			switch {
			case g.json:
				return export.JSON(g.stdout, export.FromHistory(h))
			case markdown:
				return export.Markdown(g.stdout, export.FromHistory(h))
			}
			printConfig(g.stdout, h.Config)
			for _, m := range h.Messages {
				fmt.Fprintf(g.stdout, "\n[%s] %s:\n%s\n", formatTime(m.CreatedAt), m.Role, m.Content)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&markdown, "markdown", false, "print the conversation as Markdown, as the app exports it")
	return cmd
}

func newConfigCmd(g *globals) *cobra.Command {
	var set modelFlags
	cmd := &cobra.Command{
		Use:   "config ID [--persona TEXT] [--temperature F] [--top-p F] [--max-tokens N]",
		Short: "Save a conversation's settings (only the ones given), or show them",
		Args:  wantOne("a conversation ID", conversationHint),
		RunE: func(cmd *cobra.Command, args []string) error {
			g.conv = args[0]
			cfg, err := set.modelConfig(cmd)
			if err != nil {
				return err
			}
			id, err := g.conversationArg(args[0])
			if err != nil {
				return err
			}
			c, err := g.newClient(cmd.Context())
			if err != nil {
				return err
			}
			var saved client.Config
			if cfg.IsZero() {
				// The settings come with any page of the history: ask for the smallest.
				stop := g.waitFor("the conversation's settings")
				h, err := c.HistoryPage(cmd.Context(), id, client.HistoryPageRequest{Limit: 1})
				stop()
				if err != nil {
					return err
				}
				saved = h.Config
			} else {
				stop := g.waitFor("the service to save the settings")
				res, err := c.SaveConfig(cmd.Context(), id, cfg)
				stop()
				if err != nil {
					return err
				}
				saved = *res
			}
			if g.json {
				return writeJSON(g.stdout, saved)
			}
			printConfig(g.stdout, saved)
			return nil
		},
	}
	set.register(cmd)
	return cmd
}

func newDeleteCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:     "delete ID",
		Aliases: []string{"rm"},
		Short:   "Delete a conversation and its messages",
		Args:    wantOne("a conversation ID", conversationHint),
		RunE: func(cmd *cobra.Command, args []string) error {
			g.conv = args[0]
			id, err := g.conversationArg(args[0])
			if err != nil {
				return err
			}
			c, err := g.newClient(cmd.Context())
			if err != nil {
				return err
			}
			stop := g.waitFor("the service to delete it")
			err = c.DeleteConversation(cmd.Context(), id)
			stop()
			if err != nil {
				return err
			}
			if g.json {
				return writeJSON(g.stdout, map[string]any{"id": args[0], "deleted": true})
			}
			fmt.Fprintf(g.stdout, "Deleted conversation %s.\n", args[0])
			return nil
		},
	}
}

// conversationHint says where conversation IDs are listed, after "give a conversation ID".
const conversationHint = " (list them with 'parley conversations')"

// conversationArg reads a conversation ID given on the command line; "" gives the zero ID. An ID
// that is shaped like a key, or is one Parley knows of, is refused before it is sent.
func (g *globals) conversationArg(s string) (client.ConversationID, error) {
	if s == "" {
		return client.ConversationID{}, nil
	}
	if g.printer.knows(s) || redactKeyShaped(s) != s {
		return client.ConversationID{}, usageErrorf("that looks like an API key, not a conversation ID, so it was not sent%s", conversationHint)
	}
	id, err := client.ParseConversationID(s)
	if err != nil {
		return id, usageErrorf("%v", err)
	}
	return id, nil
}

// printConfig prints the settings one per line, "(not set)" where the service default applies.
func printConfig(w io.Writer, c client.Config) {
	val := func(set bool, v string) string {
		if !set {
			return "(not set)"
		}
		return v
	}
	persona := ""
	if c.Persona != nil {
		persona = strconv.Quote(*c.Persona)
	}
	var temp, topP, maxTok string
	if c.Temperature != nil {
		temp = strconv.FormatFloat(*c.Temperature, 'g', -1, 64)
	}
	if c.TopP != nil {
		topP = strconv.FormatFloat(*c.TopP, 'g', -1, 64)
	}
	if c.MaxTokens != nil {
		maxTok = strconv.Itoa(*c.MaxTokens)
	}
	fmt.Fprintf(w, "persona:     %s\n", val(c.Persona != nil, persona))
	fmt.Fprintf(w, "temperature: %s\n", val(c.Temperature != nil, temp))
	fmt.Fprintf(w, "top_p:       %s\n", val(c.TopP != nil, topP))
	fmt.Fprintf(w, "max_tokens:  %s\n", val(c.MaxTokens != nil, maxTok))
}

// formatTime prints a time in the local zone, or "-" when unknown.
func formatTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04")
}

// clip shortens s to n runes on one line.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
