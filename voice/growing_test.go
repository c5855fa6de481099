package voice

import (
	"context"
	"strings"
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
		{" ", 0}, // "France. and…" would go on
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
		"Paris.": false, "Paris. ": false, "It is 3.": false, "Really?\" ": true, "(Yes!) ": true,
		"and so ": false, "a line\n": true, "Wait… ": false, "Why? ": true, "": false,
	} {
		if got := endsSentence(text); got != want {
			t.Errorf("endsSentence(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestGrowing_NoWordIsLost: however a reply is cut into pieces, the sentences handed out as it
// grows, then the rest once it is whole, say every word of it once, in order: a long first
// sentence cut where a clause ends, abbreviations, decimals, an ellipsis before a lower-case word.
func TestGrowing_NoWordIsLost(t *testing.T) {
	replies := []string{
		"Paris is the capital of France and the seat of power, lying on the Seine. It has bridges.",
		"Dr. Smith said it is 3.5 km away... and that is far. Then he left, because it was late and the road was long and dark.",
		"Yes. The first sentence here is long enough to be cut, and it goes on, and on, until it ends. Short one.",
		"A list:\n\n1. Eggs and flour\n2. Milk, then sugar\n\nDone now.",
	}
	for _, reply := range replies {
		for _, step := range []int{1, 2, 3, 5, 8} {
			g := NewGrowing()
			var said []string
			take := func() {
				g.mu.Lock()
				all := g.sentences()
				g.mu.Unlock()
				if len(all) < len(said) || strings.Join(all[:len(said)], "|") != strings.Join(said, "|") {
					t.Fatalf("pieces of %d bytes, at %q: handed out %q, now complete %q", step, g.text.String(), said, all)
				}
				said = append(said, all[len(said):]...)
			}
			for i := 0; i < len(reply); i += step {
				g.Add(reply[i:min(i+step, len(reply))])
				take()
			}
			g.Finish(reply)
			take()
			got := strings.Join(strings.Fields(strings.Join(said, " ")), " ")
			want := strings.Join(strings.Fields(strings.Join(chunks(reply), " ")), " ")
			if got != want {
				t.Errorf("pieces of %d bytes:\nsaid %q\nwant %q", step, got, want)
			}
		}
	}
}
