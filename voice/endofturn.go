package voice

import (
	"strings"
	"time"

	"parley/audio"
)

// The adaptive end of turn (Config.AdaptiveHold) ends a question by what its speculative
// transcript says, rather than after one fixed hold.
const (
	// CompleteHold is the silence that ends a question whose transcript reads as complete.
	CompleteHold = 500 * time.Millisecond
	// ContinuedHold is the silence that ends a question whose transcript ends on a word that
	// announces more; it is also the voice detector's hold with Config.AdaptiveHold.
	ContinuedHold = 1500 * time.Millisecond
)

// Ending is how a transcript ends, for the adaptive end of turn.
type Ending int

// The endings TranscriptEnding tells apart.
const (
	// EndingUnknown: nothing to judge by (empty, or only noise): the fixed hold applies.
	EndingUnknown Ending = iota
	// EndingComplete: the transcript reads as a whole question.
	EndingComplete
	// EndingContinues: it ends on a word or mark that announces more ("and", "the", "um", ",").
	EndingContinues
)

func (e Ending) String() string {
	switch e {
	case EndingComplete:
		return "complete"
	case EndingContinues:
		return "continues"
	}
	return "unknown"
}

// continuing are the words that announce more when a question stops on them: conjunctions,
// articles, prepositions, possessives, question words, auxiliaries and fillers. A word here that
// does end a question ("who did you talk to") costs that question only the longer wait; a word
// missing from it can cut a question in the middle, so the list errs on the long side.
var continuing = wordSet(
	// conjunctions
	"and", "but", "or", "nor", "so", "because", "cause", "if", "whether", "than", "as", "while",
	"although", "though", "unless", "until", "since", "when", "where", "after", "before", "that",
	// articles and determiners
	"the", "a", "an", "this", "these", "those", "some", "any", "every", "each", "no", "another",
	// prepositions
	"to", "of", "in", "on", "at", "for", "with", "from", "by", "about", "into", "onto", "over",
	"under", "between", "through", "during", "without", "within", "against", "like", "per", "via",
	// possessives
	"my", "your", "our", "their", "his", "its",
	// question words and auxiliaries that open a clause
	"what", "which", "who", "whose", "how", "why", "is", "are", "was", "were", "do", "does", "did",
	"can", "could", "will", "would", "should", "shall", "may", "might", "must", "am", "be",
	"have", "has", "had", "i", "i'm", "you're", "it's", "there's", "what's", "let's",
	// fillers
	"um", "umm", "uh", "uhh", "er", "erm", "hmm", "hm", "mm", "ah", "well", "also", "then",
)

func wordSet(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// TranscriptEnding tells whether a transcript reads as a complete question or stops on a word
// or mark that announces more. A final "?", "!" or "." (a service that punctuates) reads as
// complete, a final ",", ";", ":", "-" or "..." as more to come; unpunctuated text (as
// pocketsphinx writes it) is judged by its last word.
func TranscriptEnding(text string) Ending {
	rest := strings.TrimSpace(annotation.ReplaceAllString(text, " "))
	if IsNoise(rest) {
		return EndingUnknown
	}
	switch {
	case strings.HasSuffix(rest, "..."), strings.HasSuffix(rest, "…"):
		return EndingContinues
	case strings.HasSuffix(rest, "?"), strings.HasSuffix(rest, "!"), strings.HasSuffix(rest, "."):
		return EndingComplete
	case strings.HasSuffix(rest, ","), strings.HasSuffix(rest, ";"), strings.HasSuffix(rest, ":"),
		strings.HasSuffix(rest, "-"), strings.HasSuffix(rest, "–"), strings.HasSuffix(rest, "—"):
		return EndingContinues
	}
	words := strings.FieldsFunc(strings.ToLower(rest), func(c rune) bool { return !isWordRune(c) && c != '\'' && c != '’' })
	last := strings.Trim(strings.ReplaceAll(words[len(words)-1], "’", "'"), "'")
	if continuing[last] {
		return EndingContinues
	}
	return EndingComplete
}

// endOfTurn ends the take being recorded, with Config.AdaptiveHold, when its pause is long
// enough for what its speculative transcript says: CompleteHold when it reads as complete,
// the fixed hold when there is none yet; ContinuedHold, when it announces more, is the voice
// detector's own hold.
func (r *run) endOfTurn() (audio.StopReason, bool) {
	ls := &r.listening
	if !r.cfg.AdaptiveHold || !ls.tb.Speech() {
		return 0, false
	}
	pause := ls.tb.Pause()
	if pause == 0 {
		return 0, false
	}
	hold := r.cfg.Hold
	if s := ls.spec; s != nil && s.answered() && s.lastActive == ls.tb.Heard()-pause {
		switch TranscriptEnding(s.text) {
		case EndingComplete:
			hold = min(CompleteHold, r.cfg.Hold)
		case EndingContinues:
			return 0, false
		}
	}
	if pause >= hold {
		return audio.StopEndOfSpeech, true
	}
	return 0, false
}
