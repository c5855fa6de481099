package speech

import (
	"context"
	"errors"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"parley/internal/sphinx"
	"parley/internal/testenv"
	"parley/media"
)

// requireLibrary skips the test (or fails it under CI=true) unless libpocketsphinx and its
// model load in this process.
func requireLibrary(t testing.TB) {
	t.Helper()
	err := loadLibrary()
	if err == nil {
		_, err = os.Stat(sphinx.Model)
	}
	if err == nil {
		return
	}
	msg := "this test needs libpocketsphinx3 and pocketsphinx-en-us (%v); run `make test` (it installs them)"
	if testenv.InCI() {
		t.Fatalf(msg, err)
	}
	t.Skipf(msg, err)
}

// residentForTest is a resident recogniser with its own pool of size decoders, freed when the
// test ends; onLend, if not nil, is called each time a decoder is lent.
func residentForTest(t testing.TB, size int) *pocketSphinx {
	t.Helper()
	requireLibrary(t)
	pool := newDecoderPool(size, func() (recogniser, error) { return newLibDecoder(residentArgs) })
	t.Cleanup(func() { pool.freeIdle() })
	return &pocketSphinx{o: PocketSphinxOptions{}.withDefaults(), sem: newSemaphore(), pool: pool}
}

// freeIdle frees the pool's idle decoders (tests make pools of their own).
func (p *decoderPool) freeIdle() {
	for {
		select {
		case r := <-p.idle:
			r.free()
		default:
			return
		}
	}
}

// wavOf is t's audio as a WAV file, as a client would send it.
func wavOf(tk take) []byte { return media.EncodeWAV(tk.pcm) }

// programWords is what pocketsphinx_continuous hears in tk.
func programWords(ctx context.Context, tk take) (string, error) {
	tr, err := NewPocketSphinx(PocketSphinxOptions{Program: true}).Transcribe(ctx, wavOf(tk), "audio/wav")
	return tr.Text, err
}

// libraryWords is what a decoder of the library, made by newDecoder with args, hears in each take,
// in turn.
func libraryWords(t *testing.T, newDecoder func([]string) (recogniser, error), args []string, takes []take) []string {
	t.Helper()
	r, err := newDecoder(args)
	if err != nil {
		t.Fatal(err)
	}
	defer r.free()
	hyps := make([]string, len(takes))
	for i, tk := range takes {
		out, err := r.recognise(t.Context(), tk.pcm.Samples)
		if err != nil {
			t.Fatal(err)
		}
		hyps[i] = parsePocketSphinx([]byte(out))
	}
	return hyps
}

// TestResident_SameWordsAsProgram compares, on a corpus of questions spoken by flite's voices
// and espeak-ng, the words of pocketsphinx_continuous with those of the library's decoder. With
// the program's options the words must be the same; with the resident recogniser's tuned
// options the word error rate must be no worse. It logs the rates:
//
//	go test -count=1 -v -run TestResident_SameWordsAsProgram ./server/speech/
func TestResident_SameWordsAsProgram(t *testing.T) {
	testenv.RequireCommands(t, "pocketsphinx_continuous")
	requireLibrary(t)
	takes := corpus(t)
	program := make([]string, len(takes))
	errs := make([]error, len(takes))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.NumCPU())
	for i, tk := range takes {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			program[i], errs[i] = programWords(t.Context(), tk)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	same := libraryWords(t, newStreamDecoder, programArgs, takes)
	tuned := libraryWords(t, newLibDecoder, residentArgs, takes)
	for i, tk := range takes {
		if same[i] != program[i] {
			t.Errorf("%s said %q: the program heard %q, the library with its options %q", tk.voice, tk.text, program[i], same[i])
		}
		if tuned[i] != program[i] {
			t.Logf("%s said %q: the program heard %q, the resident recogniser %q", tk.voice, tk.text, program[i], tuned[i])
		}
	}
	before, after := wordErrorRate(takes, program), wordErrorRate(takes, tuned)
	t.Logf("word error rate on %d questions: pocketsphinx_continuous %.1f%%, library with the program's options %.1f%%, resident recogniser (tuned) %.1f%%",
		len(takes), 100*before, 100*wordErrorRate(takes, same), 100*after)
	if after > before {
		t.Errorf("the tuned resident recogniser's word error rate %.1f%% is worse than the program's %.1f%%", 100*after, 100*before)
	}
}

