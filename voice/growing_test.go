package voice

import (
	"context"
	"testing"
)

// TestGrowing_SaysOnlyWhatIsComplete: a sentence is said once the next has begun (or its line or
// the reply ended); a link, a table and a code block only once they are whole.
func TestGrowing_SaysOnlyWhatIsComplete(t *testing.T) {
	g := NewGrowing()
	steps := []struct {
		piece string
		want  int // complete sentences
	}{
		{"Paris is the capital", 0},
		{" of France.", 0},
		{" ", 1}, // the space after the full stop ends the sentence
		{"It lies", 1},
		{" on the [Seine](https://en.wiki", 1},
		{"pedia.org/wiki/Seine).\n", 2},
		{"| City | River |\n|---|---|\n| Paris | Seine |\n", 2},
		{"\nAnd then", 3}, // the table, said as one sentence once a line follows it
		{" code:\n```go\nfmt.Println(1)\n", 4},
	}
	for _, s := range steps {
		g.Add(s.piece)
		g.mu.Lock()
		got := g.sentences()
		g.mu.Unlock()
		if len(got) != s.want {
			t.Fatalf("after %q: %d sentences %q, want %d", s.piece, len(got), got, s.want)
		}
	}
	g.Finish("")
	ctx := context.Background()
	var all []string
	for i := 0; ; i++ {
		s, ok := g.sentence(ctx, i)
		if !ok {
			break
		}
		all = append(all, s)
	}
	if len(all) < 5 || all[2] == "" {
		t.Errorf("finished: %q", all)
	}
	if all[1] != "It lies on the Seine." {
		t.Errorf("the link is said as %q", all[1])
	}
}

func TestEndsSentence(t *testing.T) {
	for text, want := range map[string]bool{
		"Paris.": false, "Paris. ": true, "It is 3.": false, "Really?\" ": true, "(Yes!) ": true,
		"and so ": false, "a line\n": true, "Wait… ": true, "": false,
	} {
		if got := endsSentence(text); got != want {
			t.Errorf("endsSentence(%q) = %v, want %v", text, got, want)
		}
	}
}
