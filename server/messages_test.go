package server

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// verb is a fmt verb in a message's format, replaced by a word for the check.
var verb = regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z]`)

// fullSentences says what is wrong with msg as a client reads it, or "": each sentence begins
// with a capital letter and ends with a full stop, a question mark or an exclamation mark, and
// the next begins after one space.
func fullSentences(msg string) string {
	msg = verb.ReplaceAllString(msg, "Word")
	first, _ := utf8.DecodeRuneInString(msg)
	switch {
	case msg == "":
		return "it is empty"
	case !unicode.IsUpper(first):
		return "it does not begin with a capital letter"
	case !strings.ContainsAny(msg[len(msg)-1:], ".?!"):
		return "it does not end with a full stop"
	case strings.Contains(msg, "  "):
		return "it holds two spaces in a row"
	}
	for _, end := range []string{". ", "? ", "! "} {
		for rest := msg; ; {
			i := strings.Index(rest, end)
			if i < 0 {
				break
			}
			rest = rest[i+len(end):]
			if r, _ := utf8.DecodeRuneInString(rest); unicode.IsLower(r) {
				return "a sentence after " + strconv.Quote(end) + " begins in lower case"
			}
		}
	}
	// A sentence that runs on into the next without its stop: "check the key The points".
	if m := regexp.MustCompile(`[a-z0-9)] (The|There|This|An|Ask|Try|Send) `).FindString(msg); m != "" {
		return "a sentence runs into the next (" + strconv.Quote(m) + ") without a full stop"
	}
	return ""
}

// serviceMessages reads, from the package's source, every message the service sends clients
// with errorf or refund, and every failure its chat model states for them (what c.fail is
// given, which ChatFailure.Sentence turns into a sentence, followed by the refund's).
func serviceMessages(t *testing.T) (messages, failures []string) {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			var fn string
			switch f := call.Fun.(type) {
			case *ast.Ident:
				fn = f.Name
			case *ast.SelectorExpr:
				fn = f.Sel.Name
			}
			for _, a := range call.Args {
				lit, ok := a.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil || s == "%s" {
					continue
				}
				switch fn {
				case "errorf", "refund":
					messages = append(messages, s)
				case "fail":
					failures = append(failures, s)
				}
			}
			return true
		})
	}
	return messages, failures
}

// Every message the service sends a client is made of whole sentences, also where one is
// joined to another ("… check the key. The points for this call were refunded.").
func TestMessages_AreFullSentences(t *testing.T) {
	messages, failures := serviceMessages(t)
	if len(messages) < 30 || len(failures) < 10 {
		t.Fatalf("found %d messages and %d chat failures in the source: the search no longer finds them", len(messages), len(failures))
	}
	for _, m := range messages {
		if why := fullSentences(m); why != "" {
			t.Errorf("%q: %s", m, why)
		}
	}
	c := &openAIChat{where: "Ollama on this computer", model: "llama3.2"}
	for _, what := range failures {
		f := c.fail(failOther, verb.ReplaceAllString(what, "7"), nil)
		if m := f.Sentence() + " The points for this call were refunded."; fullSentences(m) != "" {
			t.Errorf("%q: %s", m, fullSentences(m))
		}
	}
	// Each kind's own sentence.
	for k := failOther; k <= failNotRunningServed; k++ {
		f := &ChatFailure{Where: c.where, What: "failed", kind: k, status: 500, model: "llama3.2", detail: "out of memory", Err: errors.New("x")}
		if m := f.Sentence() + " The points for this call were refunded."; fullSentences(m) != "" || strings.Contains(m, "%!") {
			t.Errorf("kind %d: %q: %s", k, m, fullSentences(m))
		}
	}
	// The failures statusFailure and transportFailure build, as a client reads them.
	for _, f := range []*ChatFailure{
		c.statusFailure(401, []byte(`{"error":{"message":"Incorrect API key provided"}}`)),
		c.statusFailure(404, []byte(`{"error":"model 'x' not found"}`)),
		c.statusFailure(404, nil),
		c.statusFailure(429, nil),
		c.statusFailure(500, []byte("out of memory.")),
	} {
		if m := f.Sentence() + " The points for this call were refunded."; fullSentences(m) != "" {
			t.Errorf("%q: %s", m, fullSentences(m))
		}
	}
}

func TestFullSentences(t *testing.T) {
	for msg, ok := range map[string]bool{
		"The audio is empty.": true,
		"Ollama did not answer: is it still running? The points for this call were refunded.": true,
		"The field %q is required.": true,
		"X refused the API key (401): check the key The points for this call were refunded.":       false,
		"X is busy or out of quota (429): try again later The points for this call were refunded.": false,
		"before must be a message ID.": false,
		"The audio is empty":           false,
		"One.  Two.":                   false,
		"One. two.":                    false,
	} {
		if got := fullSentences(msg) == ""; got != ok {
			t.Errorf("fullSentences(%q) = %q", msg, fullSentences(msg))
		}
	}
}