// TestResident_Concurrent sends different questions from many goroutines at once through a
// pool of two decoders: each must get its own question's words.
func TestResident_Concurrent(t *testing.T) {
	p := residentForTest(t, 2)
	takes := corpus(t)[:6]
	want := make([]string, len(takes))
	for i, tk := range takes {
		tr, err := p.Transcribe(t.Context(), wavOf(tk), "")
		if err != nil {
			t.Fatal(err)
		}
		if tr.Text == "" {
			t.Fatalf("%s said %q and nothing was heard", tk.voice, tk.text)
		}
		want[i] = tr.Text
	}
	const calls = 24
	got := make([]string, calls)
	errs := make([]error, calls)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			tr, err := p.Transcribe(t.Context(), wavOf(takes[i%len(takes)]), "")
			got[i], errs[i] = tr.Text, err
		})
	}
	wg.Wait()
	for i := range calls {
		if errs[i] != nil || got[i] != want[i%len(takes)] {
			t.Errorf("call %d: %q, %v; want %q, as heard alone", i, got[i], errs[i], want[i%len(takes)])
		}
	}
	if n := p.pool.made.Load(); n != 2 {
		t.Errorf("made %d decoders, want 2", n)
	}
}

// TestResident_DeadDecoderIsReplaced kills a decoder of the pool (frees it under the pool's
// feet, as a crash of its state would leave it): the call that finds it fails with an
// *UpstreamError, and the next call gets a new decoder and the words.
func TestResident_DeadDecoderIsReplaced(t *testing.T) {
	p := residentForTest(t, 1)
	tk := spoken(t, corpusQuestions[0], "slt")
	first, err := p.Transcribe(t.Context(), wavOf(tk), "")
	if err != nil {
		t.Fatal(err)
	}
	r := <-p.pool.idle
	r.free()
	p.pool.idle <- r
	_, err = p.Transcribe(t.Context(), wavOf(tk), "")
	var up *UpstreamError
	if !errors.As(err, &up) {
		t.Fatalf("with a dead decoder: err = %v, want *UpstreamError", err)
	}
	again, err := p.Transcribe(t.Context(), wavOf(tk), "")
	if err != nil || again.Text != first.Text {
		t.Errorf("after the dead decoder: %q, %v; want %q", again.Text, err, first.Text)
	}
	if made, freed := p.pool.made.Load(), p.pool.freed.Load(); made != 2 || freed != 1 {
		t.Errorf("made %d decoders and freed %d, want 2 and 1", made, freed)
	}
}

