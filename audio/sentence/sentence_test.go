package sentence_test

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"parley/audio/sentence"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"empty", "", nil},
		{"blank", " \n\t\n ", nil},
		{"one sentence", "Hello there.", []string{"Hello there."}},
		{"no final punctuation", "Hello there", []string{"Hello there"}},
		{"three sentences", "It rains. Take a coat! Are you ready?",
			[]string{"It rains.", "Take a coat!", "Are you ready?"}},
		{"titles", "Dr. Smith met Mr. Jones and Mrs. Brown.", []string{"Dr. Smith met Mr. Jones and Mrs. Brown."}},
		{"U.S.", "The U.S. Army is large. It is old.", []string{"The U.S. Army is large.", "It is old."}},
		{"e.g. and i.e.", "Then go. Bring fruit, e.g. apples, i.e. something sweet.",
			[]string{"Then go.", "Bring fruit, e.g. apples, i.e. something sweet."}},
		{"e.g. in a long first sentence: cut at the first clause, not at the abbreviation",
			"Bring fruit, e.g. apples, i.e. something sweet. Then go.",
			[]string{"Bring fruit, e.g. apples,", "i.e. something sweet.", "Then go."}},
		{"etc. before a capital ends", "Apples, pears, etc. Then we eat.",
			[]string{"Apples, pears, etc.", "Then we eat."}},
		{"etc. before lower case does not", "Apples, pears, etc. are fruit.",
			[]string{"Apples, pears, etc. are fruit."}},
		{"decimals", "Pi is 3.14 and e is 2.718. Nice.", []string{"Pi is 3.14 and e is 2.718.", "Nice."}},
		{"sentence ending in a number", "It was 2024. Then it was not.", []string{"It was 2024.", "Then it was not."}},
		{"initials", "J. R. R. Tolkien wrote it. Read it.", []string{"J. R. R. Tolkien wrote it.", "Read it."}},
		{"a.m.", "Meet at 9 a.m. tomorrow. Bye.", []string{"Meet at 9 a.m. tomorrow.", "Bye."}},
		{"ellipsis before lower case", "Well... maybe not. Okay.", []string{"Well... maybe not.", "Okay."}},
		{"ellipsis before a capital", "Wait... Now go.", []string{"Wait...", "Now go."}},
		{"unicode ellipsis", "Hmm… Right.", []string{"Hmm…", "Right."}},
		{"runs of marks", "Really?! Yes.", []string{"Really?!", "Yes."}},
		{"quotes after the mark", `He said "Stop." Then he left.`, []string{`He said "Stop."`, "Then he left."}},
		{"curly quotes", "She asked “Why?” Nobody knew.", []string{"She asked “Why?”", "Nobody knew."}},
		{"brackets", "(See above.) Next one.", []string{"(See above.)", "Next one."}},
		{"urls", "Go to https://example.com/a.b?x=1. It is free.",
			[]string{"Go to https://example.com/a.b?x=1.", "It is free."}},
		{"bare domain", "Visit example.com today. Thanks.", []string{"Visit example.com today.", "Thanks."}},
		{"line breaks", "First line\nSecond line\r\nThird line", []string{"First line", "Second line", "Third line"}},
		{"list items", "Shopping:\n- eggs\n- milk. Fresh.\n* bread\n+ jam",
			[]string{"Shopping:", "- eggs", "- milk.", "Fresh.", "bread", "jam"}},
		{"markdown marks", "## Ingredients\n**Note:** it is **very** hot.\n#hashtag stays",
			[]string{"Ingredients", "Note: it is very hot.", "#hashtag stays"}},
		{"numbered list", "Steps:\n1. Preheat the oven.\n2. Bake it.", []string{"Steps:", "1. Preheat the oven.", "2. Bake it."}},
		{"fenced code", "Run this:\n```go\nfmt.Println(\"hi. there\")\n```\nDone.",
			[]string{"Run this:", sentence.CodePlaceholder, "Done."}},
		{"tilde fence", "Code:\n~~~\nx = 1\n~~~\nEnd.", []string{"Code:", sentence.CodePlaceholder, "End."}},
		{"unclosed fence", "Look:\n```\nrm -rf /\nMore code", []string{"Look:", sentence.CodePlaceholder}},
		{"short inline code", "Run `ls -la` now.", []string{"Run ls -la now."}},
		{"long inline code", "Run `" + strings.Repeat("x", 60) + "` now.", []string{"Run " + sentence.CodePlaceholder + " now."}},
		{"unmatched backtick", "It's a ` mark.", []string{"It's a ` mark."}},
		{"cjk", "你好。今天天气很好！你呢？", []string{"你好。", "今天天气很好！", "你呢？"}},
		{"cjk with quotes", "他说：「好。」然后走了。", []string{"他说：「好。」", "然后走了。"}},
		{"japanese", "こんにちは。元気ですか？", []string{"こんにちは。", "元気ですか？"}},
		{"long first sentence cut at a comma",
			"When you get to the station tomorrow morning, take the second exit and walk north along the river until you see the bridge. Then call me.",
			[]string{"When you get to the station tomorrow morning,",
				"take the second exit and walk north along the river until you see the bridge.", "Then call me."}},
		{"long first sentence cut before a conjunction",
			"The train to the airport leaves from platform nine and it takes about forty minutes to get there.",
			[]string{"The train to the airport leaves from platform nine", "and it takes about forty minutes to get there."}},
		{"very long first sentence cut at a space",
			"Photosynthesis converts light energy into chemical energy stored in glucose molecules inside the chloroplasts of plant cells through a long series of reactions.",
			[]string{"Photosynthesis converts light energy into chemical energy",
				"stored in glucose molecules inside the chloroplasts of plant cells through a long series of reactions."}},
		{"moderately long first sentence without a place to cut stays whole",
			"Photosynthesis converts light energy into chemical energy stored in glucose molecules.",
			[]string{"Photosynthesis converts light energy into chemical energy stored in glucose molecules."}},
		{"long cjk first sentence cut at its first clause mark",
			"今天我们去了北京的一个非常有名的公园，在那里我们看到了很多美丽的花和树，还有一个很大的湖，湖上有很多小船，我们在那里玩了一整天，大家都玩得很开心。",
			[]string{"今天我们去了北京的一个非常有名的公园，", "在那里我们看到了很多美丽的花和树，还有一个很大的湖，湖上有很多小船，我们在那里玩了一整天，大家都玩得很开心。"}},
		{"short first sentence kept whole", "Yes, of course. Here it is.", []string{"Yes, of course.", "Here it is."}},
		{"later long sentences are not cut", "Hi. Now " + strings.Repeat("word, ", 30) + "end.",
			[]string{"Hi.", "Now " + strings.Repeat("word, ", 30) + "end."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sentence.Split(tt.text, sentence.DefaultMaxLen)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Split(%q) mismatch (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

func TestSplit_MaxLen(t *testing.T) {
	tests := []struct {
		name   string
		text   string
		maxLen int
		want   []string
	}{
		{"clause boundaries first", "aaaa bbbb, cccc dddd; eeee ffff", 12,
			[]string{"aaaa bbbb,", "cccc dddd;", "eeee ffff"}},
		{"then spaces", "aaaa bbbb cccc dddd", 10, []string{"aaaa bbbb", "cccc dddd"}},
		{"then between runes, counted as runes", "ééééé", 2, []string{"éé", "éé", "é"}},
		{"cjk without spaces", "日本語日本語", 4, []string{"日本語日", "本語"}},
		{"cjk clause mark", "日本語、日本語", 5, []string{"日本語、", "日本語"}},
		{"invalid UTF-8 counts a rune a byte", "\xff\xfe\xfd", 2, []string{"\xff\xfe", "\xfd"}},
		{"maxLen 1", "abc", 1, []string{"a", "b", "c"}},
		{"zero means default", "Short.", 0, []string{"Short."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sentence.Split(tt.text, tt.maxLen)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Split(%q, %d) mismatch (-want +got):\n%s", tt.text, tt.maxLen, diff)
			}
		})
	}
}

func TestSplit_LongReplyRespectsServiceLimit(t *testing.T) {
	// A reply of one enormous sentence, as a model sometimes writes: every chunk must be sendable.
	text := strings.Repeat("and then the cat, which was grey, sat on the mat ", 400)
	chunks := sentence.Split(text, sentence.DefaultMaxLen)
	if len(chunks) < 5 {
		t.Fatalf("got %d chunks, want the %d-byte sentence cut into several", len(chunks), len(text))
	}
	for i, c := range chunks {
		if n := utf8.RuneCountInString(c); n > sentence.DefaultMaxLen {
			t.Errorf("chunk %d is %d runes, over the limit %d", i, n, sentence.DefaultMaxLen)
		}
	}
	if n := utf8.RuneCountInString(chunks[0]); n > 60 {
		t.Errorf("first chunk is %d runes (%q), want at most 60 so the first audio comes fast", n, chunks[0])
	}
	checkPreserved(t, text, chunks)
}

// checkPreserved fails unless chunks hold exactly the non-space characters of text, in order,
// apart from the Markdown marks the splitter drops.
func checkPreserved(t *testing.T, text string, chunks []string) {
	t.Helper()
	// Markdown marks the splitter drops (heading marks, bullets, bold) are not compared either.
	strip := func(s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsSpace(r) || r == '*' || r == '#' || r == '+' {
				return -1
			}
			return r
		}, s)
	}
	// Strip piece by piece: a line break between two halves of a broken UTF-8 sequence must not
	// make them one rune on one side only.
	var got, want strings.Builder
	for _, c := range chunks {
		got.WriteString(strip(c))
	}
	for _, line := range strings.FieldsFunc(text, func(r rune) bool { return r == '\r' || r == '\n' }) {
		want.WriteString(strip(line))
	}
	if got, want := got.String(), want.String(); got != want {
		t.Errorf("text not preserved:\n got %q\nwant %q", got, want)
	}
}

