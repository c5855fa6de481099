package jsonscan

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"testing"
)

// bigTranscribeBody is a transcribe request near the size limit: 10 MB of audio in base64.
func bigTranscribeBody(b *testing.B) []byte {
	b.Helper()
	audio := bytes.Repeat([]byte{0x52, 0x49, 0x46, 0x46, 0x10, 0x80, 0xff, 0x01}, 10<<20/8)
	return []byte(`{"audio":"` + base64.StdEncoding.EncodeToString(audio) + `","format":"wav","language":"en"}`)
}

// BenchmarkObject_TranscribeBody is the service's reading of a transcribe body: one pass over
// the object, and the audio string copied out once.
func BenchmarkObject_TranscribeBody(b *testing.B) {
	body := bigTranscribeBody(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		f, err := Object(body)
		if err != nil {
			b.Fatal(err)
		}
		if _, ok := String(f["audio"]); !ok {
			b.Fatal("no audio")
		}
	}
}

// BenchmarkObject_EncodingJSON reads the same body with encoding/json, as Object's map would
// be: members as raw values, then the audio member as a string.
func BenchmarkObject_EncodingJSON(b *testing.B) {
	body := bigTranscribeBody(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var f map[string]json.RawMessage
		if err := json.Unmarshal(body, &f); err != nil {
			b.Fatal(err)
		}
		var s string
		if err := json.Unmarshal(f["audio"], &s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkObject_EncodingJSONStruct reads it with encoding/json straight into a struct.
func BenchmarkObject_EncodingJSONStruct(b *testing.B) {
	body := bigTranscribeBody(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var v struct {
			Audio  string `json:"audio"`
			Format string `json:"format"`
		}
		if err := json.Unmarshal(body, &v); err != nil {
			b.Fatal(err)
		}
	}
}
