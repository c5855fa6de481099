package server

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"parley/server/store"
)

// ChatModel produces the assistant's reply to one chat turn. An error from
// Complete is an upstream failure: the call's charge is refunded.
type ChatModel interface {
	Complete(ctx context.Context, req ChatRequest) (string, error)
}

// describer is a ChatModel that says which engine it is ("llama3.2, from Ollama on this computer").
type describer interface{ Describe() string }

// modelNamer is a ChatModel that names its model without saying where it runs.
type modelNamer interface{ ModelName() string }

// describeChat says which engine m is, and where when full; "" when it does not say.
func describeChat(m ChatModel, full bool) string {
	if n, ok := m.(modelNamer); ok && !full {
		return n.ModelName()
	}
	if d, ok := m.(describer); ok {
		return d.Describe()
	}
	return ""
}

// ChatRequest is one chat turn as a model sees it: the effective settings,
// the conversation so far (oldest first) and the user's new text.
type ChatRequest struct {
	Persona     string // "" when none is set
	History     []store.Message
	UserText    string
	Temperature *float64
	TopP        *float64
	MaxTokens   *int
}

// NewOfflineResponder returns the built-in model used without --llm-url:
// deterministic, instant, labelled "[offline] ", and visibly using the
// persona and the conversation's history so that kept context can be seen.
func NewOfflineResponder() ChatModel { return offlineResponder{} }

type offlineResponder struct{}

const offlinePrefix = "[offline] "

// Describe says it is the offline responder.
func (offlineResponder) Describe() string { return "the offline responder" }

func (offlineResponder) Complete(ctx context.Context, req ChatRequest) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(offlinePrefix)
	if p := strings.TrimSpace(req.Persona); p != "" {
		fmt.Fprintf(&b, "As %s, ", p)
	}
	turns := 0
	first := ""
	for _, m := range req.History {
		if m.Role == "user" {
			if turns == 0 {
				first = m.Content
			}
			turns++
		}
	}
	switch {
	case asksForEarlier(req.UserText) && first != "":
		fmt.Fprintf(&b, "you first said: %q.", first)
	case asksForEarlier(req.UserText):
		b.WriteString("this is the first thing you have said in this conversation.")
	default:
		words := keyWords(req.UserText, 6)
		if len(words) == 0 {
			b.WriteString("I heard you, but found nothing to answer in that.")
		} else {
			fmt.Fprintf(&b, "you asked about %s.", strings.Join(words, ", "))
		}
		switch turns {
		case 0:
			b.WriteString(" This is a new conversation.")
		case 1:
			b.WriteString(" I remember 1 earlier turn.")
		default:
			fmt.Fprintf(&b, " I remember %d earlier turns.", turns)
		}
		b.WriteString(" The offline responder cannot think, but it keeps your conversation.")
	}
	reply := b.String()
	if req.MaxTokens != nil && *req.MaxTokens > 0 {
		// The label is not part of the answer: cut the words after it.
		reply = offlinePrefix + firstWords(strings.TrimPrefix(reply, offlinePrefix), *req.MaxTokens)
	}
	return reply, nil
}

// asksForEarlier reports whether the text asks what the user said first or
// earlier in the conversation.
func asksForEarlier(text string) bool {
	t := strings.ToLower(text)
	if !slices.Contains(strings.FieldsFunc(t, func(r rune) bool { return !unicode.IsLetter(r) }), "i") {
		return false
	}
	if !strings.Contains(t, "say") && !strings.Contains(t, "said") && !strings.Contains(t, "ask") && !strings.Contains(t, "tell") {
		return false
	}
	for _, w := range []string{"first", "earlier", "before", "previously", "at the start", "at the beginning"} {
		if strings.Contains(t, w) {
			return true
		}
	}
	return false
}

var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "and": true, "or": true, "but": true, "is": true, "are": true,
	"was": true, "were": true, "be": true, "to": true, "of": true, "in": true, "on": true, "at": true,
	"for": true, "with": true, "what": true, "who": true, "how": true, "why": true, "when": true,
	"where": true, "which": true, "i": true, "you": true, "me": true, "my": true, "your": true,
	"it": true, "this": true, "that": true, "do": true, "does": true, "did": true, "can": true,
	"could": true, "would": true, "should": true, "please": true, "tell": true, "about": true,
	"hello": true, "hi": true, "we": true, "us": true, "our": true, "from": true, "as": true,
}

// keyWords returns up to max distinct non-trivial words of text, in order.
func keyWords(text string, max int) []string {
	fields := strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r) && r != '\'' && r != '-'
	})
	seen := map[string]bool{}
	var out []string
	for _, f := range fields {
		f = strings.Trim(f, "'-")
		l := strings.ToLower(f)
		if l == "" || stopWords[l] || seen[l] {
			continue
		}
		seen[l] = true
		out = append(out, f)
		if len(out) == max {
			break
		}
	}
	if len(out) == 0 {
		// A greeting or only small words: echo them rather than nothing.
		for _, f := range fields {
			if len(out) == max {
				break
			}
			out = append(out, f)
		}
	}
	return out
}

// firstWords cuts s to its first n whitespace-separated words.
func firstWords(s string, n int) string {
	fields := strings.Fields(s)
	if len(fields) <= n {
		return s
	}
	return strings.Join(fields[:n], " ")
}
