package speech

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

// fakeRecogniser answers with its name; dead ones fail, as a decoder whose library call failed.
type fakeRecogniser struct {
	name  string
	dead  atomic.Bool
	freed atomic.Bool
}

func (f *fakeRecogniser) recognise(ctx context.Context, _ []int16) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if f.dead.Load() || f.freed.Load() {
		return "", errors.New("decoder died")
	}
	return f.name, nil
}

func (f *fakeRecogniser) free() { f.freed.Store(true) }

// fakePool is a pool of size making fakeRecognisers named 1, 2, 3...; made lists them.
func fakePool(size int) (*decoderPool, *[]*fakeRecogniser) {
	var mu sync.Mutex
	made := &[]*fakeRecogniser{}
	p := newDecoderPool(size, func() (recogniser, error) {
		mu.Lock()
		defer mu.Unlock()
		r := &fakeRecogniser{name: string(rune('0' + len(*made) + 1))}
		*made = append(*made, r)
		return r, nil
	})
	return p, made
}

func TestDecoderPool_KeepsDecoders(t *testing.T) {
	p, made := fakePool(2)
	for range 5 {
		r, err := p.get(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		p.put(r, false)
	}
	if len(*made) != 1 {
		t.Errorf("made %d decoders for 5 calls one after another, want 1", len(*made))
	}
	a, _ := p.get(t.Context())
	b, _ := p.get(t.Context())
	if a == b || len(*made) != 2 {
		t.Errorf("two calls at once shared a decoder, or made %d (want 2)", len(*made))
	}
	p.put(a, false)
	p.put(b, false)
}

func TestDecoderPool_WaitsForAFreeDecoder(t *testing.T) {
	p, made := fakePool(1)
	a, err := p.get(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan recogniser)
	go func() {
		r, _ := p.get(context.Background())
		got <- r
	}()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := p.get(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("get with all decoders lent and ctx cancelled: err = %v, want context.Canceled", err)
	}
	p.put(a, false)
	if b := <-got; b != a {
		t.Errorf("the waiting call got %v, want the decoder given back", b)
	}
	if len(*made) != 1 {
		t.Errorf("made %d decoders, want 1", len(*made))
	}
}

func TestDecoderPool_FailedDecoderIsReplaced(t *testing.T) {
	p, made := fakePool(2)
	if err := p.warm(); err != nil {
		t.Fatal(err)
	}
	r, _ := p.get(t.Context())
	r.(*fakeRecogniser).dead.Store(true)
	_, err := r.recognise(t.Context(), nil)
	p.put(r, err != nil)
	if !(*made)[0].freed.Load() || p.freed.Load() != 1 {
		t.Fatal("the failed decoder was not freed")
	}
	r, _ = p.get(t.Context())
	out, err := r.recognise(t.Context(), nil)
	p.put(r, err != nil)
	if err != nil || out != "2" || len(*made) != 2 {
		t.Errorf("after a failure: %q, %v from decoder %d made; want a new decoder 2", out, err, len(*made))
	}
}

func TestDecoderPool_MakeFails(t *testing.T) {
	fail := errors.New("no model")
	p := newDecoderPool(1, func() (recogniser, error) { return nil, fail })
	for range 3 {
		if _, err := p.get(t.Context()); !errors.Is(err, fail) {
			t.Fatalf("err = %v, want %v", err, fail)
		}
	}
	if err := p.warm(); !errors.Is(err, fail) {
		t.Errorf("warm: err = %v, want %v", err, fail)
	}
}

func TestDecoderPool_CallsAtOnceWaitForTheDecoderBeingMade(t *testing.T) {
	release := make(chan struct{})
	var made, making atomic.Int64
	var overlap atomic.Bool
	p := newDecoderPool(2, func() (recogniser, error) {
		made.Add(1)
		if making.Add(1) > 1 {
			overlap.Store(true)
		}
		defer making.Add(-1)
		<-release
		return &fakeRecogniser{name: "1"}, nil
	})
	warmed := make(chan error)
	go func() { warmed <- p.warm() }()
	got := make(chan recogniser)
	go func() {
		r, _ := p.get(context.Background())
		got <- r
	}()
	close(release)
	if err := <-warmed; err != nil {
		t.Fatal(err)
	}
	r := <-got
	p.put(r, false)
	// The call either took the warmed decoder or made the second one after the first was
	// made: never two made at once (each loads a model, and the library's setup is global).
	if overlap.Load() {
		t.Error("two decoders were made at once")
	}
	if n := made.Load(); n < 1 || n > 2 {
		t.Errorf("made %d decoders, want 1 or 2", n)
	}
}
