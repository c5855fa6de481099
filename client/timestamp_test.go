package client

import (
	"encoding/json"
	"testing"
	"time"
)

func TestParseTime(t *testing.T) {
	want := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	frac := time.Date(2024, 5, 6, 7, 8, 9, 123456000, time.UTC)
	plus2 := time.FixedZone("", 2*3600)
	tests := []struct {
		in   any
		want time.Time
	}{
		{"2024-05-06T07:08:09Z", want},
		{"2024-05-06T07:08:09.123456Z", frac},
		{"2024-05-06T09:08:09+02:00", time.Date(2024, 5, 6, 9, 8, 9, 0, plus2)},
		{"2024-05-06T09:08:09+0200", time.Date(2024, 5, 6, 9, 8, 9, 0, plus2)},
		{"2024-05-06T09:08:09+02", time.Date(2024, 5, 6, 9, 8, 9, 0, plus2)},
		{"2024-05-06T07:08:09", want},
		{"2024-05-06T07:08:09.123456", frac},
		{"2024-05-06 07:08:09", want},
		{"2024-05-06 07:08:09.123456", frac},
		{"2024-05-06 07:08:09+00:00", want},
		{"2024-05-06t07:08:09z", want},
		{" 2024-05-06T07:08:09Z ", want},
		{"1714979289", want},
		{"1714979289000", want},
		{"1714979289.123456", frac},
		{json.Number("1714979289"), want},
		{json.Number("1714979289000"), want},
		{json.Number("1714979289123456"), frac},
		{1714979289.0, want},
		{int64(1714979289000), want},
		{1714979289, want},
		{want, want},
	}
	for _, tt := range tests {
		got, err := parseTime(tt.in)
		if err != nil {
			t.Errorf("parseTime(%#v): %v", tt.in, err)
			continue
		}
		if !got.Equal(tt.want) {
			t.Errorf("parseTime(%#v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestParseTime_Bad(t *testing.T) {
	for _, in := range []any{"", "yesterday", "2024-13-01T00:00:00Z", "1e400", "NaN", nil, true, []any{}, "99999999999999999999999", json.Number("-1e30")} {
		if got, err := parseTime(in); err == nil {
			t.Errorf("parseTime(%#v) = %v, want an error", in, got)
		}
	}
}

func FuzzParseTime(f *testing.F) {
	for _, s := range []string{
		"2024-05-06T07:08:09Z", "2024-05-06T07:08:09.123456789+05:30", "2024-05-06 07:08:09",
		"2024-05-06T07:08:09", "1714979289", "1714979289000", "1714979289.5", "-1", "0", "1e12",
		"2024-05-06T09:08:09+02", "Mon, 06 May 2024 07:08:09 GMT", "9999-12-31T23:59:59Z",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseTime(s)
		if err != nil {
			return
		}
		// Whatever parses is a time JSON can carry, so the CLI can print it.
		if _, err := json.Marshal(got); err != nil {
			t.Fatalf("parseTime(%q) = %v, which JSON cannot encode: %v", s, got, err)
		}
		if _, err := parseTime(json.Number(s)); err != nil && looksNumeric(s) {
			t.Fatalf("parseTime(%q) ok as string but not as number: %v", s, err)
		}
	})
}