// TestResident_CancelFreesSlot cancels a long recognition while it runs on the only decoder: it
// ends with context.Canceled, and the next call gets the same decoder and the words.
func TestResident_CancelFreesSlot(t *testing.T) {
	p := residentForTest(t, 1)
	long := spoken(t, longQuestion, "slt")
	short := spoken(t, corpusQuestions[0], "slt")
	lent := make(chan struct{}, 1)
	p.pool.onLend = func() {
		select {
		case lent <- struct{}{}:
		default:
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() {
		_, err := p.Transcribe(ctx, wavOf(long), "")
		done <- err
	}()
	<-lent
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call: err = %v, want context.Canceled", err)
	}
	tr, err := p.Transcribe(t.Context(), wavOf(short), "")
	if err != nil || heard(tr.Text, short.text) < 4 {
		t.Errorf("after a cancelled call: %q, %v; want most of %q", tr.Text, err, short.text)
	}
	if made, freed := p.pool.made.Load(), p.pool.freed.Load(); made != 1 || freed != 0 {
		t.Errorf("made %d decoders and freed %d, want 1 and 0: a cancelled call keeps its decoder", made, freed)
	}
}

// TestResident_NoMemoryGrowth makes 1,000 short recognitions: the Go heap and the resident
// memory of the process must not grow with them.
func TestResident_NoMemoryGrowth(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 recognitions: not in -short")
	}
	p := residentForTest(t, 1)
	tk := spoken(t, "yes", "slt")
	tk.pcm.Samples = tk.pcm.Samples[:min(len(tk.pcm.Samples), 8000)] // half a second: short questions
	audio := wavOf(tk)
	want := ""
	recognise := func(n int) {
		for range n {
			tr, err := p.Transcribe(t.Context(), audio, "")
			if err != nil {
				t.Fatal(err)
			}
			if want == "" {
				want = tr.Text
			} else if tr.Text != want {
				t.Fatalf("heard %q, then %q in the same audio", want, tr.Text)
			}
		}
	}
	recognise(50) // the decoder's buffers reach their size
	heap0, rss0 := memoryNow(t)
	recognise(1000)
	heap1, rss1 := memoryNow(t)
	t.Logf("over 1,000 recognitions of %v: Go heap %d → %d KiB, resident %d → %d KiB",
		tk.pcm.Duration().Round(time.Millisecond), heap0>>10, heap1>>10, rss0>>10, rss1>>10)
	// A leak of the hypothesis, or of a decoder, is at least tens of bytes a call: 1,000 calls
	// show it well above these bounds, which allow for the allocator's own noise.
	if heap1 > heap0+1<<20 {
		t.Errorf("Go heap grew from %d to %d KiB", heap0>>10, heap1>>10)
	}
	if rss1 > rss0+8<<20 {
		t.Errorf("resident memory grew from %d to %d KiB", rss0>>10, rss1>>10)
	}
}

// memoryNow is the Go heap in use after a collection, and the process's resident memory.
func memoryNow(t testing.TB) (heap, rss uint64) {
	t.Helper()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc, residentMemory(t)
}

// residentMemory is the process's resident set size, from /proc/self/status.
func residentMemory(t testing.TB) uint64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("resident memory: %v", err)
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("VmRSS %q: %v", rest, err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}

// FuzzResidentRecognise feeds arbitrary samples to a resident decoder: it must answer (words or
// none) and stay usable.
func FuzzResidentRecognise(f *testing.F) {
	requireLibrary(f)
	f.Add([]byte{})
	f.Add([]byte{0, 0})
	f.Add([]byte(strings.Repeat("\x00\x80\xff\x7f", 4096)))
	f.Add([]byte(strings.Repeat("parley", 3000)))
	r, err := newLibDecoder(residentArgs)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(r.free)
	f.Fuzz(func(t *testing.T, raw []byte) {
		samples := make([]int16, len(raw)/2)
		for i := range samples {
			samples[i] = int16(uint16(raw[2*i]) | uint16(raw[2*i+1])<<8)
		}
		if _, err := r.recognise(t.Context(), samples); err != nil {
			t.Fatalf("%d samples: %v", len(samples), err)
		}
	})
}