// checkProse fails unless the prose of text (what is outside code blocks and inline code) is
// found in the chunks, in order. Text after the first fenced code block is not checked.
func checkProse(t *testing.T, text string, chunks []string) {
	t.Helper()
	strip := func(s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsSpace(r) || r == '*' || r == '#' || r == '+' {
				return -1
			}
			return r
		}, s)
	}
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString(strip(c))
	}
	got := b.String()
	pos := 0
	for _, line := range strings.FieldsFunc(text, func(r rune) bool { return r == '\r' || r == '\n' }) {
		if l := strings.TrimSpace(line); strings.HasPrefix(l, "```") || strings.HasPrefix(l, "~~~") {
			return
		}
		segs := strings.Split(line, "`")
		if len(segs)%2 == 0 { // an unmatched backtick: it and what follows it are prose
			segs[len(segs)-2] += "`" + segs[len(segs)-1]
			segs = segs[:len(segs)-1]
		}
		for i := 0; i < len(segs); i += 2 {
			prose := strip(segs[i])
			k := strings.Index(got[pos:], prose)
			if k < 0 {
				t.Fatalf("prose %q of line %q is missing from the chunks %q", prose, line, chunks)
			}
			pos += k + len(prose)
		}
	}
}

func FuzzSplit(f *testing.F) {
	for _, s := range []string{
		"Dr. Smith went to Washington. He arrived at 3.30 p.m. Then... nothing!",
		"- one\n- two\n1. three",
		"```\ncode. here\n```\nAfter `x` and `" + strings.Repeat("y", 50) + "`.",
		"你好。今天天气很好！",
		"“Quoted.” (Bracketed!) https://example.com/a.b",
		strings.Repeat("word, ", 200),
		"é\u00a0\u3000x.",
	} {
		f.Add(s, 16)
		f.Add(s, 4096)
	}
	f.Fuzz(func(t *testing.T, text string, maxLen int) {
		if maxLen < 1 || maxLen > 1<<16 {
			maxLen = 1 + (maxLen&0xff+0xff)%0xff
		}
		chunks := sentence.Split(text, maxLen)
		for i, c := range chunks {
			if n := utf8.RuneCountInString(c); n > maxLen {
				t.Fatalf("chunk %d is %d runes > maxLen %d: %q", i, n, maxLen, c)
			}
			if strings.TrimSpace(c) == "" {
				t.Fatalf("chunk %d is empty: %q", i, c)
			}
			if utf8.ValidString(text) && !utf8.ValidString(c) {
				t.Fatalf("chunk %d of valid UTF-8 text is not valid UTF-8: %q", i, c)
			}
		}
		if !strings.ContainsAny(text, "`~") {
			checkPreserved(t, text, chunks)
		} else if utf8.ValidString(text) {
			checkProse(t, text, chunks)
		}
	})
}

