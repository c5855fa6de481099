package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"parley/client"
	"parley/internal/loopback"
	"parley/settings"
)

// modelFlags are a conversation's model settings (client.Config) a command may set; a setting
// not given is nil and not sent. They are not the CLI's own preferences (preferences.go).
type modelFlags struct {
	persona     string
	temperature float64
	topP        float64
	maxTokens   int
}

func (s *modelFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&s.persona, "persona", "", "the assistant's role, e.g. \"a patient maths tutor\"")
	f.Float64Var(&s.temperature, "temperature", 0, "sampling temperature, 0 to 2")
	f.Float64Var(&s.topP, "top-p", 0, "nucleus sampling, 0 to 1")
	f.IntVar(&s.maxTokens, "max-tokens", 0, "the longest reply in tokens, at least 1")
}

// modelConfig returns the settings the user gave, checked against the ranges the service accepts.
func (s *modelFlags) modelConfig(cmd *cobra.Command) (client.Config, error) {
	var c client.Config
	f := cmd.Flags()
	if f.Changed("persona") {
		p := s.persona
		c.Persona = &p
	}
	if f.Changed("temperature") {
		t := s.temperature
		c.Temperature = &t
	}
	if f.Changed("top-p") {
		p := s.topP
		c.TopP = &p
	}
	if f.Changed("max-tokens") {
		n := s.maxTokens
		c.MaxTokens = &n
	}
	var re *settings.RangeError
	if err := c.Check(); errors.As(err, &re) {
		return client.Config{}, rangeUsageError(re)
	} else if err != nil {
		return client.Config{}, err
	}
	return c, nil
}

// rangeUsageError phrases a setting out of range for the flag that gave it.
func rangeUsageError(e *settings.RangeError) error {
	flag := "--" + strings.ReplaceAll(string(e.Field), "_", "-")
	switch e.Field {
	case settings.FieldPersona:
		return usageErrorf("%s is %d characters long; at most %d are allowed", flag, int(e.Value), int(e.Max))
	case settings.FieldMaxTokens:
		return usageErrorf("%s must be at least %d, not %d", flag, int(e.Min), int(e.Value))
	}
	return usageErrorf("%s must be between %v and %v, not %v", flag, e.Min, e.Max, e.Value)
}

// textArg joins the words of a message; a lone "-" reads it from standard input.
func (g *globals) textArg(args []string, what string) (string, error) {
	var text string
	if len(args) == 1 && args[0] == "-" {
		b, err := io.ReadAll(io.LimitReader(g.stdin, 1<<20))
		if err != nil {
			return "", fmt.Errorf("reading the %s from standard input: %w", what, err)
		}
		text = string(b)
	} else {
		text = strings.Join(args, " ")
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return "", usageErrorf("no %s given", what)
	}
	if !utf8.ValidString(text) {
		return "", usageErrorf("the %s is not valid UTF-8 text", what)
	}
	return text, nil
}

func newChatCmd(g *globals) *cobra.Command {
	var conv string
	var set modelFlags
	cmd := &cobra.Command{
		Use:   "chat [--conversation ID] [--persona TEXT] [--temperature F] [--top-p F] [--max-tokens N] MESSAGE...",
		Short: "Send a message and print the reply (a charged call)",
		Long: `Sends one message and prints the reply. Without --conversation it starts a new conversation,
whose ID is printed on standard error; the settings given on that first call are saved with it.
MESSAGE may be '-' to read the message from standard input. Each successful call is charged,
and a call that fails after it was sent is never sent again by Parley.

On a terminal, a reply from a service that streams (Parley's own) is printed as it is written,
and Ctrl-C stops it there: what was written is the reply, charged and kept in the conversation
(nothing written: nothing charged). Piped, or with --json, the whole reply is printed at once.

The reply goes to standard output; the conversation ID, points charged and balance to standard
error. With --json, standard output holds one object:
  conversation_id   the conversation (new on a first call), as the service gave it
  reply             the assistant's text
  user_message_id   the ID of your message, when the service gave one (its JSON type kept)
  reply_message_id  the ID of the reply, when the service gave one (its JSON type kept)
  points_charged    what the call cost, when the service reported it
  balance           your balance after the call, when the service reported it`,
		Example: `  parley chat "What is the capital of Portugal?"
  parley chat -c 42 "And its population?"
  echo "Summarise this" | parley chat --persona "a concise editor" -`,
		Args: textArgs("the message to send"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("conversation") {
				if strings.TrimSpace(conv) == "" {
					return usageErrorf("--conversation is empty: give a conversation ID, or leave the flag out to start a new conversation")
				}
				g.conv = strings.TrimSpace(conv)
			}
			cfg, err := set.modelConfig(cmd)
			if err != nil {
				return err
			}
			text, err := g.textArg(args, "message")
			if err != nil {
				return err
			}
			if n := utf8.RuneCountInString(text); n > 32000 {
				return usageErrorf("the message is %d characters long; at most 32000 are allowed", n)
			}
			convID, err := g.conversationArg(conv)
			if err != nil {
				return err
			}
			c, err := g.newClient(cmd.Context())
			if err != nil {
				return err
			}
			req := client.SendMessageRequest{
				ConversationID: convID, Message: text,
				Persona: cfg.Persona, Temperature: cfg.Temperature, TopP: cfg.TopP, MaxTokens: cfg.MaxTokens,
			}
			if !g.json && isTerminal(g.stdout) {
				return g.chatStreamed(cmd.Context(), c, req)
			}
			stop := g.waitFor("the reply")
			res, err := c.SendMessage(cmd.Context(), req)
			stop()
			if err != nil {
				return err
			}
			// The service's own ID is printed even if it looks random (g.printer.redact).
			g.printer.allow(res.ConversationID.String())
			if g.json {
				return writeJSON(g.stdout, res)
			}
			fmt.Fprintln(g.stdout, res.Reply)
			fmt.Fprintln(g.stderr, chargeNote(res.ConversationID, res.PointsCharged, res.Balance))
			return nil
		},
	}
	cmd.Flags().StringVarP(&conv, "conversation", "c", "", "continue this conversation")
	set.register(cmd)
	return cmd
}