// BenchmarkResident reports recognition time and real-time factor for a 2 s and a 10 s
// question: warm (a loaded decoder), cold (a new decoder, the model loaded first) and the
// program as before (pocketsphinx_continuous, run per call). Decoding of the WAV is included.
//
//	nice -n 5 go test -run '^$' -bench BenchmarkResident -benchtime 20x ./server/speech/
func BenchmarkResident(b *testing.B) {
	requireLibrary(b)
	testenv.RequireCommands(b, "pocketsphinx_continuous")
	questions := []struct {
		name string
		tk   take
	}{
		{"2s", spoken(b, "what is the weather like in paris", "slt")},
		{"10s", spoken(b, longQuestion, "slt")},
	}
	for _, q := range questions {
		audio := wavOf(q.tk)
		secs := q.tk.pcm.Duration().Seconds()
		run := func(b *testing.B, stt func() (Transcriber, func())) {
			for b.Loop() {
				p, done := stt()
				_, err := p.Transcribe(b.Context(), audio, "")
				done()
				if err != nil {
					b.Fatal(err)
				}
			}
			per := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(per*1000, "ms/question")
			b.ReportMetric(per/secs, "xRT")
			b.ReportMetric(secs, "s-audio")
		}
		b.Run(q.name+"/warm", func(b *testing.B) {
			p := residentForTest(b, 1)
			if err := p.pool.warm(); err != nil {
				b.Fatal(err)
			}
			run(b, func() (Transcriber, func()) { return p, func() {} })
		})
		b.Run(q.name+"/cold", func(b *testing.B) {
			run(b, func() (Transcriber, func()) {
				p := &pocketSphinx{o: PocketSphinxOptions{}.withDefaults(), sem: newSemaphore(),
					pool: newDecoderPool(1, func() (recogniser, error) { return newLibDecoder(residentArgs) })}
				return p, p.pool.freeIdle
			})
		})
		b.Run(q.name+"/program", func(b *testing.B) {
			p := NewPocketSphinx(PocketSphinxOptions{Program: true})
			run(b, func() (Transcriber, func()) { return p, func() {} })
		})
	}
}

// BenchmarkResidentMemory reports the resident memory that one and two decoders add to the
// process, each having recognised a question; measured on the first iteration only, since
// freed memory stays with the C allocator for the next.
//
//	go test -run '^$' -bench BenchmarkResidentMemory -benchtime 1x ./server/speech/
func BenchmarkResidentMemory(b *testing.B) {
	requireLibrary(b)
	tk := spoken(b, corpusQuestions[0], "slt")
	var grew []uint64
	for b.Loop() {
		_, before := memoryNow(b)
		var rs []recogniser
		for range 2 {
			r, err := newLibDecoder(residentArgs)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := r.recognise(b.Context(), tk.pcm.Samples); err != nil {
				b.Fatal(err)
			}
			rs = append(rs, r)
			if _, rss := memoryNow(b); len(grew) < 2 {
				grew = append(grew, rss-before)
			}
		}
		for _, r := range rs {
			r.free()
		}
	}
	b.ReportMetric(float64(grew[0])/(1<<20), "MiB-1-decoder")
	b.ReportMetric(float64(grew[1])/(1<<20), "MiB-2-decoders")
}

// TestPieces: a take over 30 s is cut at its quietest 100 ms after 15 s, and every sample is
// kept, in order.
func TestPieces(t *testing.T) {
	loud := func(n int) []int16 {
		s := make([]int16, n)
		for i := range s {
			s[i] = int16(8000 * (1 - 2*(i/8%2)))
		}
		return s
	}
	short := loud(20 * 16000)
	if p := pieces(short); len(p) != 1 || len(p[0]) != len(short) {
		t.Errorf("a 20 s take in %d pieces", len(p))
	}
	// 70 s: loud, with silences at 22 s and at 50 s.
	take := loud(70 * 16000)
	for _, at := range []int{22, 50} {
		clear(take[at*16000 : at*16000+3200])
	}
	p := pieces(take)
	var n int
	var cuts []float64
	for _, x := range p {
		if len(x) > maxPiece {
			t.Errorf("a piece of %d samples", len(x))
		}
		n += len(x)
		cuts = append(cuts, float64(n)/16000)
	}
	if n != len(take) || len(p) != 3 || cuts[0] < 22 || cuts[0] > 22.2 || cuts[1] < 50 || cuts[1] > 50.2 {
		t.Errorf("cut at %v s (%d samples of %d); want at the silences of 22 and 50 s", cuts, n, len(take))
	}
}
