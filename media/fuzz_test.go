package media

import (
	"bytes"
	"errors"
	"testing"
	"time"
)

// Run a target with, for example:
//
//	go test -run XXX -fuzz=FuzzDecodeOggOpus -fuzztime=30s -fuzzminimizetime=3s ./media/
//
// Keep -fuzzminimizetime short: each Opus decoder costs about 0.1 ms to set up, so the default
// 60 s spent minimizing every new input stalls the run. Crashers found go in testdata/fuzz.

// checkPCM fails on decoded audio that breaks the PCM contract.
func checkPCM(t *testing.T, p PCM) {
	t.Helper()
	if p.Channels < 1 || p.Channels > 2 || p.Rate <= 0 {
		t.Fatalf("decoded %d channels at %d Hz", p.Channels, p.Rate)
	}
	if len(p.Samples)%p.Channels != 0 || len(p.Samples) > MaxSamples {
		t.Fatalf("%d samples for %d channels", len(p.Samples), p.Channels)
	}
}

// seedFixtures adds the committed fixtures, and files made here, to a fuzz corpus.
func seedFixtures(f *testing.F, names ...string) {
	for _, n := range names {
		f.Add(readFixture(f, n))
	}
}

func FuzzReadWAV(f *testing.F) {
	seedFixtures(f, "hello.wav")
	tone := testTone(8000, 2, 20*time.Millisecond)
	for _, s := range []wavSpec{
		{bits: 8}, {bits: 24, extensible: true}, {bits: 32, float: true, oddChunk: true},
		{bits: 16, streamed: true, streamSize: 0xFFFFFFFF},
	} {
		f.Add(buildWAV(tone, s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ReadWAV(bytes.NewReader(data))
		if err == nil {
			checkPCM(t, p)
		}
	})
}

func FuzzDecodeWebMOpus(f *testing.F) {
	seedFixtures(f, "hello.webm", "hello-unlaced.webm")
	stereo, err := EncodeWebMOpus(testTone(48000, 2, 60*time.Millisecond), 0)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(stereo)
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := DecodeWebMOpus(data)
		if err == nil {
			checkPCM(t, p)
		}
	})
}

func FuzzDecodeOggOpus(f *testing.F) {
	seedFixtures(f, "hello.opus", "hello-stereo.opus")
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := DecodeOggOpus(data)
		if err == nil {
			checkPCM(t, p)
		}
	})
}

func FuzzDecodeMP3(f *testing.F) {
	seedFixtures(f, "hello.mp3")
	f.Add(crashMP3)
	f.Add([]byte("ID3\x04\x00\x00\x7f\x7f\x7f\x7f"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := DecodeMP3(data)
		if err == nil {
			checkPCM(t, p)
		}
	})
}

func FuzzDecodeFLAC(f *testing.F) {
	seedFixtures(f, "hello.flac", "hello-stereo24.flac")
	f.Add([]byte("fLaC\x00\x00\x00\x22"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := DecodeFLAC(data)
		if err == nil {
			checkPCM(t, p)
		}
	})
}

func FuzzSniffDecode(f *testing.F) {
	seedFixtures(f, "hello.wav", "hello.webm", "hello.opus", "hello.mp3", "hello.flac")
	f.Add([]byte(`{"text": "hello"}`))
	f.Add([]byte("ID3\x04\x00\x00"))
	f.Add([]byte("fLaC\x00\x00\x00\x22"))
	f.Fuzz(func(t *testing.T, data []byte) {
		format := Sniff(data)
		p, err := Decode(data)
		switch {
		case err == nil:
			checkPCM(t, p)
			if format == FormatUnknown {
				t.Fatal("decoded a file of no known format")
			}
		case format == FormatUnknown && !errors.Is(err, ErrNotAudio):
			t.Fatalf("unknown data gave %v, want ErrNotAudio", err)
		}
		if _, _, err := PrepareUpload("x.wav", data); err == nil && format == FormatUnknown {
			t.Fatal("PrepareUpload accepted unknown data")
		}
	})
}