// stopAnswerWait bounds how long a stopped streamed reply may take to end before Parley stops
// waiting for it (the service still ends it, and keeps it).
const stopAnswerWait = 5 * time.Second

// chatStreamed sends req and prints the reply as it is written, from a service that streams
// (one that does not answers whole, printed as it comes). Ctrl-C is a person's Stop: the service
// ends the reply where it is, keeps and charges what was written, and the command ends as
// interrupted once it has said so.
func (g *globals) chatStreamed(ctx context.Context, c *client.Client, req client.SendMessageRequest) error {
	if !c.Streams() && loopback.URL(c.BaseURL()) {
		// Whether a service streams is told by its answers. A service on this computer (Parley's
		// own, most likely) is asked for its account first, a free call; any other service is
		// sent nothing it was not sent before, and its reply printed whole.
		actx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, _ = c.Account(actx)
		cancel()
	}
	if !c.Streams() {
		stop := g.waitFor("the reply")
		res, err := c.SendMessage(ctx, req)
		stop()
		if err != nil {
			return err
		}
		g.printer.allow(res.ConversationID.String())
		fmt.Fprintln(g.stdout, res.Reply)
		fmt.Fprintln(g.stderr, chargeNote(res.ConversationID, res.PointsCharged, res.Balance))
		return nil
	}
	// The call runs on when the signal comes: the signal stops the reply instead.
	callCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	stopReply := make(chan struct{})
	var interrupted atomic.Bool
	go func() {
		select {
		case <-ctx.Done():
			interrupted.Store(true)
			close(stopReply)
			// A stop that is not heeded is not waited for long.
			t := time.NewTimer(stopAnswerWait)
			defer t.Stop()
			select {
			case <-t.C:
				cancel()
			case <-callCtx.Done():
			}
		case <-callCtx.Done():
		}
	}()
	spin := g.waitFor("the reply")
	spinning := true
	printed := ""
	res, err := c.SendMessageStream(callCtx, req, client.StreamOptions{Stop: stopReply, OnText: func(piece string) {
		if spinning {
			spin()
			spinning = false
			piece = strings.TrimLeft(piece, " \t\r\n")
		}
		printed += piece
		fmt.Fprint(g.stdout, piece)
	}})
	if spinning {
		spin()
	}
	cancel()
	if printed != "" && !strings.HasSuffix(printed, "\n") {
		fmt.Fprintln(g.stdout)
	}
	if err != nil {
		if interrupted.Load() {
			var ce *client.Error
			if errors.As(err, &ce) && ce.Code == client.CodeStopped {
				fmt.Fprintln(g.stderr, "Stopped before the model wrote anything; nothing was charged.")
				return &codeError{code: exitSignal + int(syscall.SIGINT)}
			}
		}
		return err
	}
	g.printer.allow(res.ConversationID.String())
	if res.Stopped {
		fmt.Fprintln(g.stderr, "Stopped: the reply is what the model wrote until then; it was charged and is kept in the conversation.")
	}
	fmt.Fprintln(g.stderr, chargeNote(res.ConversationID, res.PointsCharged, res.Balance))
	if interrupted.Load() {
		return &codeError{code: exitSignal + int(syscall.SIGINT)}
	}
	return nil
}

// chargeNote is what stderr says after charged calls: the conversation, what they cost and the
// balance left, when the service reported them.
func chargeNote(id client.ConversationID, charged, balance *int64) string {
	note := "conversation " + id.String()
	if charged != nil {
		note += fmt.Sprintf(", charged %d", *charged)
	}
	if balance != nil {
		note += fmt.Sprintf(", balance %d", *balance)
	}
	return note
}

// writeJSON prints v as indented JSON with a final newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
