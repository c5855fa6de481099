package voice_test

import (
	"testing"

	"parley/voice"
)

// Every notice has a name and an English sentence of its own; NoNotice has no sentence.
func TestEnglishNotice(t *testing.T) {
	if got := voice.EnglishNotice(voice.NoNotice); got != "" {
		t.Errorf("EnglishNotice(NoNotice) = %q", got)
	}
	names, sentences := map[string]bool{}, map[string]bool{}
	for k := voice.NoticeSilentMic; k <= voice.NoticeStepFailed; k++ {
		name, text := k.String(), voice.EnglishNotice(k)
		if text == "" || sentences[text] || names[name] {
			t.Errorf("notice %d: name %q, sentence %q: empty or the same as another's", int(k), name, text)
		}
		names[name], sentences[text] = true, true
	}
}
