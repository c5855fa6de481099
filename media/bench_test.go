package media

import (
	"encoding/base64"
	"encoding/json"
	"testing"
	"time"
)

// benchSpeech is espeak speech at 16 kHz mono (the benchmark skips without espeak-ng).
func benchSpeech(b *testing.B) PCM {
	b.Helper()
	return To16kMono(espeak(b, speechText))
}

func BenchmarkOpusEncode(b *testing.B) {
	p := benchSpeech(b)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		if _, err := EncodeWebMOpus(p, UploadBitrate); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(p.Duration().Seconds()*float64(b.N)/time.Since(start).Seconds(), "x_realtime")
}

func BenchmarkDecodeWebMOpus(b *testing.B) {
	p := benchSpeech(b)
	webm, err := EncodeWebMOpus(p, UploadBitrate)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		if _, err := DecodeWebMOpus(webm); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(p.Duration().Seconds()*float64(b.N)/time.Since(start).Seconds(), "x_realtime")
}

func BenchmarkResample(b *testing.B) {
	p := testTone(44100, 1, 10*time.Second)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		Resample(p, 16000)
	}
	b.ReportMetric(p.Duration().Seconds()*float64(b.N)/time.Since(start).Seconds(), "x_realtime")
}

// BenchmarkBytesPerSecond reports what a second of speech costs on the wire as the client sends
// it: WebM/Opus at 16 kbit/s, base64 in a JSON string.
func BenchmarkBytesPerSecond(b *testing.B) {
	p := benchSpeech(b)
	var size int
	for b.Loop() {
		webm, err := EncodeWebMOpus(p, UploadBitrate)
		if err != nil {
			b.Fatal(err)
		}
		body, err := json.Marshal(map[string]string{"audio": base64.StdEncoding.EncodeToString(webm)})
		if err != nil {
			b.Fatal(err)
		}
		size = len(body)
	}
	b.ReportMetric(float64(size)/p.Duration().Seconds(), "B/s_speech")
}
