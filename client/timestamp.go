package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// timeLayouts are the textual timestamp forms parseTime accepts, tried in order.
var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999Z0700",
	"2006-01-02 15:04:05.999999999 -0700 MST",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04",
	"2006-01-02 15:04",
	time.RFC1123,
	time.RFC1123Z,
	"2006-01-02",
}

var (
	minTime = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTime = time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)
)

// parseTime reads a timestamp as services write them: RFC 3339 with or without fraction or zone,
// "YYYY-MM-DD HH:MM:SS", or Unix seconds or milliseconds as a number or a string; times without a zone are UTC.
func parseTime(v any) (time.Time, error) {
	switch x := v.(type) {
	case time.Time:
		return x, nil
	case string:
		return parseTimeString(x)
	case json.Number:
		return parseTimeString(string(x))
	case float64:
		return unixTime(x)
	case float32:
		return unixTime(float64(x))
	case int:
		return unixTime(float64(x))
	case int64:
		if x > 1<<53 || x < -(1<<53) {
			return parseTimeString(strconv.FormatInt(x, 10))
		}
		return unixTime(float64(x))
	case nil:
		return time.Time{}, errors.New("no timestamp")
	default:
		return time.Time{}, fmt.Errorf("timestamp of unexpected type %T", v)
	}
}

func parseTimeString(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, errors.New("empty timestamp")
	}
	if len(s) > 64 {
		return time.Time{}, fmt.Errorf("timestamp too long (%d characters)", len(s))
	}
	if looksNumeric(s) {
		if t, ok := unixDecimal(s); ok {
			return t, nil
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return time.Time{}, fmt.Errorf("timestamp %q: %w", s, err)
		}
		return unixTime(f)
	}
	// Python's isoformat may give more than nine fraction digits only in odd cases; Go accepts up to nine.
	for _, layout := range timeLayouts {
		t, err := time.Parse(layout, s)
		if err == nil {
			return checkRange(t, s)
		}
	}
	// A lowercase "t"/"z" or a zone written as "+00" are also seen in the wild.
	if u := strings.ToUpper(s); u != s {
		for _, layout := range timeLayouts[:3] {
			if t, err := time.Parse(layout, u); err == nil {
				return checkRange(t, s)
			}
		}
	}
	if n := len(s); n > 3 && (s[n-3] == '+' || s[n-3] == '-') && isDigits(s[n-2:]) {
		if t, err := time.Parse("2006-01-02T15:04:05.999999999Z07", strings.Replace(s, " ", "T", 1)); err == nil {
			return checkRange(t, s)
		}
	}
	return time.Time{}, fmt.Errorf("unrecognised timestamp %q", s)
}

func checkRange(t time.Time, s string) (time.Time, error) {
	if t.Before(minTime) || t.After(maxTime) || t.Year() < 1 || t.Year() > 9999 {
		return time.Time{}, fmt.Errorf("timestamp %q out of range", s)
	}
	return t, nil
}

// unixTime reads seconds, milliseconds, microseconds or nanoseconds since 1970 by magnitude.
func unixTime(f float64) (time.Time, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return time.Time{}, errors.New("timestamp is not a finite number")
	}
	a := math.Abs(f)
	var sec float64
	switch {
	case a >= 1e17: // nanoseconds
		sec = f / 1e9
	case a >= 1e14: // microseconds
		sec = f / 1e6
	case a >= 1e11: // milliseconds (1e11 s would be the year 5138)
		sec = f / 1e3
	default:
		sec = f
	}
	if sec < -62135596800 || sec > 253402300799 {
		return time.Time{}, fmt.Errorf("timestamp %v out of range", f)
	}
	whole, frac := math.Modf(sec)
	us := math.Round(frac * 1e6) // a float64 near 1.7e9 holds no finer than microseconds
	return time.Unix(int64(whole), int64(us)*1000).UTC(), nil
}

// unixDecimal reads a plain decimal ("1714979289", "1714979289000", "1714979289.123456") exactly.
func unixDecimal(s string) (time.Time, bool) {
	neg := false
	if s[0] == '-' || s[0] == '+' {
		neg = s[0] == '-'
		s = s[1:]
	}
	intPart, fracPart, _ := strings.Cut(s, ".")
	if intPart == "" {
		intPart = "0"
	}
	if !isDigits(intPart) || (fracPart != "" && !isDigits(fracPart)) || len(intPart) > 18 {
		return time.Time{}, false
	}
	n, err := strconv.ParseInt(intPart, 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	var perSec int64 // units per second
	switch {
	case n >= 1e17:
		perSec = 1e9
	case n >= 1e14:
		perSec = 1e6
	case n >= 1e11:
		perSec = 1e3
	default:
		perSec = 1
	}
	frac9 := (fracPart + "000000000")[:9] // the fraction of one unit, in billionths
	f, _ := strconv.ParseInt(frac9, 10, 64)
	sec := n / perSec
	nanos := (n%perSec)*(1e9/perSec) + f/perSec
	if neg {
		sec, nanos = -sec, -nanos
	}
	t := time.Unix(sec, nanos).UTC()
	if t.Before(minTime) || t.After(maxTime) {
		return time.Time{}, false
	}
	return t, true
}

func looksNumeric(s string) bool {
	if s[0] == '-' || s[0] == '+' {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	dot := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
		case c == '.' && !dot:
			dot = true
		case c == 'e' || c == 'E':
			return i > 0 && looksExponent(s[i+1:])
		default:
			return false
		}
	}
	return s != "."
}

func looksExponent(s string) bool {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	return s != "" && isDigits(s)
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