func BenchmarkSplit(b *testing.B) {
	reply := strings.Repeat("Dr. Smith said the U.S. rate was 3.5 percent, e.g. lower than last year. "+
		"Is that good? Yes! Here's a list:\n- first item\n- second item\n```\ncode()\n```\n你好。今天天气很好！\n", 20)
	b.SetBytes(int64(len(reply)))
	b.ReportAllocs()
	for b.Loop() {
		sentence.Split(reply, sentence.DefaultMaxLen)
	}
}

// A first sentence of more than about 2 s of speech is cut where its first clause ends, so the
// first audio is synthesised sooner; a shorter one, or one whose only place to cut is before a
// conjunction, is kept whole until it is over 60 runes.
func TestSplit_FirstSentenceCutAtItsFirstClause(t *testing.T) {
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"[offline] you asked about weather, paris, today. More.",
			[]string{"[offline] you asked about weather,", "paris, today.", "More."}},
		{"You asked about the weather, today.", []string{"You asked about the weather, today."}}, // 35 runes
		{"You asked about the weather and the time in Paris.", []string{"You asked about the weather and the time in Paris."}},
		{"Yes, you asked about the weather in Paris today.", []string{"Yes, you asked about the weather in Paris today."}}, // the clause is too short
	} {
		got := sentence.Split(tt.text, 0)
		if !slices.Equal(got, tt.want) {
			t.Errorf("Split(%q) = %q, want %q", tt.text, got, tt.want)
		}
		checkPreserved(t, tt.text, got)
	}
}
