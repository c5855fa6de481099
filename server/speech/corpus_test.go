package speech

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"parley/internal/testenv"
	"parley/media"
)

// corpusQuestions are the spoken questions the resident recogniser is compared on.
var corpusQuestions = []string{
	"what is the weather like in paris today",
	"set a timer for ten minutes",
	"how far is the moon from the earth",
	"tell me a joke about computers",
	"what time is it in tokyo",
	"play some music for me please",
	"how do i make a cup of tea",
	"who wrote the book war and peace",
	"what is the capital of australia",
	"remind me to call my mother tomorrow",
	"how many days are there in a leap year",
	"translate good morning into spanish",
	"what is the square root of one hundred",
	"can you recommend a good restaurant nearby",
	"how tall is the eiffel tower",
	"what should i cook for dinner tonight",
	"turn off the lights in the kitchen",
	"when does the next train leave for london",
	"explain how a rainbow is formed",
	"what is the population of new york city",
	"send a message to john saying i am late",
	"how long does it take to boil an egg",
	"what are the symptoms of the flu",
	"who won the world cup last year",
}

// longQuestion is spoken for the 10-second figures.
const longQuestion = "i am planning a trip to italy next spring with my family and i would like to know " +
	"which cities we should visit and how many days we should spend in each of them before we fly home"

// corpusVoices speak the corpus in turn: flite's four voices at 16 kHz, and espeak-ng (flite's kal at
// 8 kHz is telephone-quality audio, which the recogniser refuses).
var corpusVoices = []string{"slt", "rms", "awb", "kal16", "espeak-ng"}

// take is one spoken question: what was said, by whom, and the audio as 16 kHz mono.
type take struct {
	text, voice string
	pcm         media.PCM
}

// speak renders text with voice (a flite voice, or "espeak-ng") into a 16 kHz mono take.
func speak(dir, text, voice string) (take, error) {
	f := filepath.Join(dir, strings.ReplaceAll(voice+"-"+text, " ", "_")+".wav")
	var cmd *exec.Cmd
	if voice == "espeak-ng" {
		cmd = exec.Command("espeak-ng", "-v", "en-us", "-w", f, text)
	} else {
		cmd = exec.Command("flite", "-voice", voice, "-t", text, "-o", f)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return take{}, fmt.Errorf("%s: %w: %s", cmd, err, out)
	}
	b, err := os.ReadFile(f)
	if err != nil {
		return take{}, err
	}
	p, err := media.Decode(b)
	if err != nil {
		return take{}, fmt.Errorf("decode %s: %w", f, err)
	}
	return take{text: text, voice: voice, pcm: media.To16kMono(p)}, nil
}

// spoken speaks text with voice into a temporary folder of t.
func spoken(t testing.TB, text, voice string) take {
	t.Helper()
	testenv.RequireCommands(t, "flite", "espeak-ng")
	tk, err := speak(t.TempDir(), text, voice)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// corpus speaks corpusQuestions, each with the next of corpusVoices, into a temporary folder.
func corpus(t testing.TB) []take {
	t.Helper()
	testenv.RequireCommands(t, "flite", "espeak-ng")
	dir := t.TempDir()
	takes := make([]take, len(corpusQuestions))
	errs := make([]error, len(corpusQuestions))
	var wg sync.WaitGroup
	for i, q := range corpusQuestions {
		wg.Go(func() { takes[i], errs[i] = speak(dir, q, corpusVoices[i%len(corpusVoices)]) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return takes
}

// wordErrorRate is the word errors of hyps against the takes' texts, over the reference words.
func wordErrorRate(takes []take, hyps []string) float64 {
	errs, words := 0, 0
	for i, tk := range takes {
		errs += testenv.WordErrors(tk.text, hyps[i])
		words += len(strings.Fields(tk.text))
	}
	return float64(errs) / float64(words)
}
