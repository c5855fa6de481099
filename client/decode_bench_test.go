package client

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"testing"

	"parley/internal/jsonscan"
)

// bigSpeechAnswer is a speech answer in an envelope with 5 MB of MP3 in base64.
func bigSpeechAnswer() []byte {
	audio := bytes.Repeat([]byte{0xff, 0xf3, 0x44, 0xc4, 0x10, 0x80, 0x7f, 0x01}, 5<<20/8)
	return []byte(`{"code":0,"msg":"ok","data":{"audio":"` + base64.StdEncoding.EncodeToString(audio) +
		`","format":"mp3","voice":"alloy"}}`)
}

// BenchmarkParseAnswer_Members reads the answer as the client does: json.Valid once, then the
// members split without a copy (jsonscan.Members). The package doc of jsonscan gives the figures.
func BenchmarkParseAnswer_Members(b *testing.B) {
	body := bigSpeechAnswer()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		top, payload, ok := parseAnswer(body)
		if !ok || top == nil || jsonscan.FirstByte(payload) != '{' {
			b.Fatal("not read")
		}
		if _, ok := jsonscan.String(jsonscan.Members(payload)["audio"]); !ok {
			b.Fatal("no audio")
		}
	}
}

// BenchmarkParseAnswer_EncodingJSON reads it with encoding/json into maps of raw members, as
// parseAnswer would without jsonscan.Members.
func BenchmarkParseAnswer_EncodingJSON(b *testing.B) {
	body := bigSpeechAnswer()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var top map[string]json.RawMessage
		var te *json.UnmarshalTypeError
		if err := json.Unmarshal(body, &top); err != nil && !errors.As(err, &te) {
			b.Fatal(err)
		}
		var data map[string]json.RawMessage
		if err := json.Unmarshal(top["data"], &data); err != nil {
			b.Fatal(err)
		}
		var audio string
		if err := json.Unmarshal(data["audio"], &audio); err != nil {
			b.Fatal(err)
		}
	}
}
