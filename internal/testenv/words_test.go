package testenv

import "testing"

func TestWordErrors(t *testing.T) {
	cases := []struct {
		ref, hyp string
		want     int
	}{
		{"a b c", "a b c", 0},
		{"a b c", "", 3},
		{"", "a b", 2},
		{"a b c", "a x c", 1},
		{"a b c", "a c", 1},
		{"a b c", "a b c d", 1},
		{"what is the weather", "what is that went on to you", 5},
	}
	for _, c := range cases {
		if got := WordErrors(c.ref, c.hyp); got != c.want {
			t.Errorf("WordErrors(%q, %q) = %d, want %d", c.ref, c.hyp, got, c.want)
		}
	}
}
